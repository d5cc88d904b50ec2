import { createHmac } from 'node:crypto';
import {
  ConnectorError,
  parsePayload,
  settingVariable,
  type ConnectorContext,
  type StoreConnection,
} from '@print-api/connector-kit';
import { z } from 'zod';
import {
  APP_SCOPE,
  MARKETPLACES,
  REFRESH_MARGIN_MS,
  RENEWAL_NOTICE_MS,
  SCOPES,
  type EbayCredentials,
  type EbaySettings,
} from './config.ts';
import { EbayClient, ebayError, ebayErrorText } from './ebay-client.ts';

type Context = ConnectorContext<EbaySettings>;

const tokenResponse = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
  refresh_token_expires_in: z.coerce.number().int().positive().optional(),
});
const user = z.object({
  userId: z.string().min(1),
  username: z.string().min(1),
  registrationMarketplaceId: z.string().optional(),
});

function ruName(settings: EbaySettings): string {
  if (!settings.ruName)
    throw new ConnectorError('auth', `the install needs the app's RuName: set ${settingVariable('EBAY', 'ruName')}`);
  return settings.ruName;
}

/** The `state` eBay echoes: a short MAC of core's install state (which travels in the browser's cookie). */
export function ebayState(settings: EbaySettings, state: string): string {
  return createHmac('sha256', settings.clientSecret).update(`ebay-state:${state}`).digest('base64url').slice(0, 32);
}

/** eBay's consent page: our client id, the RuName as redirect_uri, the scopes, our state. */
export function consentUrl(settings: EbaySettings, state: string): string {
  const q = new URLSearchParams({
    client_id: settings.clientId,
    response_type: 'code',
    redirect_uri: ruName(settings),
    scope: SCOPES.join(' '),
    state: ebayState(settings, state),
  });
  return `${settings.authUrl}/oauth2/authorize?${q.toString().replace(/\+/g, '%20')}`;
}

/** eBay's redirect to the RuName's accepted URL: the state checked, the code exchanged, the seller described. */
export async function completeInstall(
  ctx: Context,
  query: Record<string, string | undefined>,
  state: string,
): Promise<StoreConnection<EbayCredentials>> {
  if (query.error)
    throw new ConnectorError(
      'auth',
      `the seller did not grant access (${query.error}${query.error_description ? `: ${query.error_description}` : ''})`,
    );
  if (!query.state || query.state !== ebayState(ctx.settings, state))
    throw new ConnectorError(
      'auth',
      "the callback's state does not match the install started in this browser (a forged or crossed callback): open the install link again",
    );
  if (!query.code) throw new ConnectorError('auth', 'the callback carries no authorization code');
  const tokens = await tokenGrant(
    ctx,
    { grant_type: 'authorization_code', code: query.code, redirect_uri: ruName(ctx.settings) },
    'exchange the authorization code',
  );
  if (!tokens.refreshToken) throw new ConnectorError('invalid_payload', 'eBay issued no refresh token');
  return describeSeller(ctx, { ...tokens, refreshToken: tokens.refreshToken });
}

/** `POST /stores {platform: "EBAY", refreshToken}`: the token used once to read who the seller is. */
export async function connectWithRefreshToken(ctx: Context, token: string): Promise<StoreConnection<EbayCredentials>> {
  const tokens = await tokenGrant(ctx, refreshGrant(token), 'use the refresh token');
  return describeSeller(ctx, { ...tokens, refreshToken: token, refreshTokenExpiresAt: null });
}

const refreshGrant = (token: string) => ({
  grant_type: 'refresh_token',
  refresh_token: token,
  scope: SCOPES.join(' '),
});

export const refreshDue = (credentials: EbayCredentials, now: Date): boolean =>
  Date.parse(credentials.accessTokenExpiresAt) - now.getTime() <= REFRESH_MARGIN_MS;

/** A new 2-hour access token from the refresh token (eBay does not rotate it); null when nothing is due. */
export async function refreshIfDue(ctx: Context, credentials: EbayCredentials, force = false) {
  if (!force && !refreshDue(credentials, ctx.clock())) return null;
  const t = await tokenGrant(ctx, refreshGrant(credentials.refreshToken), 'refresh the access token');
  return { ...credentials, accessToken: t.accessToken, accessTokenExpiresAt: t.accessTokenExpiresAt };
}

