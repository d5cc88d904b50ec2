/** A webhook request as a platform would send it: headers and the exact body bytes. */
export interface SignedWebhook {
  headers: Record<string, string>;
  body: string;
}

/**
 * The body a test delivery carries: a string as it is (exact bytes, for signatures over odd
 * JSON), anything else as JSON. Each platform's signer sits next to its connector's verifier
 * (`connectors/<platform>/test/webhook-signer.ts`); the kit keeps only what they share.
 *
 * @example
 * const body = webhookBody({ id: 1 }); // '{"id":1}'
 */
export const webhookBody = (payload: unknown): string =>
  typeof payload === 'string' ? payload : JSON.stringify(payload);
