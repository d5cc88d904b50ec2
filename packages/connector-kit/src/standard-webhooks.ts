import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Standard Webhooks' default: a delivery more than 5 minutes old (or ahead) is a replay. */
export const STANDARD_WEBHOOKS_TOLERANCE_MS = 5 * 60 * 1000;

/** The three headers of a Standard Webhooks delivery (Etsy, and any Svix-backed platform). */
export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export type StandardWebhookVerdict = { ok: true; id: string; timestamp: Date } | { ok: false; reason: string };

/**
 * Checks a Standard Webhooks delivery (https://www.standardwebhooks.com) on its raw body:
 * `webhook-signature` holds one or more space-separated `v1,<base64>` signatures, each the
 * HMAC-SHA256 of `"<webhook-id>.<webhook-timestamp>.<raw body>"` keyed with the base64 part of
 * a `whsec_…` secret; one must match (constant-time). `webhook-timestamp` (unix seconds) must
 * be within `toleranceMs` of `now` in either direction. Several secrets verify a delivery
 * during a rotation. The `id` is the delivery's message id: the same event redelivered keeps it.
 *
 * The signature is the reference implementation's (`standardwebhooks`' `Webhook#sign`: the
 * secret's format, the HMAC, the encoding). Its `verify` is not used: it reads the system clock
 * with a fixed 5-minute window and throws one message for every refusal, where callers here
 * pass `now` and a tolerance and log why a delivery was refused.
 *
 * @example
 * const verdict = verifyStandardWebhook({ headers: req.headers, rawBody: req.rawBody, secret:
 * ctx.appSettings.webhookSecret!, now: new Date() });
 * if (!verdict.ok) return { ok: false, reason: verdict.reason };
 * return { ok: true, topic: 'order.paid', eventId: verdict.id, occurredAt: verdict.timestamp.toISOString() };
 */
export function verifyStandardWebhook(input: {
  headers: Record<string, string | undefined>;
  rawBody: Buffer | string;
  secret: string | readonly string[];
  now: Date;
  toleranceMs?: number;
}): StandardWebhookVerdict {
  const id = input.headers['webhook-id'];
  const timestamp = input.headers['webhook-timestamp'];
  const signatures = input.headers['webhook-signature'];
  if (!id || !timestamp || !signatures)
    return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: `unreadable webhook-timestamp: ${timestamp.slice(0, 40)}` };
  const at = Number(timestamp) * 1000;
  const tolerance = input.toleranceMs ?? STANDARD_WEBHOOKS_TOLERANCE_MS;
  if (input.now.getTime() - at > tolerance)
    return {
      ok: false,
      reason: `stale delivery: webhook-timestamp ${timestamp} is more than ${tolerance / 1000} s old`,
    };
  if (at - input.now.getTime() > tolerance)
    return { ok: false, reason: `webhook-timestamp ${timestamp} is in the future` };
  let expected: Buffer[];
  try {
    expected = (typeof input.secret === 'string' ? [input.secret] : input.secret).map((secret) =>
      Buffer.from(new Webhook(secret).sign(id, new Date(at), input.rawBody)),
    );
  } catch (err) {
    return { ok: false, reason: `the webhook secret is not usable: ${(err as Error).message}` };
  }
  // Other versions (e.g. `v1a` asymmetric signatures) are skipped, as the spec says.
  const candidates = signatures.split(' ').flatMap((entry) => (entry.startsWith('v1,') ? [Buffer.from(entry)] : []));
  const matches = candidates.some((candidate) =>
    expected.some((signature) => candidate.length === signature.length && timingSafeEqual(candidate, signature)),
  );
  if (!matches) return { ok: false, reason: 'webhook-signature does not match the body' };
  return { ok: true, id, timestamp: new Date(at) };
}

/**
 * The headers a Standard Webhooks sender puts on a delivery of `body`: for fake platforms and
 * tests (a real platform signs its own deliveries).
 *
 * @example
 * const headers = signStandardWebhook({ id: 'msg_1', timestamp: new Date(), body, secret:
 * 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
 * await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
 */
export function signStandardWebhook(input: {
  id: string;
  timestamp: Date | number;
  body: Buffer | string;
  secret: string;
}): StandardWebhookHeaders {
  const at = typeof input.timestamp === 'number' ? new Date(input.timestamp * 1000) : input.timestamp;
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(input.secret).sign(input.id, at, input.body),
  };
}
