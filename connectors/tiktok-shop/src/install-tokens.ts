import { ConnectorError, type HttpClient } from '@print-api/connector-kit';
import { z } from 'zod';
import { AUTHORIZE_URL, type TikTokCredentials, type TikTokSettings } from './config.ts';
import type { Envelope } from './errors.ts';
import { parseTikTokJson } from './json.ts';

/** The seller's authorisation link: our service, and core's sealed `state` (echoed back to the callback). */
export function authorizeLink(settings: Pick<TikTokSettings, 'serviceId'>, state: string): string {
  return `${AUTHORIZE_URL}?${new URLSearchParams({ service_id: settings.serviceId, state })}`;
}

const expiry = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).optional();
const tokenDataSchema = z.object({
  access_token: z.string().min(1),
  access_token_expire_in: expiry,
  refresh_token: z.string().min(1),
  refresh_token_expire_in: expiry,
  open_id: z.string().default(''),
  seller_name: z.string().default(''),
  seller_base_region: z.string().optional(),
  granted_scopes: z.array(z.string()).optional(),
});
export type TokenData = z.infer<typeof tokenDataSchema>;

/**
 * An `*_expire_in` value as an instant. TikTok's own pages call it the expiry time (unix
 * seconds) while some SDKs read it as a lifetime (seconds from now): a value past 1e12 is
 * epoch milliseconds, past 1e9 epoch seconds, anything smaller a duration. Absent or 0: unknown.
 */
export function expiryAt(value: number | undefined, now: Date): string | null {
  if (value === undefined || !Number.isFinite(value) || value <= 0) return null;
  if (value > 1e12) return new Date(value).toISOString();
  if (value > 1e9) return new Date(value * 1000).toISOString();
  return new Date(now.getTime() + value * 1000).toISOString();
}

/**
 * The token endpoints (`GET {authUrl}/api/v2/token/get` and `/refresh`): the app key and
 * secret travel in the query (TikTok's design; the URL is never logged with its query). Success
 * is `code: 0` in the body whatever the HTTP status; any other code is a refusal of the code or
 * refresh token (`auth`), except when TikTok itself fails (5xx without an envelope).
 */
async function tokenCall(
  http: HttpClient,
  settings: TikTokSettings,
  grant: { auth_code: string; grant_type: 'authorized_code' } | { refresh_token: string; grant_type: 'refresh_token' },
  what: string,
): Promise<TokenData> {
  const path = grant.grant_type === 'authorized_code' ? '/api/v2/token/get' : '/api/v2/token/refresh';
  const query = new URLSearchParams({ app_key: settings.appKey, app_secret: settings.appSecret, ...grant });
  const res = await http.request({
    method: 'GET',
    url: `${settings.authUrl}${path}?${query}`,
    operation: grant.grant_type === 'authorized_code' ? 'getAccessToken' : 'refreshAccessToken',
  });
  let env: Envelope<unknown>;
  try {
    env = parseTikTokJson(res.body) as Envelope<unknown>;
  } catch {
    throw ConnectorError.fromStatus(
      'TikTok Shop',
      res.status >= 400 ? res.status : 502,
      `${what}: the token endpoint answered no JSON`,
      res.headers['retry-after'],
    );
  }
  if (typeof env?.code !== 'number')
    throw new ConnectorError('invalid_payload', `${what}: the token endpoint answered no code`);
  if (env.code !== 0) {
    if (res.status === 429 || res.status >= 500)
      throw ConnectorError.fromStatus(
        'TikTok Shop',
        res.status,
        `${what}: code ${env.code}: ${env.message}`,
        res.headers['retry-after'],
      );
    throw new ConnectorError(
      'auth',
      `${what} was refused: TikTok Shop answered code ${env.code}: ${env.message || '(no message)'}`,
      { status: res.status },
    );
  }
  const data = tokenDataSchema.safeParse(env.data);
  if (!data.success)
    throw new ConnectorError(
      'invalid_payload',
      `${what}: TikTok Shop's token answer lacks ${data.error.issues[0]?.path.join('.') ?? 'fields'}`,
    );
  return data.data;
}

/** Exchanges the callback's authorisation code for the seller's tokens. */
export function exchangeCode(http: HttpClient, settings: TikTokSettings, code: string): Promise<TokenData> {
  return tokenCall(http, settings, { auth_code: code, grant_type: 'authorized_code' }, 'The authorisation code');
}

/**
 * Renews the access token with the refresh token; TikTok may answer a new refresh token too (stored).
 * A refresh token past its expiry is an authorisation gone (`revoked`: core disconnects the store, saying why).
 */
export async function renewTokens(
  http: HttpClient,
  settings: TikTokSettings,
  credentials: TikTokCredentials,
  now: Date,
): Promise<TikTokCredentials> {
  if (credentials.refreshTokenExpiresAt && Date.parse(credentials.refreshTokenExpiresAt) <= now.getTime()) {
    throw new ConnectorError(
      'auth',
      `The authorisation of TikTok shop ${credentials.shopId} expired on ${credentials.refreshTokenExpiresAt}: the seller must authorise the app again.`,
      { revoked: true },
    );
  }
  const data = await tokenCall(
    http,
    settings,
    { refresh_token: credentials.refreshToken, grant_type: 'refresh_token' },
    'The refresh token',
  );
  return withTokens(credentials, data, now);
}

/** Credentials with the tokens of a token answer. */
export function withTokens<C extends Omit<TikTokCredentials, 'shopId' | 'shopCipher' | 'region'>>(
  credentials: C,
  data: TokenData,
  now: Date,
): C {
  return {
    ...credentials,
    accessToken: data.access_token,
    accessTokenExpiresAt: expiryAt(data.access_token_expire_in, now),
    refreshToken: data.refresh_token,
    refreshTokenExpiresAt: expiryAt(data.refresh_token_expire_in, now) ?? credentials.refreshTokenExpiresAt,
    openId: data.open_id || credentials.openId,
    sellerName: data.seller_name || credentials.sellerName,
  };
}
