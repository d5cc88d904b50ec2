import { createHmac, timingSafeEqual } from 'node:crypto';

/** The bytes a platform signs: the raw body, or parts joined without separator (`app_key + body`). */
export type SignedBytes = Buffer | string | ReadonlyArray<Buffer | string>;

export interface HmacOptions {
  /** How the signature is written: lowercase or uppercase hex, or base64 (base64url accepted too). */
  encoding: 'hex' | 'base64';
  /** SHA-256 unless the platform still signs with SHA-1. */
  algorithm?: 'sha256' | 'sha1';
}

/**
 * The HMAC of `message` keyed with `secret`, as a platform writes it in its header. Strings
 * are UTF-8: pass the raw body as the Buffer it arrived as, never re-serialised JSON.
 *
 * @example
 * // TikTok Shop: Authorization = hex HMAC-SHA256(app_secret, app_key + raw body)
 * const expected = hmacSignature([appKey, req.rawBody], appSecret, { encoding: 'hex' });
 */
export function hmacSignature(message: SignedBytes, secret: string | Buffer, options: HmacOptions): string {
  return digest(message, secret, options.algorithm ?? 'sha256').toString(options.encoding);
}

/**
 * Whether `signature` is the HMAC of `message` keyed with `secret`, compared in constant time
 * on the decoded bytes. False for a missing, empty or malformed signature (never a throw), so a
 * verifier can answer "forged" for all of them.
 *
 * @example
 * // WooCommerce: X-WC-Webhook-Signature = base64 HMAC-SHA256(webhook secret, raw body)
 * if (!verifyHmacSignature(req.headers['x-wc-webhook-signature'], req.rawBody, secret, { encoding: 'base64' })) {
 *   return { ok: false, reason: 'X-WC-Webhook-Signature does not match the body' };
 * }
 */
export function verifyHmacSignature(
  signature: string | undefined,
  message: SignedBytes,
  secret: string | Buffer,
  options: HmacOptions,
): boolean {
  if (!signature) return false;
  const given = decodeSignature(signature.trim(), options.encoding);
  if (!given) return false;
  const expected = digest(message, secret, options.algorithm ?? 'sha256');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `signature` decoded, or null when it is not hex / base64 at all. */
function decodeSignature(signature: string, encoding: 'hex' | 'base64'): Buffer | null {
  if (encoding === 'hex') return /^(?:[0-9a-fA-F]{2})+$/.test(signature) ? Buffer.from(signature, 'hex') : null;
  // Node's base64 decoder reads base64url too and skips what is not base64: the length check
  // against the digest (and the HMAC itself) is what rejects garbage.
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(signature) ? Buffer.from(signature, 'base64') : null;
}

function digest(message: SignedBytes, secret: string | Buffer, algorithm: 'sha256' | 'sha1'): Buffer {
  const hmac = createHmac(algorithm, secret);
  if (typeof message === 'string' || Buffer.isBuffer(message)) hmac.update(message);
  else for (const part of message) hmac.update(part);
  return hmac.digest();
}
