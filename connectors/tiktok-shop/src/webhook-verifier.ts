import type { InboundWebhook, WebhookVerdict } from '@print-api/connector-kit';
import { MAX_CLOCK_SKEW_MS, MAX_DELIVERY_AGE_MS } from './config.ts';
import { verifyWebhookSignature } from './signing.ts';
import { readDelivery, TOPICS } from './webhook-content.ts';

/**
 * Checks a delivery on its raw bytes: `Authorization` (no scheme) must be the lowercase hex
 * HMAC-SHA256 of `app_key + raw body` keyed with the app secret; a delivery whose `timestamp`
 * is older than TikTok's retries could be (or from the future) is a replay. The event key is
 * `tts_notification_id` (TikTok repeats it on a retry).
 */
export function verifyTikTokWebhook(
  req: InboundWebhook,
  settings: { appKey: string; appSecret: string },
  now: Date,
): WebhookVerdict {
  if (!req.headers.authorization) return { ok: false, reason: 'missing Authorization' };
  if (!verifyWebhookSignature(req.headers.authorization, settings.appKey, settings.appSecret, req.rawBody))
    return { ok: false, reason: 'Authorization does not match the app key and body' };
  const delivery = readDelivery(req.rawBody);
  if (!delivery)
    return { ok: false, reason: 'not a TikTok Shop notification (type, shop_id and timestamp are required)' };
  const at = delivery.timestamp * 1000;
  if (now.getTime() - at > MAX_DELIVERY_AGE_MS)
    return { ok: false, reason: `stale delivery: sent at ${new Date(at).toISOString()}, past TikTok's retries` };
  if (at - now.getTime() > MAX_CLOCK_SKEW_MS)
    return { ok: false, reason: `the delivery's timestamp ${new Date(at).toISOString()} is in the future` };
  const topic = TOPICS.get(delivery.type) ?? `TYPE_${delivery.type}`;
  return {
    ok: true,
    topic,
    eventId: delivery.tts_notification_id ? `${delivery.tts_notification_id}` : null,
    occurredAt: new Date(at).toISOString(),
  };
}
