import { ConnectorError, type InboundWebhook, type WebhookContent } from '@print-api/connector-kit';
import { APP_REMOVED_EVENT, ORDER_EVENTS, PRODUCT_EVENTS } from './config.ts';
import { isWholeOrder, mapWixOrder } from './order-mapper.ts';
import { peekEnvelope } from './webhook-verifier.ts';

/**
 * The order an order event carries: `actionEvent.body.order` (approved, payment status, canceled),
 * `updatedEvent.currentEntity`, `createdEvent.entity`.
 */
function eventOrder(event: Record<string, unknown>): unknown {
  const action = event.actionEvent as { body?: { order?: unknown } } | undefined;
  const updated = event.updatedEvent as { currentEntity?: unknown } | undefined;
  const created = event.createdEvent as { entity?: unknown } | undefined;
  return action?.body?.order ?? updated?.currentEntity ?? created?.entity ?? null;
}

/**
 * What a verified delivery means. Order events carry the order: when whole (lines, statuses,
 * update time) it is mapped as it is (core keeps the newest state by `updatedDate`: an older
 * event never undoes a newer one), else it is fetched (`GET /ecom/v1/orders/{id}`), the site's
 * current state. App Instance Removed disconnects the store; catalogue events resync listings.
 */
export function webhookContent(req: InboundWebhook, instanceId: string): WebhookContent {
  const envelope = peekEnvelope(req.rawBody);
  if (!envelope)
    throw new ConnectorError('invalid_payload', 'Wix sent a delivery that is not a JWT with the nested event');
  if (envelope.instanceId !== instanceId)
    return { kind: 'ignored', reason: `delivery for instance ${envelope.instanceId} reached the site ${instanceId}` };
  const type = envelope.eventType;
  if (type === APP_REMOVED_EVENT) return { kind: 'uninstalled' };
  if ((PRODUCT_EVENTS as readonly string[]).includes(type)) return { kind: 'listings_changed' };
  if (!(Object.values(ORDER_EVENTS) as string[]).includes(type))
    return { kind: 'ignored', reason: `event ${type} is not one we act on` };
  const order = eventOrder(envelope.event);
  if (isWholeOrder(order)) return { kind: 'orders', orders: [mapWixOrder(order)] };
  const o = (order ?? {}) as { id?: unknown; _id?: unknown };
  const id =
    typeof o.id === 'string'
      ? o.id
      : typeof o._id === 'string'
        ? o._id
        : typeof envelope.event.entityId === 'string'
          ? envelope.event.entityId
          : null;
  if (!id) throw new ConnectorError('invalid_payload', `Wix sent a ${type} event without an order id`);
  return { kind: 'fetch', externalOrderIds: [id] };
}
