import { createHmac, randomBytes } from 'node:crypto';

/** Version tag of the signature scheme: `v1` is HMAC-SHA256 over `<timestamp>.<raw body>`. */
export const SIGNATURE_VERSION = 'v1';

/** A new endpoint secret: `whsec_` and 32 random bytes in base64url. The whole string is the HMAC key. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Lowercase hex HMAC-SHA256 of `"<timestamp>.<rawBody>"`, keyed with the secret (spec §6). */
export function signPayload(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

/** What a receiver needs to tell us apart and check the message. */
export interface WebhookMessage {
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  body: string;
}

/**
 * The request headers of one attempt. The timestamp is taken at send time, so every attempt
 * is signed afresh and a receiver's 300 s tolerance holds for late retries too. `secrets`: the
 * endpoint's secret, or the current and the previous one during a rotation's overlap.
 */
export function signedHeaders(secrets: string | readonly string[], message: WebhookMessage, userAgent: string, now: Date = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  // One v1= per secret that signs (two while a rotated-out secret still does), current first.
  const signature = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => `${SIGNATURE_VERSION}=${signPayload(secret, timestamp, message.body)}`).join(',');
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'x-service-event': message.eventType,
    'x-service-delivery': message.deliveryId,
    'x-service-attempt': String(message.attempt),
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signature,
  };
}
