import { ConnectorError, parsePayload, type ConnectorLogger, type Shipment } from '@print-api/connector-kit';
import { mainDelivery, ORDER_ASSOCIATIONS, orderSchema } from './order-mapper.ts';
import type { ShopwareClient } from './shopware-client.ts';

/** Delivery states a `ship` or `ship_partially` transition leaves from (the `order_delivery.state` machine). */
const SHIPPABLE = new Set(['open', 'shipped_partially']);

/**
 * Tells the shop the order shipped: the tracking number added to the delivery's `trackingCodes` (`PATCH
 * /api/order-delivery/<id>`, the codes already there kept), then the delivery's transition `ship`
 * (`ship_partially` where the order has lines we did not print: the merchant still ships those), which sends the
 * customer Shopware's shipping mail when its flow is on. Each step first looks whether it was done, so a retry after
 * a failure (a 429, a timeout) repeats nothing.
 */
export async function pushShopwareShipment(
  client: ShopwareClient,
  shipment: Shipment,
  logger: ConnectorLogger,
): Promise<void> {
  const rows = await client.search(
    'order',
    { ids: [shipment.externalOrderId], associations: ORDER_ASSOCIATIONS },
    'getOrder',
  );
  if (rows.length === 0)
    throw new ConnectorError('invalid_payload', `Shopware no longer has order ${shipment.externalOrderId}.`, {
      status: 404,
    });
  const order = parsePayload(orderSchema, rows[0], 'Shopware order');
  const delivery = mainDelivery(order);
  if (!delivery)
    throw new ConnectorError('invalid_payload', `Shopware order ${order.orderNumber ?? order.id} has no delivery.`);

  const codes = delivery.trackingCodes ?? [];
  if (!codes.includes(shipment.trackingNumber))
    await client.call({
      method: 'PATCH',
      path: `/order-delivery/${delivery.id}`,
      operation: 'updateDelivery',
      body: { trackingCodes: [...codes, shipment.trackingNumber] },
    });

  const state = delivery.stateMachineState?.technicalName ?? 'open';
  if (!SHIPPABLE.has(state)) {
    logger.info('Shopware delivery not in a state we ship from: tracking added, state left as it is', { state });
    return;
  }
  const transition = coversWholeOrder(order, shipment) ? 'ship' : 'ship_partially';
  if (transition === 'ship_partially' && state === 'shipped_partially') return;
  await client.call({
    method: 'POST',
    path: `/_action/order_delivery/${delivery.id}/state/${transition}`,
    operation: 'shipDelivery',
    body: {},
  });
}

/** True when every line of goods of the order is one we printed (by product number, case-insensitive). */
function coversWholeOrder(order: ReturnType<typeof orderSchema.parse>, shipment: Shipment): boolean {
  const printed = new Set(shipment.lines.flatMap((l) => (l.sku?.trim() ? [l.sku.trim().toLowerCase()] : [])));
  return (order.lineItems ?? [])
    .filter((l) => (l.type === 'product' || l.type === 'custom') && l.quantity > 0)
    .every((l) => {
      const sku = l.type === 'product' ? l.payload?.productNumber : null;
      return typeof sku === 'string' && printed.has(sku.trim().toLowerCase());
    });
}
