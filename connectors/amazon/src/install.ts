import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConnectorError, settingVariable, type StoreConnection } from '@print-api/connector-kit';
import { describeSeller, exchangeCode, lwaApp, SpApi, type AmazonContext } from './amazon-client.ts';
import { installInputSchema, type AmazonCredentials } from './config.ts';

/** Our cookie carrying the marketplaces the seller chose, bound to the install's state. */
const MARKETPLACES_COOKIE = 'amazon_marketplaces';
const SELLING_PARTNER_ID = /^A[A-Z0-9]{9,20}$/;

function seal(ctx: AmazonContext, state: string, ids: string): string {
  return createHmac('sha256', lwaApp(ctx).clientSecret).update(`${state}\n${ids}`).digest('base64url');
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/**
 * The seller's consent in Seller Central: `{sellerCentralUrl}/apps/authorize/consent` with our
 * app's `application_id`, core's `state` and our callback as `redirect_uri` (`version=beta`
 * while the app is a draft). The marketplaces chosen travel in a cookie bound to that state.
 */
export function beginInstall(
  ctx: AmazonContext,
  params: { query: Record<string, string | undefined>; state: string; callbackUrl: string },
): { redirectUrl: string; cookies: string[] } {
  const appId = ctx.settings.appId;
  if (!appId)
    throw new ConnectorError(
      'invalid_payload',
      `Amazon installs need the app's id: set ${settingVariable('AMAZON', 'appId')}`,
    );
  const chosen = installInputSchema.safeParse({
    ...(params.query.marketplaceIds ? { marketplaceIds: params.query.marketplaceIds } : {}),
  });
  if (!chosen.success) throw new ConnectorError('invalid_payload', `marketplaceIds ${chosen.error.issues[0]?.message}`);
  const ids = chosen.data.marketplaceIds ?? ctx.settings.marketplaceIds.join(',');
  const consent = new URL(`${ctx.settings.sellerCentralUrl}/apps/authorize/consent`);
  consent.searchParams.set('application_id', appId);
  consent.searchParams.set('state', params.state);
  consent.searchParams.set('redirect_uri', params.callbackUrl);
  if (ctx.settings.draftApp === 'true') consent.searchParams.set('version', 'beta');
  const path = new URL(params.callbackUrl).pathname;
  const secure = params.callbackUrl.startsWith('https:') ? '; Secure' : '';
  const cookie = `${MARKETPLACES_COOKIE}=${encodeURIComponent(`${ids}.${seal(ctx, params.state, ids)}`)}; Path=${path}; Max-Age=1800; HttpOnly; SameSite=Lax${secure}`;
  return { redirectUrl: consent.toString(), cookies: [cookie] };
}

/**
 * Amazon's redirect back: `spapi_oauth_code`, `state` and `selling_partner_id`. The state must
 * be the one this browser's install began with; the code is exchanged at Login with Amazon for
 * the seller's refresh token; the seller's marketplaces are checked. Anything forged, stale or
 * refused connects nothing and says why.
 */
export async function completeInstall(
  ctx: AmazonContext,
  params: {
    query: Record<string, string | undefined>;
    state: string;
    headers: Record<string, string | undefined>;
    callbackUrl: string;
  },
): Promise<StoreConnection<AmazonCredentials>> {
  const { spapi_oauth_code: code, state, selling_partner_id: sellerId } = params.query;
  if (params.query.error)
    throw new ConnectorError(
      'auth',
      `The seller did not authorise the app in Seller Central (${params.query.error}${params.query.error_description ? `: ${params.query.error_description}` : ''}). Nothing was connected.`,
    );
  if (!state || !safeEqual(state, params.state))
    throw new ConnectorError(
      'auth',
      'The state Amazon sent back is not the one this install began with (a forged or crossed redirect). Nothing was connected: open the install link again.',
    );
  if (!code)
    throw new ConnectorError(
      'auth',
      'Amazon sent no spapi_oauth_code: nothing was connected. Open the install link again.',
    );
  if (!sellerId || !SELLING_PARTNER_ID.test(sellerId))
    throw new ConnectorError(
      'auth',
      `Amazon sent no valid selling_partner_id (${sellerId ?? 'none'}): nothing was connected.`,
    );
  const sealed = readCookie(params.headers.cookie, MARKETPLACES_COOKIE);
  const dot = sealed?.lastIndexOf('.') ?? -1;
  let wanted = ctx.settings.marketplaceIds;
  let chosen = false;
  if (sealed && dot > 0) {
    const ids = sealed.slice(0, dot);
    if (safeEqual(sealed.slice(dot + 1), seal(ctx, params.state, ids))) {
      wanted = ids.split(',');
      chosen = true;
    }
  }
  const token = await exchangeCode(ctx, code, params.callbackUrl);
  if (!token.refresh_token)
    throw new ConnectorError(
      'invalid_payload',
      'Login with Amazon issued no refresh token for the authorisation code: nothing was connected.',
    );
  const now = ctx.clock();
  const credentials: AmazonCredentials = {
    sellingPartnerId: sellerId,
    refreshToken: token.refresh_token,
    accessToken: token.access_token,
    accessTokenExpiresAt: new Date(now.getTime() + token.expires_in * 1000).toISOString(),
    marketplaceIds: wanted,
    authorizedAt: now.toISOString(),
  };
  const seller = await describeSeller(new SpApi(ctx, credentials), sellerId, wanted, chosen);
  return {
    externalId: sellerId,
    name: seller.name,
    credentials: { ...credentials, marketplaceIds: seller.marketplaceIds },
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
