import { createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';

/** Leeway for `exp`, `nbf` and `iat` against our clock: a platform's clock and ours differ a little. */
export const JWT_CLOCK_TOLERANCE_MS = 60 * 1000;

export type JwtVerdict = { ok: true; header: Record<string, unknown>; payload: Record<string, unknown> } | { ok: false; reason: string };

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Verifies a JWT signed with RS256 (RSA PKCS#1 v1.5 + SHA-256), as Wix signs its webhook
 * bodies: the header must say `alg: RS256` (anything else, `none` and HS256 included, is
 * refused before the key is used), the signature must verify against `publicKey` over the exact
 * `header.payload` text, and `exp`, `nbf` and `iat` are checked when present (with
 * `clockToleranceMs` leeway). `issuer` and `audience` are checked when given. Pure: no I/O.
 *
 * @example
 * const verdict = verifyRs256Jwt(req.rawBody.toString('utf8').trim(), ctx.appSettings.publicKey!, { now: new Date() });
 * if (!verdict.ok) return { ok: false, reason: verdict.reason };
 * const envelope = JSON.parse(String(verdict.payload.data)); // Wix: { eventType, instanceId, data, … }
 */
export function verifyRs256Jwt(
  token: string,
  publicKey: string | KeyObject,
  options: { now: Date; clockToleranceMs?: number; issuer?: string; audience?: string },
): JwtVerdict {
  if (!JWT_SHAPE.test(token)) return { ok: false, reason: 'not a JWT (three base64url parts)' };
  const [headerPart, payloadPart, signaturePart] = token.split('.') as [string, string, string];
  const header = decodeJson(headerPart);
  const payload = decodeJson(payloadPart);
  if (!header || !payload) return { ok: false, reason: 'the JWT header or payload is not a JSON object' };
  if (header.alg !== 'RS256') return { ok: false, reason: `the JWT is signed with ${JSON.stringify(header.alg ?? null)}, not RS256` };
  let key: KeyObject;
  try {
    key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  } catch (err) {
    return { ok: false, reason: `the public key is not usable: ${(err as Error).message}` };
  }
  if (key.asymmetricKeyType !== 'rsa') return { ok: false, reason: 'the public key is not an RSA key' };
  const signed = Buffer.from(`${headerPart}.${payloadPart}`, 'ascii');
  if (!cryptoVerify('RSA-SHA256', signed, key, Buffer.from(signaturePart, 'base64url'))) return { ok: false, reason: 'the JWT signature does not verify' };

  const now = options.now.getTime();
  const leeway = options.clockToleranceMs ?? JWT_CLOCK_TOLERANCE_MS;
  const time = (claim: string): number | null | 'bad' => {
    const v = payload[claim];
    if (v === undefined) return null;
    return typeof v === 'number' && Number.isFinite(v) ? v * 1000 : 'bad';
  };
  const exp = time('exp');
  const nbf = time('nbf');
  const iat = time('iat');
  if (exp === 'bad' || nbf === 'bad' || iat === 'bad') return { ok: false, reason: 'the JWT has an exp, nbf or iat that is not a number' };
  if (exp !== null && now > exp + leeway) return { ok: false, reason: `the JWT expired at ${new Date(exp).toISOString()}` };
  if (nbf !== null && now < nbf - leeway) return { ok: false, reason: `the JWT is not valid before ${new Date(nbf).toISOString()}` };
  if (iat !== null && now < iat - leeway) return { ok: false, reason: `the JWT was issued in the future (${new Date(iat).toISOString()})` };
  if (options.issuer !== undefined && payload.iss !== options.issuer) return { ok: false, reason: `the JWT issuer is ${JSON.stringify(payload.iss ?? null)}, not ${options.issuer}` };
  if (options.audience !== undefined) {
    const aud = payload.aud;
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(options.audience)) return { ok: false, reason: `the JWT is not meant for ${options.audience}` };
  }
  return { ok: true, header, payload };
}

/**
 * Signs `payload` as an RS256 JWT with an RSA private key (PEM): for fake platforms and tests
 * that send what Wix would.
 *
 * @example
 * const body = signRs256Jwt({ data: JSON.stringify(envelope), iat: Math.floor(Date.now() / 1000) }, privateKeyPem);
 */
export function signRs256Jwt(payload: Record<string, unknown>, privateKey: string | KeyObject, header: Record<string, unknown> = {}): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const signed = `${part({ ...header, alg: 'RS256', typ: 'JWT' })}.${part(payload)}`;
  return `${signed}.${cryptoSign('RSA-SHA256', Buffer.from(signed, 'ascii'), privateKey).toString('base64url')}`;
}

function decodeJson(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
