import { hmacSignature, verifyHmacSignature, type SignedBytes } from '@print-api/connector-kit';

/** Query parameters that never enter the signature (EcomPHP also drops the token header's name). */
const UNSIGNED = new Set(['sign', 'access_token', 'x-tts-access-token']);

/**
 * The string TikTok Shop signs for an Open API call (202309):
 * `app_secret + path + {key}{value} of the query sorted by key (without sign and access_token)
 * + the exact body sent (unless multipart) + app_secret`.
 */
export function stringToSign(opts: {
  appSecret: string;
  path: string;
  query: Record<string, string>;
  body?: string | undefined;
  multipart?: boolean;
}): string {
  const pairs = Object.keys(opts.query)
    .filter((k) => !UNSIGNED.has(k))
    .sort()
    .map((k) => `${k}${opts.query[k]}`)
    .join('');
  const body = opts.multipart || !opts.body ? '' : opts.body;
  return `${opts.appSecret}${opts.path}${pairs}${body}${opts.appSecret}`;
}

/** The `sign` query parameter: lowercase hex HMAC-SHA256 of `stringToSign`, keyed with the app secret. */
export function signRequest(opts: {
  appSecret: string;
  path: string;
  query: Record<string, string>;
  body?: string | undefined;
  multipart?: boolean;
}): string {
  return hmacSignature(stringToSign(opts), opts.appSecret, { encoding: 'hex' });
}

/** A webhook's `Authorization` header: lowercase hex HMAC-SHA256(app secret, app key + raw body). */
export function webhookSignature(appKey: string, appSecret: string, rawBody: Buffer | string): string {
  return hmacSignature([appKey, rawBody], appSecret, { encoding: 'hex' });
}

/** Whether `authorization` is the app's signature of `rawBody` (constant time, on the raw bytes). */
export function verifyWebhookSignature(
  authorization: string | undefined,
  appKey: string,
  appSecret: string,
  rawBody: Buffer,
): boolean {
  const message: SignedBytes = [appKey, rawBody];
  return verifyHmacSignature(authorization, message, appSecret, { encoding: 'hex' });
}
