import { verifyHmacSignature, type InboundWebhook, type WebhookVerdict } from '@print-api/connector-kit';

/** A delivery older (or newer) than this is a replay. */
const TOLERANCE_S = 300;

/**
 * The sandbox platform signs each delivery as `X-Sandbox-Signature: hex HMAC-SHA256(store
 * secret, "<X-Sandbox-Timestamp>.<raw body>")`, the secret being the one the connector
 * registered for the store (registerWebhooks). Pure.
 */
export function verifySandboxWebhook(
  req: InboundWebhook,
  secret: string | undefined,
  now: Date = new Date(),
): WebhookVerdict {
  const timestamp = req.headers['x-sandbox-timestamp'];
  const signature = req.headers['x-sandbox-signature'];
  if (!secret) return { ok: false, reason: 'the store has no webhook secret' };
  if (!timestamp || !signature) return { ok: false, reason: 'missing X-Sandbox-Timestamp or X-Sandbox-Signature' };
  if (!verifyHmacSignature(signature, [`${timestamp}.`, req.rawBody], secret, { encoding: 'hex' }))
    return { ok: false, reason: 'X-Sandbox-Signature does not match the body' };
  if (!/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_S)
    return { ok: false, reason: 'X-Sandbox-Timestamp is more than 5 minutes off: a replay' };
  return {
    ok: true,
    topic: req.headers['x-sandbox-topic'] ?? 'unknown',
    eventId: req.headers['x-sandbox-event-id'] ?? null,
    occurredAt: new Date(Number(timestamp) * 1000).toISOString(),
  };
}
