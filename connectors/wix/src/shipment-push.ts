import { ConnectorError, type ConnectorLogger, type Shipment } from '@print-api/connector-kit';
import { KNOWN_PROVIDERS } from './config.ts';
import type { WixClient } from './wix-client.ts';

interface WixFulfillment {
  id?: string;
  lineItems?: Array<{ id: string; quantity?: number }>;
  trackingInfo?: { trackingNumber?: string; shippingProvider?: string; trackingLink?: string | null };
}

interface WixOrderLines {
  lineItems?: Array<{ id: string; quantity: number; physicalProperties?: { sku?: string | null } | null }>;
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const PROVIDERS: Record<string, (typeof KNOWN_PROVIDERS)[number]> = {
  fedex: 'fedex',
  ups: 'ups',
  usps: 'usps',
  dhl: 'dhl',
  dhlexpress: 'dhl',
  canadapost: 'canadaPost',
  postescanada: 'canadaPost',
};

/**
 * Our carrier as Wix's `trackingInfo`: one of its providers (`fedex`, `ups`, `usps`, `dhl`,
 * `canadaPost`: Wix makes the tracking link), or a custom provider by name, which must come
 * with its `trackingLink`.
 */
export function trackingInfo(shipment: Pick<Shipment, 'carrier' | 'trackingNumber' | 'trackingUrl'>): {
  trackingNumber: string;
  shippingProvider: string;
  trackingLink?: string;
} {
  const known = PROVIDERS[squash(shipment.carrier)];
  if (known)
    return {
      trackingNumber: shipment.trackingNumber,
      shippingProvider: known,
      ...(shipment.trackingUrl ? { trackingLink: shipment.trackingUrl } : {}),
    };
  if (!shipment.trackingUrl)
    throw new ConnectorError(
      'invalid_payload',
      `Wix needs a tracking link for the carrier ${shipment.carrier || '(none)'}, and the shipment has none`,
    );
  return {
    trackingNumber: shipment.trackingNumber,
    shippingProvider: shipment.carrier.trim() || 'other',
    trackingLink: shipment.trackingUrl,
  };
}

/**
 * Pushes our tracking back: a fulfillment (`POST /ecom/v1/fulfillments/orders/{id}/create-fulfillment`)
 * of the line items we printed, never the site's other lines, each at most what is still
 * unfulfilled, with `trackingInfo`. Safe to repeat: a fulfillment with our tracking number
 * already there (a retry after a lost answer) means done, and lines fulfilled meanwhile are left out.
 */
export async function pushWixShipment(
  client: WixClient,
  shipment: Shipment,
  logger: ConnectorLogger,
): Promise<boolean> {
  const orderId = encodeURIComponent(shipment.externalOrderId);
  const existing = await client.call<{ orderWithFulfillments?: { fulfillments?: WixFulfillment[] } }>(
    'listFulfillments',
    'GET',
    `/ecom/v1/fulfillments/orders/${orderId}`,
  );
  const fulfillments = existing.orderWithFulfillments?.fulfillments ?? [];
  if (fulfillments.some((f) => f.trackingInfo?.trackingNumber === shipment.trackingNumber)) {
    logger.info('Wix order already has a fulfillment with our tracking number', { order: shipment.externalOrderId });
    return false;
  }
  const fulfilled = new Map<string, number>();
  for (const f of fulfillments)
    for (const l of f.lineItems ?? []) fulfilled.set(l.id, (fulfilled.get(l.id) ?? 0) + (l.quantity ?? 0));

  // Our lines by Wix line id; lines known only by SKU are found in the order.
  const wanted = new Map<string, number>();
  const bySku = shipment.lines.filter((l) => !l.externalLineId && l.sku);
  for (const l of shipment.lines)
    if (l.externalLineId) wanted.set(l.externalLineId, (wanted.get(l.externalLineId) ?? 0) + l.quantity);
  let ordered = new Map<string, number>();
  if (bySku.length > 0 || wanted.size > 0) {
    const answer = await client.call<{ order?: WixOrderLines }>('getOrder', 'GET', `/ecom/v1/orders/${orderId}`);
    const items = answer.order?.lineItems ?? [];
    ordered = new Map(items.map((i) => [i.id, i.quantity]));
    for (const l of bySku) {
      const item = items.find(
        (i) => i.physicalProperties?.sku?.trim().toLowerCase() === l.sku!.trim().toLowerCase() && !wanted.has(i.id),
      );
      if (item) wanted.set(item.id, l.quantity);
    }
  }
  const lineItems: Array<{ id: string; quantity: number }> = [];
  for (const [id, quantity] of wanted) {
    const open = (ordered.get(id) ?? quantity) - (fulfilled.get(id) ?? 0);
    const q = Math.min(quantity, open);
    if (q > 0) lineItems.push({ id, quantity: q });
  }
  if (lineItems.length === 0) {
    logger.info('Wix order has no open print lines to fulfil (already fulfilled, or fulfilled elsewhere)', {
      order: shipment.externalOrderId,
    });
    return false;
  }
  await client.call('createFulfillment', 'POST', `/ecom/v1/fulfillments/orders/${orderId}/create-fulfillment`, {
    fulfillment: { lineItems, trackingInfo: trackingInfo(shipment) },
  });
  return true;
}
