import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a webhook was refused. */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'invalid_signature'
  | 'invalid_body';

/** Thrown by `verifyWebhook`: answer the request with 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;
  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

/** The body of every event. Deduplicate on `id`: an event can arrive more than once. */
export interface WebhookEvent<TData = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  testMode: boolean;
  data: TData;
}

/** Request headers as Node (`req.headers`), a fetch `Headers` object, or a plain record. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyOptions {
  /** Largest accepted difference between the timestamp and now, either way (spec: 300 s). */
  toleranceSeconds?: number;
  /** The current time (tests). */
  now?: Date;
}

/**
 * Checks a webhook's `X-Service-Signature` against the raw request body and returns the
 * parsed event. The signature is `v1=` and the lowercase hex HMAC-SHA256 of
 * `"<X-Service-Timestamp>.<raw body>"` keyed with the endpoint secret (the whole `whsec_…`
 * string); the comparison is constant-time, and a timestamp more than `toleranceSeconds`
 * in the past or the future is refused (replay protection).
 *
 * Pass the body exactly as received (a Buffer or string): re-serialised JSON does not match.
 *
 * @example
 * ```ts
 * app.post('/print-api/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   let event;
 *   try {
 *     event = verifyWebhook(req.body, req.headers, process.env.PRINT_API_WEBHOOK_SECRET!);
 *   } catch (err) {
 *     return res.status(400).send('bad signature');
 *   }
 *   res.sendStatus(200);
 * });
 * ```
 */
export function verifyWebhook<TData = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  { toleranceSeconds = 300, now = new Date() }: VerifyOptions = {},
): WebhookEvent<TData> {
  const timestampText = header(headers, 'x-service-timestamp');
  const signatureText = header(headers, 'x-service-signature');
  if (!timestampText)
    throw new WebhookVerificationError('missing_header', 'The X-Service-Timestamp header is missing.');
  if (!signatureText)
    throw new WebhookVerificationError('missing_header', 'The X-Service-Signature header is missing.');
  if (!/^\d{1,12}$/.test(timestampText.trim()))
    throw new WebhookVerificationError('invalid_timestamp', 'X-Service-Timestamp is not Unix seconds.');
  const timestamp = Number(timestampText.trim());
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The timestamp is more than ${toleranceSeconds} s away from now.`,
    );
  }

  const body =
    typeof rawBody === 'string'
      ? Buffer.from(rawBody, 'utf8')
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  // Several `v1=` values may be sent (e.g. while a secret is rotated): one match is enough.
  const candidates = signatureText
    .split(/[,\s]+/)
    .map((part) => /^v1=([0-9a-fA-F]{64})$/.exec(part.trim())?.[1])
    .filter((hex): hex is string => hex !== undefined);
  let matched = false;
  for (const hex of candidates) matched = timingSafeEqual(Buffer.from(hex, 'hex'), expected) || matched;
  if (!matched)
    throw new WebhookVerificationError('invalid_signature', 'The signature does not match the body and the secret.');

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not JSON.');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'string') {
    throw new WebhookVerificationError('invalid_body', 'The body is not an event.');
  }
  return event as WebhookEvent<TData>;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}
