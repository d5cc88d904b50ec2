import type { ConnectorLogger, InboundWebhook, WebhookContent } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { ORDER_TOPICS, PRODUCT_TOPICS } from './config.ts';
import { mapWebhookOrder, parseJsonExact } from './order-mapper.ts';

const ids = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v) => typeof v === 'number' || typeof v === 'string').map(String) : [];

/**
 * What a verified delivery means: order topics carry the full order; product topics mean the
 * listings changed; `app/uninstalled`
 * disconnects the store; the mandatory compliance topics erase (`customers/redact`: the
 * listed orders; `shop/redact`: everything of the shop, 48 hours after uninstall) or are
 * acknowledged (`customers/data_request`: we keep no customer data beyond the orders the
 * merchant already has; the request is logged for the data-protection record).
 */
export function webhookContent(req: InboundWebhook, storeDomain: string, logger: ConnectorLogger): WebhookContent {
  const topic = req.headers['x-shopify-topic'] ?? '';
  const shop = (req.headers['x-shopify-shop-domain'] ?? '').toLowerCase();
  if (shop !== storeDomain)
    return { kind: 'ignored', reason: `delivery for ${shop || '(no shop)'} reached the store ${storeDomain}` };
  let body: Record<string, unknown>;
  try {
    body = parseJsonExact(req.rawBody.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new ConnectorError('invalid_payload', `Shopify sent a ${topic} delivery that is not JSON`);
  }
  if ((ORDER_TOPICS as readonly string[]).includes(topic)) return { kind: 'orders', orders: [mapWebhookOrder(body)] };
  if ((PRODUCT_TOPICS as readonly string[]).includes(topic)) return { kind: 'listings_changed' };
  switch (topic) {
    case 'app/uninstalled':
      return { kind: 'uninstalled' };
    case 'shop/redact':
      return { kind: 'redact', externalOrderIds: 'all' };
    case 'customers/redact':
      return { kind: 'redact', externalOrderIds: ids(body.orders_to_redact) };
    case 'customers/data_request': {
      const request = body.data_request as { id?: unknown } | undefined;
      logger.info('Shopify customer data request received', {
        shop,
        dataRequestId: request?.id === undefined ? null : String(request.id),
        orders: ids(body.orders_requested),
      });
      return {
        kind: 'ignored',
        reason: 'customers/data_request: acknowledged; we hold only the order data the merchant already has',
      };
    }
    default:
      return { kind: 'ignored', reason: `topic ${topic || '(none)'} is not one we act on` };
  }
}
