import type { InboundWebhook, WebhookVerdict } from '@print-api/connector-kit';
import { WebhookType } from '@shopify/shopify-api';
import { MAX_CLOCK_SKEW_MS, MAX_DELIVERY_AGE_MS } from './config.ts';
import { shopifyLibrary } from './shopify-library.ts';

/** The library's checks need a host for its configuration; verification never uses it. */
const VERIFY_HOST = 'https://webhooks.invalid';

/**
 * Checks a Shopify delivery on its raw body with `@shopify/shopify-api`'s `webhooks.validate`:
 * `X-Shopify-Hmac-Sha256` must be the base64 HMAC-SHA256 of the body keyed with one of
 * `secrets` (our app's client secret, or a custom app's API secret key), and the topic, shop
 * domain, API version and webhook id headers must all be present. Pure: no I/O (the library
 * computes the HMAC with WebCrypto, which is asynchronous).
 *
 * On top of the library:
 * - `X-Shopify-Triggered-At` older than Shopify's 4-hour retry window (or from the future) is
 *   a replay of a captured delivery, refused like a forgery;
 * - the event key is `<topic>:<X-Shopify-Event-Id>` (the webhook id when absent): Shopify
 *   repeats the event id on every retry and on every subscription to the same topic, and
 *   different topics of one checkout (`orders/create`, `orders/paid`) must not swallow each other.
 */
export async function verifyShopifyWebhook(req: InboundWebhook, secrets: Array<string | undefined>, now: Date): Promise<WebhookVerdict> {
  const keys = [...new Set(secrets.filter((s): s is string => Boolean(s)))];
  if (keys.length === 0) return { ok: false, reason: 'no Shopify secret is configured to verify this delivery' };
  if (req.headers['shopify-hmac-sha256'] && !req.headers['x-shopify-hmac-sha256']) return { ok: false, reason: 'Shopify Events deliveries are not subscribed to' };
  const rawBody = req.rawBody.toString('utf8');
  // Only Shopify's own headers: the library canonicalises every header name on every lookup.
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) if (name.startsWith('x-shopify-')) headers[name] = value;
  let reason = 'X-Shopify-Hmac-Sha256 does not match the body';
  let verified = false;
  for (const secret of keys) {
    const result = await shopifyLibrary({ apiKey: 'webhook-verification', secret, publicUrl: VERIFY_HOST }).webhooks.validate({
      rawBody,
      rawRequest: { method: 'POST', url: '/', headers },
    });
    if (result.valid) {
      verified = result.webhookType === WebhookType.Webhooks;
      break;
    }
    if ('missingHeaders' in result) return { ok: false, reason: `missing ${result.missingHeaders.join(', ')}` };
    if (result.reason !== 'invalid_hmac') {
      reason = result.reason === 'missing_hmac' ? 'missing X-Shopify-Hmac-Sha256' : `the delivery is not verifiable: ${result.reason}`;
      break;
    }
  }
  if (!verified) return { ok: false, reason };

  const topic = req.headers['x-shopify-topic']!;
  const triggeredAt = req.headers['x-shopify-triggered-at'];
  let occurredAt: string | null = null;
  if (triggeredAt) {
    const at = Date.parse(triggeredAt);
    if (Number.isNaN(at)) return { ok: false, reason: `unreadable X-Shopify-Triggered-At: ${triggeredAt}` };
    if (now.getTime() - at > MAX_DELIVERY_AGE_MS) return { ok: false, reason: `stale delivery: triggered at ${triggeredAt}, past Shopify's retry window` };
    if (at - now.getTime() > MAX_CLOCK_SKEW_MS) return { ok: false, reason: `X-Shopify-Triggered-At ${triggeredAt} is in the future` };
    occurredAt = new Date(at).toISOString();
  }
  const id = req.headers['x-shopify-event-id'] || req.headers['x-shopify-webhook-id']!;
  return { ok: true, topic, eventId: `${topic}:${id}`, occurredAt };
}
