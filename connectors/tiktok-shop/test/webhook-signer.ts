import { hmacSignature } from '@print-api/connector-kit';
import { webhookBody, type SignedWebhook } from '@print-api/connector-kit/testing';

/** TikTok Shop: `Authorization` is the hex HMAC-SHA256 of app_key + raw body, keyed with the app secret. */
export function tiktokShopWebhook(opts: { payload: unknown; appKey: string; appSecret: string }): SignedWebhook {
  const body = webhookBody(opts.payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      authorization: hmacSignature([opts.appKey, body], opts.appSecret, { encoding: 'hex' }),
    },
  };
}
