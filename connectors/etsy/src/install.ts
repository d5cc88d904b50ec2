import { createHash, createHmac } from 'node:crypto';
import { ConnectorError, parsePayload, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { z } from 'zod';
import {
  CONSENT_URL,
  LISTINGS_SCOPE,
  REFRESH_MARGIN_MS,
  SCOPES,
  type EtsyCredentials,
  type EtsySettings,
} from './config.ts';
import { apiKeyHeader, EtsyClient, etsyErrorText } from './etsy-client.ts';

type Context = ConnectorContext<EtsySettings>;

const tokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
});

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const usersMe = z.object({ user_id: id, shop_id: id.nullish() });
const shop = z.object({ shop_id: id, shop_name: z.string().nullish(), title: z.string().nullish() });

const base64url = (b: Buffer) => b.toString('base64url');

/**
 * The PKCE verifier of one install, derived from core's sealed install `state` with the app's
 * shared secret: nothing to store between the redirect and the callback, and nobody without
 * the secret can compute it. 32 bytes, base64url: 43 characters (RFC 7636 allows 43-128).
 */
export function codeVerifier(settings: EtsySettings, state: string): string {
  return base64url(createHmac('sha256', settings.sharedSecret).update(`etsy-pkce-verifier:${state}`).digest());
}

/** S256: base64url(SHA-256(verifier)). */
export function codeChallenge(verifier: string): string {
  return base64url(createHash('sha256').update(verifier).digest());
}

/** The `state` Etsy echoes: a short MAC of core's install state (which travels in the browser's cookie). */
export function etsyState(settings: EtsySettings, state: string): string {
  return base64url(createHmac('sha256', settings.sharedSecret).update(`etsy-state:${state}`).digest()).slice(0, 32);
}

/** Etsy's consent screen for this install: our scopes, our callback, PKCE S256. */
export function consentUrl(settings: EtsySettings, params: { state: string; callbackUrl: string }): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: settings.keystring,
    redirect_uri: params.callbackUrl,
    scope: SCOPES.join(' '),
    state: etsyState(settings, params.state),
    code_challenge: codeChallenge(codeVerifier(settings, params.state)),
    code_challenge_method: 'S256',
  });
  return `${CONSENT_URL}?${q.toString().replace(/\+/g, '%20')}`;
}

/**
 * Etsy's redirect back: `state` must be this browser's install (else a forged or crossed
 * callback), then the code is exchanged with the PKCE verifier, and the store is the user's shop.
 */
export async function completeInstall(
  ctx: Context,
  params: { query: Record<string, string | undefined>; state: string; callbackUrl: string },
): Promise<StoreConnection<EtsyCredentials>> {
  const { query } = params;
  if (query.error)
    throw new ConnectorError(
      'auth',
      `the merchant did not grant access (${query.error}${query.error_description ? `: ${query.error_description}` : ''})`,
    );
  if (!query.state || query.state !== etsyState(ctx.settings, params.state)) {
    throw new ConnectorError(
      'auth',
      "the callback's state does not match the install started in this browser (a forged or crossed callback): open the install link again",
    );
  }
  if (!query.code) throw new ConnectorError('auth', 'the callback carries no authorization code');
  const tokens = await tokenGrant(
    ctx,
    {
      grant_type: 'authorization_code',
      client_id: ctx.settings.keystring,
      redirect_uri: params.callbackUrl,
      code: query.code,
      code_verifier: codeVerifier(ctx.settings, params.state),
    },
    'exchange the authorization code',
  );
  if (!tokens.refreshToken) throw new ConnectorError('invalid_payload', 'Etsy issued no refresh token');
  return describeShop(ctx, tokens as Tokens & { refreshToken: string }, [...SCOPES]);
}

/**
 * `POST /stores {platform: "ETSY", refreshToken}`: the refresh token is used once (Etsy rotates it) and the shop read.
 */
export async function connectWithRefreshToken(
  ctx: Context,
  refreshToken: string,
): Promise<StoreConnection<EtsyCredentials>> {
  const tokens = await tokenGrant(
    ctx,
    { grant_type: 'refresh_token', client_id: ctx.settings.keystring, refresh_token: refreshToken },
    'use the refresh token',
  );
  const connection = await describeShop(ctx, { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }, null);
  // A pasted refresh token carries whatever scopes its grant had: one page of listings tells whether it can read them.
  const readsListings = await canReadListings(ctx, tokens.accessToken, connection.credentials.shopId);
  return {
    ...connection,
    credentials: { ...connection.credentials, scopes: SCOPES.filter((s) => s !== LISTINGS_SCOPE || readsListings) },
  };
}

/**
 * Whether the token may call `getListingsByShop` (scope `listings_r`): Etsy answers 403 when it
 * may not. Any other failure says nothing about the scope and never fails the connection: the
 * listing sync that follows shows it on the store.
 */
