import { createHmac, randomBytes } from 'node:crypto';

/** What `signWebhook` needs to build a delivery's headers. */
export interface SignOptions {
  /** The event type (X-Service-Event); read from the body when left out. */
  eventType?: string;
  /** X-Service-Delivery: the same on every attempt of one delivery. */
  deliveryId?: string;
  /** X-Service-Attempt (1 first). */
  attempt?: number;
  /** The signing time (tests). */
  now?: Date;
}

/** A new secret in the service's format: `whsec_` and 32 random bytes (base64url). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The headers of a webhook delivery of `rawBody`, signed the way the service signs (`v1=` and
 * the hex HMAC-SHA256 of `"<timestamp>.<raw body>"` keyed with the whole secret). The pair of
 * `verifyWebhook`: `listen` uses it, tests of a receiver can sign their own requests, and the
 * service signs its deliveries with it. Several secrets give one `v1=` each, comma-separated
 * (the service does so while a rotated-out secret still signs).
 *
 * @example
 * ```ts
 * const body = JSON.stringify({ id: 'evt_1', type: 'order.shipped', createdAt, testMode: true, data: { order } });
 * await fetch('http://localhost:4000/hooks', { method: 'POST', body, headers: signWebhook(body, secret) });
 * ```
 */
export function signWebhook(
  rawBody: string,
  secret: string | readonly string[],
  options: SignOptions = {},
): Record<string, string> {
  const timestamp = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const signature = secrets
    .map((key) => `v1=${createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest('hex')}`)
    .join(',');
  let eventType = options.eventType;
  if (eventType === undefined) {
    try {
      eventType = String((JSON.parse(rawBody) as { type?: unknown }).type ?? '');
    } catch {
      eventType = '';
    }
  }
  return {
    'content-type': 'application/json',
    'x-service-event': eventType,
    'x-service-delivery': options.deliveryId ?? `dlv_local_${randomBytes(10).toString('hex')}`,
    'x-service-attempt': String(options.attempt ?? 1),
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signature,
  };
}
