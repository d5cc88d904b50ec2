import type { InboundWebhook, WebhookVerdict } from '@print-api/connector-kit';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_CLOCK_SKEW_MS, MAX_DELIVERY_AGE_MS } from './config.ts';

/** The headers `webhooks.validate` requires of a delivery besides its signature, as it names them. */
const REQUIRED_HEADERS = ['X-Shopify-Topic', 'X-Shopify-Shop-Domain', 'X-Shopify-API-Version', 'X-Shopify-Webhook-Id'];

/** Whether `hmac` is the base64 HMAC-SHA256 of the raw body keyed with `secret`, compared in constant time. */
function signatureMatches(hmac: string, secret: string, rawBody: Buffer): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('base64'));
  const given = Buffer.from(hmac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Checks a Shopify delivery on its raw body exactly as `@shopify/shopify-api`'s
 * `webhooks.validate` does (a test holds the two to the same verdicts):
 * `X-Shopify-Hmac-Sha256` must be the base64 HMAC-SHA256 of the body keyed with one of
 * `secrets` (our app's client secret, or a custom app's API secret key), and the topic, shop
 * domain, API version and webhook id headers must all be present. Pure: no I/O.
 *
 * On top of the library:
 * - `X-Shopify-Triggered-At` older than Shopify's 4-hour retry window (or from the future) is
 *   a replay of a captured delivery, refused like a forgery;
 * - the event key is `<topic>:<X-Shopify-Event-Id>` (the webhook id when absent): Shopify
 *   repeats the event id on every retry and on every subscription to the same topic, and
 *   different topics of one checkout (`orders/create`, `orders/paid`) must not swallow each other.
 */
export async function verifyShopifyWebhook(
  req: InboundWebhook,
  secrets: Array<string | undefined>,
  now: Date,
): Promise<WebhookVerdict> {
  const keys = [...new Set(secrets.filter((s): s is string => Boolean(s)))];
  if (keys.length === 0) return { ok: false, reason: 'no Shopify secret is configured to verify this delivery' };
  // The library reads a delivery carrying Shopify Events' signature as an Events delivery (never verified here).
  if (req.headers['shopify-hmac-sha256'])
    return { ok: false, reason: 'Shopify Events deliveries are not subscribed to' };
  // The checks of the library's `webhooks.validate`, in its order (a missing body, a missing
  // signature, a signature no secret made, then the headers it requires), with a synchronous
  // node:crypto HMAC: its WebCrypto key import and sign cost ~0.5 ms of CPU per delivery.
  if (req.rawBody.length === 0) return { ok: false, reason: 'the delivery is not verifiable: missing_body' };
  const hmac = req.headers['x-shopify-hmac-sha256'];
  if (!hmac) return { ok: false, reason: 'missing X-Shopify-Hmac-Sha256' };
  if (!keys.some((secret) => signatureMatches(hmac, secret, req.rawBody)))
    return { ok: false, reason: 'X-Shopify-Hmac-Sha256 does not match the body' };
  const missing = REQUIRED_HEADERS.filter((name) => !req.headers[name.toLowerCase()]);
  if (missing.length > 0) return { ok: false, reason: `missing ${missing.join(', ')}` };

  const topic = req.headers['x-shopify-topic']!;
  const triggeredAt = req.headers['x-shopify-triggered-at'];
  let occurredAt: string | null = null;
  if (triggeredAt) {
    const at = Date.parse(triggeredAt);
    if (Number.isNaN(at)) return { ok: false, reason: `unreadable X-Shopify-Triggered-At: ${triggeredAt}` };
    if (now.getTime() - at > MAX_DELIVERY_AGE_MS)
      return { ok: false, reason: `stale delivery: triggered at ${triggeredAt}, past Shopify's retry window` };
    if (at - now.getTime() > MAX_CLOCK_SKEW_MS)
      return { ok: false, reason: `X-Shopify-Triggered-At ${triggeredAt} is in the future` };
    occurredAt = new Date(at).toISOString();
  }
  const id = req.headers['x-shopify-event-id'] || req.headers['x-shopify-webhook-id']!;
  return { ok: true, topic, eventId: `${topic}:${id}`, occurredAt };
}
