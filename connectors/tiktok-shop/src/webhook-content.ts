import { ConnectorError, type InboundWebhook, type WebhookContent } from '@print-api/connector-kit';
import { z } from 'zod';
import { EVENT_TYPES } from './config.ts';
import { parseTikTokJson } from './json.ts';

const id = z.union([z.string(), z.number().int().safe().transform(String)]);
const unix = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]);

/** A delivery to the app's webhook URL: `{type, tts_notification_id, shop_id, timestamp, data}`. */
const deliverySchema = z.looseObject({
  type: z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]),
  tts_notification_id: id.nullish(),
  shop_id: id,
  timestamp: unix,
  data: z.looseObject({}).nullish(),
});
export type Delivery = z.infer<typeof deliverySchema>;

/** TikTok's notification types by number, the names its docs give them. */
export const TOPICS = new Map<number, string>([
  [1, 'ORDER_STATUS_CHANGE'],
  [2, 'REVERSE_ORDER_STATUS_UPDATE'],
  [3, 'RECIPIENT_ADDRESS_UPDATE'],
  [4, 'PACKAGE_UPDATE'],
  [5, 'PRODUCT_STATUS_CHANGE'],
  [6, 'SELLER_DEAUTHORIZATION'],
  [7, 'UPCOMING_AUTHORIZATION_EXPIRATION'],
  [12, 'RETURN_STATUS_UPDATE'],
]);

/** Deliveries read, by their body: the receiver names the store and verifies the same bytes, read once. */
const read = new WeakMap<Buffer, Delivery | null>();

/** The delivery in a body (read once per body), or null when it is not a TikTok Shop notification. */
export function readDelivery(rawBody: Buffer): Delivery | null {
  if (read.has(rawBody)) return read.get(rawBody)!;
  let delivery: Delivery | null = null;
  try {
    const parsed = deliverySchema.safeParse(parseTikTokJson(rawBody.toString('utf8')));
    delivery = parsed.success ? parsed.data : null;
  } catch {
    delivery = null;
  }
  read.set(rawBody, delivery);
  return delivery;
}

/** The shop a delivery is for (`shop_id`): deliveries come to the app's one URL. */
export function identifyShop(req: InboundWebhook): string | undefined {
  return readDelivery(req.rawBody)?.shop_id;
}

/**
 * What a verified delivery means: an order status change is fetched (the notification carries
 * no order); a product change syncs the listings; the seller's deauthorisation disconnects the
 * store; an authorisation about to expire is shown on the store.
 */
export function webhookContent(req: InboundWebhook): WebhookContent {
  const delivery = readDelivery(req.rawBody);
  if (!delivery)
    throw new ConnectorError('invalid_payload', 'TikTok Shop notification: type, shop_id and timestamp are required');
  const data = delivery.data ?? {};
  switch (delivery.type) {
    case EVENT_TYPES.ORDER_STATUS_CHANGE: {
      const orderId = id.safeParse(data.order_id);
      if (!orderId.success || !/^\d+$/.test(orderId.data))
        throw new ConnectorError('invalid_payload', 'TikTok Shop ORDER_STATUS_CHANGE: data.order_id is missing');
      return { kind: 'fetch', externalOrderIds: [orderId.data] };
    }
    case EVENT_TYPES.PRODUCT_STATUS_CHANGE:
      return { kind: 'listings_changed' };
    case EVENT_TYPES.SELLER_DEAUTHORIZATION:
      return {
        kind: 'uninstalled',
        reason: `The seller deauthorised the app on TikTok Shop (SELLER_DEAUTHORIZATION at ${new Date(delivery.timestamp * 1000).toISOString()}): authorise it again to reconnect.`,
      };
    case EVENT_TYPES.UPCOMING_AUTHORIZATION_EXPIRATION: {
      const expires = unix.safeParse(data.expiration_time ?? data.expire_time ?? data.auth_expire_time);
      const when = expires.success ? ` on ${new Date(expires.data * 1000).toISOString().slice(0, 10)}` : ' soon';
      return {
        kind: 'store_warning',
        message: `The TikTok Shop authorisation of this store expires${when}: the seller must authorise the app again (a new install link), or orders stop.`,
      };
    }
    default:
      return {
        kind: 'ignored',
        reason: `notification type ${delivery.type} (${TOPICS.get(delivery.type) ?? 'unknown'}) is not one we act on`,
      };
  }
}
