import { ConnectorError, parsePayload, type Shipment } from '@print-api/connector-kit';
import { z } from 'zod';
import type { EbayClient } from './ebay-client.ts';

/**
 * Our carriers' names (lower-cased, spaces and punctuation dropped) to eBay's shipping carrier codes (the
 * ShippingCarrierCodeEnum of eBay's Trading API, which `shippingCarrierCode` takes; prose, not in the contract).
 */
const EBAY_CARRIERS: Record<string, string> = {
  usps: 'USPS',
  ups: 'UPS',
  fedex: 'FedEx',
  dhl: 'DHL',
  dhlexpress: 'DHL',
  deutschepost: 'DeutschePost',
  royalmail: 'RoyalMail',
  postnl: 'PostNL',
  dpd: 'DPD',
  gls: 'GLS',
  hermes: 'Hermes',
  colissimo: 'Colissimo',
  laposte: 'LaPoste',
  canadapost: 'CanadaPost',
  australiapost: 'AustraliaPost',
};

export function ebayCarrierCode(carrier: string): string {
  return EBAY_CARRIERS[carrier.toLowerCase().replace(/[^a-z0-9]/g, '')] ?? 'Other';
}

const fulfillments = z.object({
  fulfillments: z.array(z.object({ shipmentTrackingNumber: z.string().nullish() })).nullish(),
});

const orderLines = z.object({
  lineItems: z.array(z.object({ lineItemId: z.string(), sku: z.string().nullish(), quantity: z.number() })),
});

/**
 * `POST /sell/fulfillment/v1/order/{orderId}/shipping_fulfillment` with the printed lines (the order's line items
 * matched by SKU), the carrier code, the tracking number and the shipping date. Exactly once: an order already carrying
 * this tracking number (a push retried after eBay took it) is not sent again (eBay would make a second fulfilment and
 * tell the buyer twice).
 */
export async function pushTracking(client: EbayClient, shipment: Shipment, now: Date): Promise<void> {
  const orderPath = `/sell/fulfillment/v1/order/${encodeURIComponent(shipment.externalOrderId)}`;
  const held = parsePayload(
    fulfillments,
    await client.call({
      method: 'GET',
      path: `${orderPath}/shipping_fulfillment`,
      operation: 'getShippingFulfillments',
    }),
    'eBay shipping fulfillments',
  );
  if (held.fulfillments?.some((f) => f.shipmentTrackingNumber === shipment.trackingNumber)) return;
  const order = parsePayload(
    orderLines,
    await client.call({ method: 'GET', path: orderPath, operation: 'getOrder' }),
    'eBay order',
  );
  const same = (a: string | null | undefined, b: string | null) =>
    !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();
  const lineItems = shipment.lines.flatMap((l) => {
    const item = order.lineItems.find((i) => i.lineItemId === l.externalLineId || same(i.sku, l.sku));
    return item ? [{ lineItemId: item.lineItemId, quantity: Math.min(l.quantity, item.quantity) }] : [];
  });
  if (lineItems.length === 0)
    throw new ConnectorError('invalid_payload', `eBay order ${shipment.externalOrderId} has none of the printed lines`);
  await client.call({
    method: 'POST',
    path: `${orderPath}/shipping_fulfillment`,
    json: {
      lineItems,
      shippedDate: now.toISOString(),
      shippingCarrierCode: ebayCarrierCode(shipment.carrier),
      trackingNumber: shipment.trackingNumber,
    },
    operation: 'createShippingFulfillment',
  });
}
