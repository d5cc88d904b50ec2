import type { ConnectorLogger, Shipment } from '@print-api/connector-kit';
import { z } from 'zod';
import { searchQuery, type MagentoClient } from './magento-client.ts';
import { orderSchema, soldItems, type MagentoOrder } from './order-mapper.ts';

/** `sales-data-shipment-search-result-interface`, the tracks of each shipment. */
const shipmentsPage = z.object({
  items: z.array(z.object({ tracks: z.array(z.object({ track_number: z.string().nullish() })).nullish() })).nullish(),
});

/** Magento's own carrier codes (its shipping methods); any other carrier is `custom`, with its name as the title. */
const CARRIER_CODES: Record<string, string> = { dhl: 'dhl', fedex: 'fedex', ups: 'ups', usps: 'usps' };

export const carrierCode = (carrier: string): string =>
  CARRIER_CODES[carrier.trim().toLowerCase().replace(/\s+/g, '')] ?? 'custom';

/**
 * What to ship: for each sold item carrying a printed SKU (case-insensitive), as much as is printed and still
 * unshipped. A configurable product's child is shipped through its parent (the item Magento ships: the child is a
 * "dummy" for shipments, as Adobe's shipment tutorial ships the configurable's own `order_item_id`).
 */
export function shipItems(order: MagentoOrder, shipment: Shipment): Array<{ order_item_id: number; qty: number }> {
  const printed = new Map<string, number>();
  for (const l of shipment.lines) {
    const sku = l.sku?.trim().toLowerCase();
    if (sku) printed.set(sku, (printed.get(sku) ?? 0) + l.quantity);
  }
  const byId = new Map(order.items.map((i) => [i.item_id, i]));
  const out = new Map<number, number>();
  for (const item of soldItems(order.items)) {
    const sku = item.sku.toLowerCase();
    const left = printed.get(sku) ?? 0;
    if (left <= 0) continue;
    const parent = item.parent_item_id ? byId.get(item.parent_item_id) : undefined;
    const shipped = parent?.product_type === 'configurable' ? parent : item;
    const open =
      (shipped.qty_ordered ?? 0) -
      (shipped.qty_shipped ?? 0) -
      (shipped.qty_canceled ?? 0) -
      (shipped.qty_refunded ?? 0);
    const qty = Math.min(left, open);
    if (qty <= 0) continue;
    printed.set(sku, left - qty);
    out.set(shipped.item_id, (out.get(shipped.item_id) ?? 0) + qty);
  }
  return [...out].map(([order_item_id, qty]) => ({ order_item_id, qty }));
}

/**
 * Ships the printed items with our tracking: `POST /V1/order/{orderId}/ship` (one shipment, the customer notified by
 * Magento's shipment e-mail). Exactly once: the order's shipments are read first, and one carrying our tracking
 * number means an earlier attempt went through (its answer lost), so nothing is sent again. Items the merchant
 * already shipped are not shipped twice; an order with nothing of ours left to ship is left as it is.
 */
export async function pushMagentoShipment(client: MagentoClient, shipment: Shipment, logger: ConnectorLogger) {
  const orderId = shipment.externalOrderId;
  const existing = await client.json(shipmentsPage, {
    method: 'GET',
    path: '/shipments',
    query: searchQuery({
      filters: [{ field: 'order_id', value: orderId, conditionType: 'eq' }],
      pageSize: 100,
      currentPage: 1,
    }),
    operation: 'searchShipments',
  });
  const tracked = (existing?.items ?? []).some((s) =>
    (s.tracks ?? []).some((t) => t.track_number === shipment.trackingNumber),
  );
  if (tracked) return;
  const order = (await client.json(orderSchema, {
    method: 'GET',
    path: `/orders/${encodeURIComponent(orderId)}`,
    operation: 'getOrder',
  }))!;
  const items = shipItems(order, shipment);
  if (items.length === 0) {
    logger.info('Magento order has none of our items left to ship: no shipment made', { orderId });
    return;
  }
  await client.json(z.unknown(), {
    method: 'POST',
    path: `/order/${encodeURIComponent(orderId)}/ship`,
    body: {
      items,
      notify: true,
      // Magento's tracks have no link: the tracking page goes in the shipment's comment, in the e-mail and the account.
      appendComment: true,
      comment: { comment: `Track your parcel: ${shipment.trackingUrl}`, is_visible_on_front: 1 },
      tracks: [
        { track_number: shipment.trackingNumber, title: shipment.carrier, carrier_code: carrierCode(shipment.carrier) },
      ],
    },
    operation: 'shipOrder',
  });
}