/** The store's notice while its 18-month authorisation nears its end (a new install renews it). */
export function renewalNotices(credentials: EbayCredentials, now: Date): string[] {
  const end = Date.parse(credentials.refreshTokenExpiresAt ?? '');
  if (!(end - now.getTime() <= RENEWAL_NOTICE_MS)) return [];
  const day = new Date(end).toISOString().slice(0, 10);
  return [
    end <= now.getTime()
      ? `eBay's authorisation of this store ended on ${day}: reconnect it with a new eBay install link.`
      : `eBay's authorisation of this store ends on ${day} (eBay grants 18 months): renew it before then with a new eBay install link; the store keeps its orders and history.`,
  ];
}

type Tokens = Pick<EbayCredentials, 'accessToken' | 'accessTokenExpiresAt' | 'refreshTokenExpiresAt'> & {
  refreshToken: string | undefined;
};

/** eBay's token endpoint: HTTP Basic with the app's client id and secret, a form body. */
async function tokenGrant(ctx: Context, form: Record<string, string>, what: string): Promise<Tokens> {
  const { clientId, clientSecret, apiUrl } = ctx.settings;
  const res = await ctx.http.request({
    method: 'POST',
    url: `${apiUrl}/identity/v1/oauth2/token`,
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form).toString(),
    operation: 'oauthToken',
  });
  const text = ebayErrorText(res.body);
  if (res.status === 401 || /invalid_client/.test(text))
    throw new ConnectorError(
      'upstream_unavailable',
      `eBay refused our app's credentials (${res.status} ${text}): check ${settingVariable('EBAY', 'clientId')} and ${settingVariable('EBAY', 'clientSecret')}`,
      { status: res.status },
    );
  // invalid_grant: a code forged, used twice or expired, a refresh token revoked or past its 18 months.
  if (res.status === 400)
    throw new ConnectorError('auth', `eBay refused to ${what} (${text})`, { status: 400, revoked: true });
  if (res.status !== 200) throw ebayError(res);
  const t = parsePayload(tokenResponse, safeJson(res.body), 'eBay token response');
  const at = (seconds: number | undefined) =>
    seconds ? new Date(ctx.clock().getTime() + seconds * 1000).toISOString() : null;
  return {
    accessToken: t.access_token,
    accessTokenExpiresAt: at(t.expires_in)!,
    refreshToken: t.refresh_token,
    refreshTokenExpiresAt: at(t.refresh_token_expires_in),
  };
}

function safeJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Who the seller is (Identity getUser): its user id names the store, its marketplace prices its offers. */
async function describeSeller(ctx: Context, tokens: Tokens & { refreshToken: string }) {
  const me = parsePayload(
    user,
    await new EbayClient(ctx, tokens.accessToken).call({
      method: 'GET',
      path: '/commerce/identity/v1/user/',
      origin: 'identity',
      operation: 'getUser',
    }),
    'eBay user',
  );
  const registered = me.registrationMarketplaceId ?? '';
  const marketplaceId = MARKETPLACES[registered] ? registered : 'EBAY_US';
  const credentials = { userId: me.userId, username: me.username, marketplaceId, ...tokens };
  return { externalId: me.userId, name: me.username, credentials } satisfies StoreConnection<EbayCredentials>;
}

const appTokens = new Map<string, { token: string; until: number }>();

/** An application token (client credentials grant), kept until shortly before it expires. */
export async function appToken(ctx: Context): Promise<string> {
  const key = `${ctx.settings.apiUrl} ${ctx.settings.clientId}`;
  const held = appTokens.get(key);
  if (held && held.until > ctx.clock().getTime()) return held.token;
  const t = await tokenGrant(ctx, { grant_type: 'client_credentials', scope: APP_SCOPE }, 'issue an application token');
  appTokens.set(key, { token: t.accessToken, until: Date.parse(t.accessTokenExpiresAt) - REFRESH_MARGIN_MS });
  return t.accessToken;
}
