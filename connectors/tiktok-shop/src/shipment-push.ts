import { ConnectorError, type ConnectorLogger, type Shipment } from '@print-api/connector-kit';
import { API_VERSION } from './config.ts';
import { awaitsShipment, type TikTokOrder } from './order-mapper.ts';
import { getOrders } from './order-polling.ts';
import type { TikTokClient } from './tiktok-client.ts';

export interface ShippingProvider {
  id: string;
  name: string;
}

const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Our carrier among the delivery option's providers: the same name (case, spaces and punctuation aside), else one name
 * containing the other.
 */
export function matchProvider(carrier: string, providers: ShippingProvider[]): ShippingProvider | undefined {
  const want = normal(carrier);
  if (!want) return undefined;
  return (
    providers.find((p) => normal(p.name) === want) ??
    providers.find(
      (p) => normal(p.name).includes(want) || (normal(p.name).length >= 3 && want.includes(normal(p.name))),
    )
  );
}

/**
 * The units of the order we printed: per SKU of the shipment (case-insensitive), as many units
 * still awaiting shipment as we printed, never the store's other lines.
 */
export function unitsWePrinted(order: TikTokOrder, shipment: Shipment): string[] {
  const left = new Map<string, number>();
  for (const line of shipment.lines) {
    const sku = line.sku?.trim().toLowerCase();
    if (sku) left.set(sku, (left.get(sku) ?? 0) + line.quantity);
  }
  const ids: string[] = [];
  for (const unit of order.line_items) {
    const sku = unit.seller_sku?.trim().toLowerCase();
    const remaining = sku ? (left.get(sku) ?? 0) : 0;
    if (!sku || remaining <= 0 || !awaitsShipment(unit)) continue;
    ids.push(unit.id);
    left.set(sku, remaining - 1);
  }
  return ids;
}

/**
 * Tells TikTok the units we printed shipped: `POST /fulfillment/202309/orders/{order_id}/packages`
 * with our tracking number, the line ids of those units and the `shipping_provider_id` of our
 * carrier among the providers of the order's delivery option
 * (`GET /logistics/202309/delivery_options/{id}/shipping_providers`). A retry after a failure
 * finds the units already carrying our tracking number and pushes nothing again.
 */
export async function pushTikTokShipment(
  client: TikTokClient,
  shipment: Shipment,
  logger: ConnectorLogger,
): Promise<void> {
  const [order] = await getOrders(client, [shipment.externalOrderId]);
  if (!order) throw new ConnectorError('invalid_payload', `TikTok Shop has no order ${shipment.externalOrderId}`);
  if (order.status === 'CANCELLED')
    throw new ConnectorError(
      'invalid_payload',
      `TikTok Shop order ${order.id} is cancelled: its tracking is not pushed`,
    );
  if (order.line_items.some((u) => u.tracking_number === shipment.trackingNumber)) {
    logger.info('TikTok Shop order already carries our tracking number', { orderId: order.id });
    return;
  }
  const units = unitsWePrinted(order, shipment);
  if (units.length === 0)
    throw new ConnectorError(
      'invalid_payload',
      `TikTok Shop order ${order.id} has no unit of ours awaiting shipment (status ${order.status})`,
    );
  if (!order.delivery_option_id)
    throw new ConnectorError(
      'invalid_payload',
      `TikTok Shop order ${order.id} has no delivery option to choose a shipping provider from`,
    );
  const data = await client.call<{ shipping_providers?: Array<{ id: string; name: string }> }>({
    method: 'GET',
    path: `/logistics/${API_VERSION}/delivery_options/${order.delivery_option_id}/shipping_providers`,
    operation: 'getShippingProviders',
  });
  const providers = (data.shipping_providers ?? []).map((p) => ({ id: String(p.id), name: String(p.name) }));
  const provider = matchProvider(shipment.carrier, providers);
  if (!provider) {
    throw new ConnectorError(
      'invalid_payload',
      `TikTok Shop offers no shipping provider ${shipment.carrier} for order ${order.id}'s delivery option (it offers: ${providers.map((p) => p.name).join(', ') || 'none'})`,
    );
  }
  await client.call({
    method: 'POST',
    path: `/fulfillment/${API_VERSION}/orders/${order.id}/packages`,
    body: { tracking_number: shipment.trackingNumber, shipping_provider_id: provider.id, order_line_item_ids: units },
    operation: 'markPackageAsShipped',
  });
}
