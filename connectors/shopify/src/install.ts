import type { ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { HttpResponseError, ShopifyError, type Session } from '@shopify/shopify-api';
import type { NormalizedResponse } from '@shopify/shopify-api/runtime';
import {
  installInputSchema,
  missingScopes,
  REFRESH_MARGIN_MS,
  shopOrigin,
  type OAuthCredentials,
  type ShopifyCredentials,
  type ShopifySettings,
} from './config.ts';
import { describeShop } from './connect.ts';
import { ShopifyClient } from './shopify-client.ts';
import { appCredentials, atShopOrigin, shopifyLibrary, withContext, type LibraryRequest } from './shopify-library.ts';

type Context = ConnectorContext<ShopifySettings>;

function library(ctx: Context, callbackUrl: string) {
  const { apiKey, secret } = appCredentials(ctx.settings);
  return shopifyLibrary({ apiKey, secret, publicUrl: new URL(callbackUrl).origin });
}

/**
 * Starts the OAuth authorization-code flow with the library's `auth.begin`: it signs a fresh
 * nonce into the `shopify_app_state` cookie (scoped to the callback path) and points the
 * merchant at `https://<shop>/admin/oauth/authorize` with our client id, scopes, redirect URI
 * and that nonce as `state`. Core's own state (which reseller asked) travels in core's cookie.
 */
export async function beginInstall(
  ctx: Context,
  params: { query: Record<string, string | undefined>; callbackUrl: string },
): Promise<{ redirectUrl: string; cookies: string[] }> {
  const input = installInputSchema.safeParse({ shop: params.query.shop });
  if (!input.success)
    throw new ConnectorError('invalid_payload', `shop ${input.error.issues[0]?.message ?? 'is invalid'}`);
  const shopify = library(ctx, params.callbackUrl);
  const rawRequest: LibraryRequest = { method: 'GET', url: new URL(params.callbackUrl).pathname, headers: {} };
  const response = (await withContext(ctx, () =>
    shopify.auth.begin({
      shop: input.data.shop,
      callbackPath: new URL(params.callbackUrl).pathname,
      isOnline: false,
      rawRequest,
      rawResponse: {},
    }),
  )) as NormalizedResponse;
  const headers = response.headers ?? {};
  const location = headers.Location;
  if (response.statusCode !== 302 || typeof location !== 'string')
    throw new ConnectorError('invalid_payload', `Shopify's install could not start (${response.statusCode})`);
  const setCookie = headers['Set-Cookie'] ?? [];
  return {
    redirectUrl: atShopOrigin(ctx.settings, location),
    cookies: Array.isArray(setCookie) ? setCookie : [setCookie],
  };
}

/**
 * Completes the flow with the library's `auth.callback`: the query's HMAC (app secret, 90 s
 * timestamp tolerance), its `state` against the signed cookie, then the code is exchanged for
 * an expiring offline token (`expiring: 1`: 60-minute access token + rotating refresh token).
 */
export async function completeInstall(
  ctx: Context,
  params: { rawQuery: string; headers: Record<string, string | undefined>; callbackUrl: string },
): Promise<StoreConnection<ShopifyCredentials>> {
  const shopify = library(ctx, params.callbackUrl);
  const rawRequest: LibraryRequest = {
    method: 'GET',
    url: `${new URL(params.callbackUrl).pathname}?${params.rawQuery}`,
    headers: { cookie: params.headers.cookie, 'user-agent': params.headers['user-agent'] },
  };
  const session = await libraryCall(
    ctx,
    'complete the install',
    async () => (await shopify.auth.callback({ rawRequest, rawResponse: {}, expiring: true })).session,
  );
  const missing = missingScopes(session.scope ?? '');
  if (missing.length > 0) throw new ConnectorError('auth', `The merchant did not grant ${missing.join(', ')}.`);
  const credentials = fromSession(session, null);
  const shop = await describeShop(
    new ShopifyClient({
      http: ctx.http,
      shop: session.shop,
      origin: shopOrigin(ctx.settings, session.shop),
      accessToken: session.accessToken!,
      logger: ctx.logger,
    }),
  );
  return { externalId: session.shop, name: shop.name, credentials };
}

/**
 * Renews an expiring offline token a few minutes before it expires (the library's
 * `auth.refreshToken`, grant `refresh_token`). Shopify rotates the refresh token on every use:
 * core stores what this returns. Null when nothing is due (or the token never expires).
 */
export async function refreshIfDue(ctx: Context, credentials: ShopifyCredentials): Promise<ShopifyCredentials | null> {
  if (credentials.kind !== 'oauth' || !credentials.expiresAt || !credentials.refreshToken) return null;
  const now = ctx.clock().getTime();
  if (Date.parse(credentials.expiresAt) - now > REFRESH_MARGIN_MS) return null;
  if (credentials.refreshTokenExpiresAt && Date.parse(credentials.refreshTokenExpiresAt) <= now) {
    throw new ConnectorError(
      'auth',
      `The refresh token of ${credentials.shop} has expired: the merchant must reinstall the app.`,
    );
  }
  const { apiKey, secret } = appCredentials(ctx.settings);
  const shopify = shopifyLibrary({ apiKey, secret, publicUrl: ctx.publicUrl });
  const refreshToken = credentials.refreshToken;
  const session = await libraryCall(
    ctx,
    'refresh the access token',
    async () => (await shopify.auth.refreshToken({ shop: credentials.shop, refreshToken })).session,
  );
  ctx.logger.info('Shopify access token refreshed', {
    shop: credentials.shop,
    expiresAt: session.expires?.toISOString(),
  });
  return fromSession(session, credentials);
}

function fromSession(session: Session, previous: OAuthCredentials | null): OAuthCredentials {
  if (!session.accessToken) throw new ConnectorError('invalid_payload', 'Shopify issued no access token');
  return {
    kind: 'oauth',
    shop: session.shop,
    accessToken: session.accessToken,
    scope: session.scope ?? previous?.scope ?? '',
    expiresAt: session.expires?.toISOString() ?? null,
    refreshToken: session.refreshToken ?? previous?.refreshToken ?? null,
    refreshTokenExpiresAt: session.refreshTokenExpires?.toISOString() ?? previous?.refreshTokenExpiresAt ?? null,
  };
}

/** The library's failures as typed errors: a bad HMAC, state or code is `auth`; HTTP answers by status. */
async function libraryCall<T>(ctx: Context, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await withContext(ctx, work);
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    if (err instanceof HttpResponseError) {
      const { code, body, headers } = err.response;
      const retryAfter = headers?.['Retry-After'];
      // The token endpoint answers 400 invalid_grant for a used, revoked or expired code or refresh token.
      if (code === 400)
        throw new ConnectorError('auth', `Could not ${what}: Shopify answered 400 ${JSON.stringify(body ?? {})}`, {
          status: code,
        });
      throw ConnectorError.fromStatus(
        'Shopify',
        code,
        JSON.stringify(body ?? {}),
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      );
    }
    if (err instanceof ShopifyError)
      throw new ConnectorError('auth', `Could not ${what}: ${err.message}`, { cause: err });
    throw new ConnectorError('upstream_unavailable', `Could not ${what}: ${(err as Error).message}`, { cause: err });
  }
}
