import { ConnectorError, type Shipment } from '@print-api/connector-kit';
import type { AmazonContext, SpApi } from './amazon-client.ts';
import type { AmazonOrder } from './order-mapper.ts';
import { getOrder } from './order-polling.ts';

/**
 * Carrier codes of Seller Central's list (confirmShipment's `carrierCode` must match one
 * exactly), by the lower-cased names our carriers go by. Any other carrier is sent as `Other`
 * with its name in `carrierName`.
 */
const CARRIER_CODES: Record<string, string> = Object.fromEntries(
  [
    'USPS',
    'UPS',
    'UPS Mail Innovations',
    'FedEx',
    'FedEx SmartPost',
    'DHL',
    'DHL eCommerce',
    'DHL Global Mail',
    'OnTrac',
    'LaserShip',
    'Amazon Shipping',
    'Royal Mail',
    'Parcelforce',
    'Evri',
    'Hermes',
    'DPD',
    'GLS',
    'Yodel',
    'Deutsche Post',
    'PostNL',
    'bpost',
    'La Poste',
    'Colissimo',
    'Chronopost',
    'Correos',
    'SEUR',
    'MRW',
    'Poste Italiane',
    'BRT',
    'SDA',
    'TNT',
    'Canada Post',
    'Purolator',
    'Australia Post',
    'Japan Post',
    'Yamato Transport',
    'Sagawa Express',
    'India Post',
    'Blue Dart',
    'Delhivery',
    'China Post',
    'Österreichische Post',
    'Swiss Post',
    'PostNord',
    'Posti',
    'InPost',
    'Correios',
  ].map((code) => [code.toLowerCase(), code]),
);
const ALIASES: Record<string, string> = {
  fedex: 'FedEx',
  'fed ex': 'FedEx',
  royalmail: 'Royal Mail',
  'dhl express': 'DHL',
  'post nl': 'PostNL',
  myhermes: 'Evri',
  'united states postal service': 'USPS',
};

export function carrierFields(carrier: string): { carrierCode: string; carrierName?: string } {
  const key = carrier.trim().toLowerCase();
  const code = CARRIER_CODES[key] ?? ALIASES[key];
  return code ? { carrierCode: code } : { carrierCode: 'Other', carrierName: carrier.trim() || 'Other' };
}

/**
 * What one order item still awaits: Amazon's own count (`fulfillment.quantityUnfulfilled`), else
 * what was ordered minus what the order's packages already hold.
 */
function unshipped(order: AmazonOrder, item: AmazonOrder['orderItems'][number]): number {
  if (typeof item.fulfillment?.quantityUnfulfilled === 'number')
    return Math.max(0, item.fulfillment.quantityUnfulfilled);
  let shipped = 0;
  for (const p of order.packages ?? []) {
    const held = p as {
      orderItems?: Array<{ orderItemId?: string; quantity?: number }>;
      packageItems?: Array<{ orderItemId?: string; quantity?: number }>;
    };
    for (const i of [...(held.orderItems ?? []), ...(held.packageItems ?? [])])
      if (i.orderItemId === item.orderItemId) shipped += i.quantity ?? 0;
  }
  return Math.max(0, item.quantityOrdered - shipped);
}

/**
 * The order items we printed, each with its quantity: a shipment line names its order item
 * (its id) or its SKU (matched as the pipeline matched it, ignoring case), and takes at most
 * what the item still awaits. The seller's other items are never confirmed.
 */
export function printedItems(
  order: AmazonOrder,
  lines: Shipment['lines'],
): Array<{ orderItemId: string; quantity: number }> {
  const left = new Map(order.orderItems.map((i) => [i.orderItemId, unshipped(order, i)]));
  const picked = new Map<string, number>();
  for (const line of lines) {
    let wanted = line.quantity;
    const candidates = line.externalLineId
      ? order.orderItems.filter((i) => i.orderItemId === line.externalLineId)
      : order.orderItems.filter(
          (i) => line.sku && i.product?.sellerSku?.trim().toLowerCase() === line.sku.trim().toLowerCase(),
        );
    for (const item of candidates) {
      const take = Math.min(wanted, left.get(item.orderItemId) ?? 0);
      if (take <= 0) continue;
      left.set(item.orderItemId, left.get(item.orderItemId)! - take);
      picked.set(item.orderItemId, (picked.get(item.orderItemId) ?? 0) + take);
      wanted -= take;
    }
    if (wanted > 0)
      throw new ConnectorError(
        'invalid_payload',
        `Amazon order ${order.orderId} awaits no ${wanted} more of ${line.externalLineId ?? line.sku}: nothing confirmed (shipped already, or not an item of this order)`,
      );
  }
  return [...picked].map(([orderItemId, quantity]) => ({ orderItemId, quantity }));
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Tracking back to Amazon with v0 `confirmShipment`
 * (`POST /orders/v0/orders/{orderId}/shipmentConfirmation`, 204): the order's marketplace (read
 * with getOrder, v2026-01-01), a `packageReferenceId` that is a positive number sent as a JSON
 * string (the order's next package number), the carrier from Amazon's list or `Other` with its
 * name, and only the order items we printed, each with its quantity. A package already carrying
 * this tracking number is not confirmed twice.
 */
export async function confirmShipment(ctx: AmazonContext, api: SpApi, shipment: Shipment): Promise<void> {
  const order = await getOrder(api, shipment.externalOrderId, ['FULFILLMENT', 'PACKAGES']);
  const packages = order.packages ?? [];
  if (packages.some((p) => p.trackingNumber === shipment.trackingNumber)) {
    ctx.logger.info('Amazon order already carries this tracking number: not confirmed again', {
      orderId: order.orderId,
    });
    return;
  }
  const items = printedItems(order, shipment.lines);
  const marketplaceId = order.salesChannel?.marketplaceId;
  if (!marketplaceId)
    throw new ConnectorError(
      'invalid_payload',
      `Amazon order ${order.orderId} names no marketplace: nothing confirmed`,
    );
  // Unique within the order: after every package it holds (whether or not Amazon shows their reference ids).
  const numbers = packages.map((p) => Number(p.packageReferenceId)).filter((n) => Number.isInteger(n) && n > 0);
  const packageReferenceId = String(Math.max(packages.length, ...numbers) + 1);
  await api.call({
    method: 'POST',
    path: `/orders/v0/orders/${encodeURIComponent(order.orderId)}/shipmentConfirmation`,
    body: {
      marketplaceId,
      packageDetail: {
        packageReferenceId,
        ...carrierFields(shipment.carrier),
        trackingNumber: shipment.trackingNumber,
        shipDate: iso(ctx.clock()),
        orderItems: items,
      },
    },
    operation: 'confirmShipment',
  });
}
