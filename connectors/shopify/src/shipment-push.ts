import type { ConnectorLogger, Shipment } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { assertNoUserErrors, type ShopifyClient } from './shopify-client.ts';

export const FULFILLMENT_ORDERS_QUERY = `query OpenFulfillmentOrders($id: ID!) {
  order(id: $id) {
    id
    fulfillmentOrders(first: 20) {
      nodes {
        id status
        supportedActions { action }
        lineItems(first: 100) { nodes { id remainingQuantity lineItem { id sku } } }
      }
    }
  }
}`;

export const FULFILLMENT_CREATE = `mutation FulfilPrintLines($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status trackingInfo { company number url } }
    userErrors { field message }
  }
}`;

interface FulfillmentOrderNode {
  id: string;
  status: string;
  supportedActions: Array<{ action: string }>;
  lineItems: { nodes: Array<{ id: string; remainingQuantity: number; lineItem: { id: string; sku: string | null } }> };
}

const key = (sku: string | null | undefined) => sku?.trim().toLowerCase() ?? '';

/**
 * Pushes our tracking back: reads the order's fulfillment orders, and for every open one that
 * can still be fulfilled (`CREATE_FULFILLMENT`) creates a fulfillment of the print lines it
 * holds (matched by SKU, up to the shipped quantity) with `trackingInfo {company, number, url}`
 * and a shipping notification to the customer. Lines that are not ours stay open for the
 * merchant. Safe to repeat: what is already fulfilled has no remaining quantity.
 */
export async function pushShopifyShipment(
  client: ShopifyClient,
  shipment: Shipment,
  logger: ConnectorLogger,
): Promise<number> {
  const data = await client.graphql<{ order: { fulfillmentOrders: { nodes: FulfillmentOrderNode[] } } | null }>(
    FULFILLMENT_ORDERS_QUERY,
    { id: `gid://shopify/Order/${shipment.externalOrderId}` },
  );
  if (!data.order)
    throw new ConnectorError('invalid_payload', `Shopify has no order ${shipment.externalOrderId} on ${client.shop}`);
  const toShip = new Map<string, number>();
  for (const line of shipment.lines) toShip.set(key(line.sku), (toShip.get(key(line.sku)) ?? 0) + line.quantity);

  let fulfilments = 0;
  for (const fo of data.order.fulfillmentOrders.nodes) {
    if (
      !['OPEN', 'IN_PROGRESS'].includes(fo.status) ||
      !fo.supportedActions.some((a) => a.action === 'CREATE_FULFILLMENT')
    )
      continue;
    const items: Array<{ id: string; quantity: number }> = [];
    for (const item of fo.lineItems.nodes) {
      const wanted = toShip.get(key(item.lineItem.sku)) ?? 0;
      const quantity = Math.min(wanted, item.remainingQuantity);
      if (quantity <= 0) continue;
      items.push({ id: item.id, quantity });
      toShip.set(key(item.lineItem.sku), wanted - quantity);
    }
    if (items.length === 0) continue;
    const result = await client.graphql<{
      fulfillmentCreate: {
        fulfillment: { id: string } | null;
        userErrors: Array<{ field: string[] | null; message: string }>;
      };
    }>(FULFILLMENT_CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: items }],
        trackingInfo: { company: shipment.carrier, number: shipment.trackingNumber, url: shipment.trackingUrl },
        notifyCustomer: true,
      },
    });
    assertNoUserErrors(result.fulfillmentCreate.userErrors, `fulfil order ${shipment.externalOrderId}`);
    fulfilments++;
  }
  if (fulfilments === 0)
    logger.info('Shopify order has no open print lines to fulfil (already fulfilled, or fulfilled elsewhere)', {
      shop: client.shop,
      order: shipment.externalOrderId,
    });
  return fulfilments;
}
