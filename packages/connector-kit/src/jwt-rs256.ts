import { createPublicKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';

/** Leeway for `exp`, `nbf` and `iat` against our clock: a platform's clock and ours differ a little. */
export const JWT_CLOCK_TOLERANCE_MS = 60 * 1000;

export type JwtVerdict =
  | { ok: true; header: Record<string, unknown>; payload: Record<string, unknown> }
  | { ok: false; reason: string };

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Verifies a JWT signed with RS256 (RSA PKCS#1 v1.5 + SHA-256), as Wix signs its webhook
 * bodies, with `jose`: the header must say `alg: RS256` (anything else, `none` and HS256
 * included, is refused before the key is used), the signature must verify against `publicKey`
 * over the exact `header.payload` text, and `exp`, `nbf` and `iat` are checked when present
 * (with `clockToleranceMs` leeway). `issuer` and `audience` are checked when given. No I/O; a
 * promise because jose's verification is asynchronous. The refusals are ours, in words a
 * merchant's log can use, rather than jose's error classes.
 *
 * @example
 * const verdict = await verifyRs256Jwt(req.rawBody.toString('utf8').trim(), ctx.appSettings.publicKey!, { now: new
 * Date() });
 * if (!verdict.ok) return { ok: false, reason: verdict.reason };
 * const envelope = JSON.parse(String(verdict.payload.data)); // Wix: { eventType, instanceId, data, … }
 */
export async function verifyRs256Jwt(
  token: string,
  publicKey: string | KeyObject,
  options: { now: Date; clockToleranceMs?: number; issuer?: string; audience?: string },
): Promise<JwtVerdict> {
  if (!JWT_SHAPE.test(token)) return { ok: false, reason: 'not a JWT (three base64url parts)' };
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return { ok: false, reason: 'the JWT header or payload is not a JSON object' };
  }
  // jose would refuse these too, but only after parsing the key; saying which algorithm came is clearer.
  if (alg !== 'RS256') return { ok: false, reason: `the JWT is signed with ${JSON.stringify(alg ?? null)}, not RS256` };
  let key: KeyObject;
  try {
    key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  } catch (err) {
    return { ok: false, reason: `the public key is not usable: ${(err as Error).message}` };
  }
  if (key.asymmetricKeyType !== 'rsa') return { ok: false, reason: 'the public key is not an RSA key' };
  const leeway = options.clockToleranceMs ?? JWT_CLOCK_TOLERANCE_MS;
  try {
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      algorithms: ['RS256'],
      currentDate: options.now,
      clockTolerance: leeway / 1000,
      ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
      ...(options.audience !== undefined ? { audience: options.audience } : {}),
    });
    // jose checks iat in the future only together with a maximum age, which Wix gives no reason for.
    if (payload.iat !== undefined && payload.iat * 1000 > options.now.getTime() + leeway) {
      return { ok: false, reason: `the JWT was issued in the future (${new Date(payload.iat * 1000).toISOString()})` };
    }
    return { ok: true, header: { ...protectedHeader }, payload: { ...payload } };
  } catch (err) {
    return { ok: false, reason: refusalOf(err, options) };
  }
}

/** jose's error, in the words the verdicts have always used. */
function refusalOf(err: unknown, expected: { issuer?: string; audience?: string }): string {
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the JWT signature does not verify';
  if (err instanceof errors.JWTClaimValidationFailed || err instanceof errors.JWTExpired) {
    // `reason` tells a claim of the wrong type ('invalid') from a failed check.
    const claim = err.claim;
    const value = err.payload[claim];
    if (err.reason === 'invalid') return 'the JWT has an exp, nbf or iat that is not a number';
    if (claim === 'exp') return `the JWT expired at ${new Date(Number(value) * 1000).toISOString()}`;
    if (claim === 'nbf') return `the JWT is not valid before ${new Date(Number(value) * 1000).toISOString()}`;
    if (claim === 'iss') return `the JWT issuer is ${JSON.stringify(value ?? null)}, not ${expected.issuer}`;
    if (claim === 'aud') return `the JWT is not meant for ${expected.audience}`;
    return err.message;
  }
  if (err instanceof errors.JWTInvalid) return 'the JWT header or payload is not a JSON object';
  return err instanceof Error ? err.message : String(err);
}

/**
 * Signs `payload` as an RS256 JWT with an RSA private key (PEM): for fake platforms and tests
 * that send what Wix would. Left on node:crypto because the fakes sign synchronously (jose's
 * SignJWT is asynchronous), and signing is three lines with no decision in them.
 *
 * @example
 * const body = signRs256Jwt({ data: JSON.stringify(envelope), iat: Math.floor(Date.now() / 1000) }, privateKeyPem);
 */
export function signRs256Jwt(
  payload: Record<string, unknown>,
  privateKey: string | KeyObject,
  header: Record<string, unknown> = {},
): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const signed = `${part({ ...header, alg: 'RS256', typ: 'JWT' })}.${part(payload)}`;
  return `${signed}.${cryptoSign('RSA-SHA256', Buffer.from(signed, 'ascii'), privateKey).toString('base64url')}`;
}
