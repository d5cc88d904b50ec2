import { createHash } from 'node:crypto';
import { verifyHmacSignature, type InboundWebhook, type WebhookVerdict } from '@print-api/connector-kit';
import { gmtToIso } from './order-mapper.ts';

/** `WC_Webhook::deliver_ping()`: an unsigned, form-encoded `webhook_id=N`, sent once when a webhook is created. */
const PING_BODY = /^webhook_id=\d+$/;

/** True for WooCommerce's creation ping: no signature, no topic, body `webhook_id=N`. */
export function isCreationPing(req: InboundWebhook): boolean {
  return (
    !req.headers['x-wc-webhook-signature'] &&
    !req.headers['x-wc-webhook-topic'] &&
    PING_BODY.test(req.rawBody.toString('utf8').trim())
  );
}

/**
 * Checks a WooCommerce delivery on its raw body. Pure: no I/O.
 *
 * - the creation ping is acknowledged (200) and nothing is stored: WooCommerce marks a webhook
 *   whose ping failed as still pending, and it carries nothing to verify or process;
 * - a store without a secret verifies nothing: WooCommerce signs with an empty key when a
 *   webhook has no secret, which anyone can forge (we always set one);
 * - the event key is the body's hash (with the source store): WooCommerce fires `order.created`
 *   several times and `order.updated` alongside it with the same order, and its
 *   `X-WC-Webhook-Delivery-ID` is a hash of webhook id + current second, so two different
 *   deliveries can share one. Identical bodies are stored once; different ones are all
 *   processed and the pipeline keeps the newest (`date_modified_gmt`).
 */
export function verifyWooWebhook(req: InboundWebhook, storeSecret: string | undefined): WebhookVerdict {
  const signature = req.headers['x-wc-webhook-signature'];
  if (!signature) {
    if (isCreationPing(req)) return { ok: true, topic: 'ping', eventId: null, occurredAt: null, acknowledgeOnly: true };
    return { ok: false, reason: 'missing X-WC-Webhook-Signature' };
  }
  if (!storeSecret) return { ok: false, reason: 'no webhook secret is known for this store' };
  // `X-WC-Webhook-Signature`: base64 HMAC-SHA256 of the exact body bytes, keyed with the webhook's secret.
  if (!verifyHmacSignature(signature, req.rawBody, storeSecret, { encoding: 'base64' }))
    return { ok: false, reason: 'X-WC-Webhook-Signature does not match the body' };
  const topic = req.headers['x-wc-webhook-topic'];
  if (!topic) return { ok: false, reason: 'missing X-WC-Webhook-Topic' };
  const source = req.headers['x-wc-webhook-source'] ?? '';
  const eventId = `wc:${createHash('sha256').update(source).update('\n').update(req.rawBody).digest('hex')}`;
  return { ok: true, topic, eventId, occurredAt: modifiedAt(req.rawBody) };
}

function modifiedAt(rawBody: Buffer): string | null {
  try {
    const body = JSON.parse(rawBody.toString('utf8')) as { date_modified_gmt?: unknown };
    return typeof body.date_modified_gmt === 'string' ? gmtToIso(body.date_modified_gmt) : null;
  } catch {
    return null;
  }
}
