import { signWebhook } from '../../../../packages/sdk/src/webhook-signer.ts';

// The SDK holds the one signer (receivers verify with its pair, `verifyWebhook`). Core runs the
// SDK's source: the package's entry is its build, which exists only when the SDK is packed.
export { newWebhookSecret } from '../../../../packages/sdk/src/webhook-signer.ts';

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
 * endpoint's secret, or the current and the previous one during a rotation's overlap (one `v1=`
 * each, current first).
 */
export function signedHeaders(
  secrets: string | readonly string[],
  message: WebhookMessage,
  userAgent: string,
  now: Date = new Date(),
): Record<string, string> {
  return {
    ...signWebhook(message.body, secrets, {
      eventType: message.eventType,
      deliveryId: message.deliveryId,
      attempt: message.attempt,
      now,
    }),
    'user-agent': userAgent,
  };
}