async function canReadListings(ctx: Context, accessToken: string, shopId: string): Promise<boolean> {
  const client = new EtsyClient({ http: ctx.http, settings: ctx.settings, accessToken, logger: ctx.logger });
  try {
    await client.call({
      method: 'GET',
      path: `/shops/${shopId}/listings`,
      query: { state: 'active', limit: 1 },
      operation: 'getListingsByShop',
    });
    return true;
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 403) return false;
    ctx.logger.warn('Etsy: could not tell whether the refresh token may read listings', {
      shopId,
      error: (err as Error).message,
    });
    return true;
  }
}

/**
 * Renews the access token when it expires within REFRESH_MARGIN_MS (Etsy's live an hour).
 * Etsy rotates the refresh token: the one answered replaces ours (core stores it). A refresh
 * token Etsy refuses (revoked by the merchant, expired after ~90 days) is an `auth` failure:
 * core disconnects the store with the reason. Null when nothing is due.
 */
/** Whether the access token is within REFRESH_MARGIN_MS of its expiry (or past it). */
export function refreshDue(credentials: EtsyCredentials, now: Date): boolean {
  return !(Date.parse(credentials.accessTokenExpiresAt) - now.getTime() > REFRESH_MARGIN_MS);
}

export async function refreshIfDue(ctx: Context, credentials: EtsyCredentials): Promise<EtsyCredentials | null> {
  if (!refreshDue(credentials, ctx.clock())) return null;
  const tokens = await tokenGrant(
    ctx,
    { grant_type: 'refresh_token', client_id: ctx.settings.keystring, refresh_token: credentials.refreshToken },
    'refresh the access token',
  );
  ctx.logger.info('Etsy access token refreshed', {
    shopId: credentials.shopId,
    expiresAt: tokens.expiresAt,
    rotated: tokens.refreshToken !== undefined && tokens.refreshToken !== credentials.refreshToken,
  });
  return {
    ...credentials,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt,
    refreshToken: tokens.refreshToken ?? credentials.refreshToken,
  };
}

interface Tokens {
  accessToken: string;
  expiresAt: string;
  refreshToken: string | undefined;
}

async function tokenGrant(ctx: Context, form: Record<string, string>, what: string): Promise<Tokens> {
  const client = new EtsyClient({ http: ctx.http, settings: ctx.settings, accessToken: null, logger: ctx.logger });
  const res = await client.send({
    method: 'POST',
    url: `${ctx.settings.apiUrl}/v3/public/oauth/token`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      'x-api-key': apiKeyHeader(ctx.settings),
    },
    body: new URLSearchParams(form).toString(),
    operation: 'oauthToken',
  });
  if (res.status !== 200) {
    const text = etsyErrorText(res.body);
    // invalid_grant: a code forged, used twice or expired, a verifier that does not match, a refresh token revoked.
    if (res.status === 400 || res.status === 401)
      throw new ConnectorError('auth', `Etsy refused to ${what} (${res.status} ${text})`, {
        status: res.status,
        revoked: true,
      });
    const err = client.error(res);
    // Our app key refused (an operator's setting, not the shop's grant): retried, never a disconnection.
    if (err.kind === 'auth') throw new ConnectorError('upstream_unavailable', err.message, { status: res.status });
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    throw new ConnectorError('invalid_payload', 'Etsy answered the token request with a body that is not JSON');
  }
  const t = parsePayload(tokenResponse, body, 'Etsy token response');
  return {
    accessToken: t.access_token,
    expiresAt: new Date(ctx.clock().getTime() + t.expires_in * 1000).toISOString(),
    refreshToken: t.refresh_token,
  };
}

/** The user's shop (`users/me` names it) and its name. */
async function describeShop(
  ctx: Context,
  tokens: Tokens & { refreshToken: string },
  scopes: string[] | null,
): Promise<StoreConnection<EtsyCredentials>> {
  const client = new EtsyClient({
    http: ctx.http,
    settings: ctx.settings,
    accessToken: tokens.accessToken,
    logger: ctx.logger,
  });
  const me = parsePayload(
    usersMe,
    await client.call({ method: 'GET', path: '/users/me', operation: 'getMe' }),
    'Etsy users/me',
  );
  if (!me.shop_id)
    throw new ConnectorError(
      'invalid_payload',
      `Etsy user ${me.user_id} has no shop: open a shop on Etsy, then connect it`,
    );
  const s = parsePayload(
    shop,
    await client.call({ method: 'GET', path: `/shops/${me.shop_id}`, operation: 'getShop' }),
    'Etsy shop',
  );
  return {
    externalId: me.shop_id,
    name: s.shop_name?.trim() || s.title?.trim() || `Etsy shop ${me.shop_id}`,
    credentials: {
      shopId: me.shop_id,
      userId: me.user_id,
      accessToken: tokens.accessToken,
      accessTokenExpiresAt: tokens.expiresAt,
      refreshToken: tokens.refreshToken,
      ...(scopes ? { scopes } : {}),
    },
  };
}
