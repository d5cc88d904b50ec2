import { ConnectorError, type Shipment } from '@print-api/connector-kit';
import type { EtsyClient } from './etsy-client.ts';
import { parseReceipt } from './order-mapper.ts';
import { z } from 'zod';

/**
 * Our carriers' names (lower-cased, spaces and punctuation dropped) to the names Etsy's
 * tracking knows (lowercase-hyphen, from its fulfillment tutorial's carrier list). Any other
 * carrier is sent as `other`: Etsy then shows no tracking link, so the buyer's note carries it.
 */
const ETSY_CARRIERS: Record<string, string> = {
  usps: 'usps',
  ups: 'ups',
  fedex: 'fedex',
  dhl: 'dhl',
  dhlexpress: 'dhl-express',
  dhlecommerce: 'dhl-ecommerce',
  royalmail: 'royal-mail',
  canadapost: 'canada-post',
  australiapost: 'australia-post',
  deutschepost: 'deutsche-post',
  postnl: 'postnl',
  dpd: 'dpd',
  gls: 'gls',
  laposte: 'la-poste',
  colissimo: 'colissimo',
};

export function etsyCarrierName(carrier: string): string {
  return ETSY_CARRIERS[carrier.toLowerCase().replace(/[^a-z0-9]/g, '')] ?? 'other';
}

const shipments = z.object({ shipments: z.array(z.object({ tracking_code: z.string().nullish() })).nullish() });

/**
 * `POST /shops/{shop}/receipts/{receipt}/tracking`, form-encoded (a JSON body marks the receipt
 * shipped without its tracking): `tracking_code`, `carrier_name` (Etsy's name or `other`) and,
 * for `other`, a note to the buyer with the carrier and the tracking link (Etsy has no field
 * for a link). Etsy e-mails the buyer on every call: a receipt already carrying this tracking
 * code (a push retried after Etsy took it) is not sent again.
 */
export async function pushTracking(client: EtsyClient, shopId: string, shipment: Shipment): Promise<void> {
  const receiptId = shipment.externalOrderId;
  if (!/^\d+$/.test(receiptId)) throw new ConnectorError('invalid_payload', `not an Etsy receipt id: ${receiptId}`);
  const receipt = await client.call({
    method: 'GET',
    path: `/shops/${shopId}/receipts/${receiptId}`,
    operation: 'getShopReceipt',
  });
  parseReceipt(receipt);
  const known = shipments.safeParse(receipt);
  if (known.success && known.data.shipments?.some((s) => s.tracking_code === shipment.trackingNumber)) return;
  const carrier = etsyCarrierName(shipment.carrier);
  const form: Record<string, string> = {
    tracking_code: shipment.trackingNumber,
    carrier_name: carrier,
    send_bcc: 'false',
  };
  if (carrier === 'other')
    form.note_to_buyer = `Shipped with ${shipment.carrier || 'our carrier'}. Tracking number ${shipment.trackingNumber}${shipment.trackingUrl ? `: ${shipment.trackingUrl}` : ''}`;
  await client.call({
    method: 'POST',
    path: `/shops/${shopId}/receipts/${receiptId}/tracking`,
    form,
    operation: 'createReceiptShipment',
  });
}
