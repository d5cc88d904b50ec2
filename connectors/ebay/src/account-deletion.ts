import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import {
  ConnectorError,
  parsePayload,
  settingVariable,
  type ConnectorContext,
  type EndpointAnswer,
  type EndpointCall,
} from '@print-api/connector-kit';
import { z } from 'zod';
import { appToken } from './auth.ts';
import type { EbaySettings } from './config.ts';
import { EbayClient } from './ebay-client.ts';

type Context = ConnectorContext<EbaySettings>;

const text = z.string().min(1);
const header = z.object({ alg: text, kid: text.max(200), signature: text, digest: text });
const notification = z.object({
  metadata: z.object({ topic: text }),
  notification: z.object({ data: z.object({ userId: z.string().nullish() }).nullish() }),
});

/** Keys by `kid` (per API origin), as eBay's SDK caches them: a key never changes under its id. */
const keys = new Map<string, KeyObject>();
const KEYS_KEPT = 100;

/**
 * eBay's endpoint check: hex SHA-256 of the challenge code, the verification token and the endpoint URL, in that order
 * (eBay's event-notification SDK, `generateChallengeResponse`).
 */
export function challengeResponse(challengeCode: string, verificationToken: string, endpoint: string): string {
  return createHash('sha256').update(challengeCode).update(verificationToken).update(endpoint).digest('hex');
}

/**
 * `GET`: the challenge answered. `POST`: a MARKETPLACE_ACCOUNT_DELETION notification, verified as eBay's SDK verifies
 * it (the `X-EBAY-SIGNATURE` header is base64 of `{alg, kid, signature, digest}`; the key is the Notification API's for
 * `kid`; ECDSA with SHA-1 over the JSON of the message), then the user's stores erased. A signature that does not
 * verify is refused (412, as eBay's SDK answers).
 */
export async function accountDeletion(ctx: Context, call: EndpointCall): Promise<EndpointAnswer> {
  if (call.method === 'GET') {
    const code = call.query.challenge_code;
    if (!code) return { ok: false, problem: 'invalid_request', message: 'challenge_code is required.' };
    const token = ctx.settings.verificationToken;
    if (!token)
      throw new ConnectorError(
        'upstream_unavailable',
        `the account deletion endpoint needs its verification token: set ${settingVariable('EBAY', 'verificationToken')}`,
      );
    return { ok: true, body: { challengeResponse: challengeResponse(code, token, call.url) } };
  }
  const signature = call.headers['x-ebay-signature'];
  if (!signature)
    return { ok: false, problem: 'not_verified', message: 'The notification carries no X-EBAY-SIGNATURE.' };
  let parsedHeader: z.infer<typeof header>;
  let message: unknown;
  try {
    parsedHeader = header.parse(JSON.parse(Buffer.from(signature, 'base64').toString('utf8')));
    message = JSON.parse(call.rawBody.toString('utf8'));
  } catch {
    return { ok: false, problem: 'not_verified', message: 'The X-EBAY-SIGNATURE or the body is not what eBay sends.' };
  }
  if (parsedHeader.alg.toLowerCase() !== 'ecdsa' || parsedHeader.digest.toUpperCase() !== 'SHA1')
    return {
      ok: false,
      problem: 'not_verified',
      message: `Unsupported signature ${parsedHeader.alg}/${parsedHeader.digest}.`,
    };
  const key = await keyFor(ctx, parsedHeader.kid);
  const good =
    key !== null &&
    verify('sha1', Buffer.from(JSON.stringify(message)), key, Buffer.from(parsedHeader.signature, 'base64'));
  if (!good)
    return {
      ok: false,
      problem: 'not_verified',
      message: 'The X-EBAY-SIGNATURE does not verify with the key eBay serves for it.',
    };
  const parsed = notification.safeParse(message);
  if (!parsed.success || parsed.data.metadata.topic !== 'MARKETPLACE_ACCOUNT_DELETION') return { ok: true };
  const userId = parsed.data.notification.data?.userId;
  return {
    ok: true,
    ...(userId
      ? {
          accountDeleted: {
            externalIds: [userId],
            reason: 'The seller deleted their eBay account: the data held for it was erased.',
          },
        }
      : {}),
  };
}

/** The public key eBay serves for `kid` (an application token's call), cached; null when eBay knows no such key. */
async function keyFor(ctx: Context, kid: string): Promise<KeyObject | null> {
  const cacheKey = `${ctx.settings.apiUrl} ${kid}`;
  const held = keys.get(cacheKey);
  if (held) return held;
  const client = new EbayClient(ctx, await appToken(ctx));
  const body = await client.call({
    method: 'GET',
    path: `/commerce/notification/v1/public_key/${encodeURIComponent(kid)}`,
    operation: 'getPublicKey',
    allow: [404],
  });
  if (!body) return null;
  const pem = parsePayload(z.object({ key: text }), body, 'eBay public key')
    .key.replace(/-----BEGIN PUBLIC KEY-----\s*/, '-----BEGIN PUBLIC KEY-----\n')
    .replace(/\s*-----END PUBLIC KEY-----/, '\n-----END PUBLIC KEY-----');
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new ConnectorError('invalid_payload', `eBay served a public key for ${kid} that is not a PEM public key`);
  }
  if (keys.size >= KEYS_KEPT) keys.delete(keys.keys().next().value!);
  keys.set(cacheKey, key);
  return key;
}
