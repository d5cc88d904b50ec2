import type { ConnectorLogger, Shipment } from '@print-api/connector-kit';
import type { WooCommerceClient, WooOrderSummary } from './woocommerce-client.ts';

/** Statuses we never move an order out of: the merchant (or customer) decided. */
const FINAL_STATUSES = new Set(['completed', 'cancelled', 'refunded', 'failed', 'trash']);

/** The customer-visible order note (WooCommerce emails it to the customer). */
export function trackingNote(s: Shipment): string {
  return `Your order has shipped with ${s.carrier}. Tracking number: ${s.trackingNumber}. Track your parcel: ${s.trackingUrl}`;
}

/** True when every line of the store order is one we printed (by SKU, case-insensitive). */
export function coversWholeOrder(order: WooOrderSummary, shipment: Shipment): boolean {
  const printed = new Set(
    shipment.lines.map((l) => l.sku?.trim().toLowerCase()).filter((s): s is string => Boolean(s)),
  );
  return (order.line_items ?? [])
    .filter((l) => l.quantity > 0)
    .every((l) => Boolean(l.sku?.trim()) && printed.has(l.sku!.trim().toLowerCase()));
}

/**
 * Tells the store the order shipped: a customer-visible note with the tracking, a Shipment
 * Tracking item when the store has that extension, then status `completed` (which sends
 * WooCommerce's "completed order" email, with the tracking item in it). Each step first looks
 * whether it was done already, so a retry after a failure (a 429, a timeout) repeats nothing.
 * An order with lines we did not print is left in its status: the merchant still ships those.
 */
export async function pushWooShipment(
  client: WooCommerceClient,
  shipment: Shipment,
  opts: { now: Date; logger: ConnectorLogger },
): Promise<void> {
  const orderId = shipment.externalOrderId;
  const notes = await client.listCustomerNotes(orderId);
  if (!notes.some((n) => n.note.includes(shipment.trackingNumber)))
    await client.addCustomerNote(orderId, trackingNote(shipment));

  const items = await client.listTrackingItems(orderId);
  if (items && !items.some((i) => i.tracking_number === shipment.trackingNumber)) {
    await client.addTrackingItem(orderId, {
      carrier: shipment.carrier,
      trackingNumber: shipment.trackingNumber,
      trackingUrl: shipment.trackingUrl,
      dateShipped: opts.now.toISOString().slice(0, 10),
    });
  }

  const order = await client.getOrder(orderId);
  if (FINAL_STATUSES.has(order.status)) return;
  if (!coversWholeOrder(order, shipment)) {
    opts.logger.info('WooCommerce order has lines we do not print: tracking added, status left to the merchant', {
      orderId,
    });
    return;
  }
  await client.setOrderStatus(orderId, 'completed');
}
