export { verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookEvent, type WebhookHeaders, type WebhookVerificationErrorCode } from './webhook-verifier.ts';
