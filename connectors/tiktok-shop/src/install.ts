import { ConnectorError, type ConnectorContext, type StoreConnection } from '@print-api/connector-kit';
import { z } from 'zod';
import { authorizeLink, exchangeCode, withTokens } from './install-tokens.ts';
import { API_VERSION, installInputSchema, type TikTokCredentials, type TikTokSettings } from './config.ts';
import { TikTokClient } from './tiktok-client.ts';

const shopSchema = z.looseObject({
  id: z.union([z.string(), z.number().int().safe().transform(String)]),
  name: z.string().nullish(),
  region: z.string().nullish(),
  cipher: z.string().min(1),
  code: z.string().nullish(),
});

/** The shop an install link named travels to the callback in this cookie (the callback's query does not carry it). */
export const SHOP_COOKIE = 'tiktok_shop_id';

/** The authorisation link, and the cookie naming the shop the install link asked for. */
export function beginInstall(
  ctx: ConnectorContext<TikTokSettings>,
  params: { query: Record<string, string | undefined>; state: string; callbackUrl: string },
): { redirectUrl: string; cookies: string[] } {
  const input = installInputSchema.safeParse(params.query.shopId ? { shopId: params.query.shopId } : {});
  if (!input.success)
    throw new ConnectorError('invalid_payload', `shopId ${input.error.issues[0]?.message ?? 'is invalid'}`);
  const path = new URL(params.callbackUrl).pathname.replace(/\/callback$/, '');
  const secure = params.callbackUrl.startsWith('https:') ? '; Secure' : '';
  const cookies = input.data.shopId
    ? [`${SHOP_COOKIE}=${input.data.shopId}; Path=${path}; Max-Age=1800; HttpOnly; SameSite=Lax${secure}`]
    : [`${SHOP_COOKIE}=; Path=${path}; Max-Age=0; HttpOnly; SameSite=Lax${secure}`];
  return { redirectUrl: authorizeLink(ctx.settings, params.state), cookies };
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=') || undefined;
  }
  return undefined;
}

/**
 * The seller came back from the authorisation link: `state` must be the one this browser's
 * install began with (core's sealed state, kept in its cookie) and `code` is exchanged for the
 * seller's tokens; `GET /authorization/202309/shops` then names the shops the authorisation
 * covers with their `cipher`. The shop the install link named (`shopId`), or the only one.
 */
export async function completeInstall(
  ctx: ConnectorContext<TikTokSettings>,
  params: { query: Record<string, string | undefined>; state: string; headers: Record<string, string | undefined> },
): Promise<StoreConnection<TikTokCredentials>> {
  const { query } = params;
  if (query.error || query.error_description)
    throw new ConnectorError('auth', `The seller did not authorise the app: ${query.error_description ?? query.error}`);
  if (!query.state || query.state !== params.state)
    throw new ConnectorError(
      'auth',
      'The callback is not for the install this browser began (state does not match): open the install link again.',
    );
  if (!query.code) throw new ConnectorError('auth', 'The callback carries no authorisation code.');
  const chosen = readCookie(params.headers.cookie, SHOP_COOKIE);
  const wanted = chosen ? installInputSchema.parse({ shopId: chosen }).shopId : undefined;
  const now = ctx.clock();
  const tokens = await exchangeCode(ctx.http, ctx.settings, query.code);
  const seller = withTokens(
    {
      accessToken: '',
      accessTokenExpiresAt: null,
      refreshToken: '',
      refreshTokenExpiresAt: null,
      openId: '',
      sellerName: '',
    },
    tokens,
    now,
  );
  const client = new TikTokClient({
    http: ctx.http,
    settings: ctx.settings,
    clock: ctx.clock,
    credentials: { ...seller, shopId: '', shopCipher: '', region: '' },
  });
  const data = await client.call<{ shops?: unknown[] }>({
    method: 'GET',
    path: `/authorization/${API_VERSION}/shops`,
    operation: 'getAuthorizedShops',
    shopScoped: false,
  });
  const shops = z.array(shopSchema).safeParse(data.shops ?? []);
  if (!shops.success)
    throw new ConnectorError(
      'invalid_payload',
      `TikTok Shop's authorised shops: ${shops.error.issues[0]?.path.join('.')} ${shops.error.issues[0]?.message}`,
    );
  const list = shops.data;
  const shop = wanted ? list.find((s) => s.id === wanted) : list.length === 1 ? list[0] : undefined;
  if (!shop) {
    const named = list.map((s) => `${s.id} (${s.name ?? '?'}, ${s.region ?? '?'})`).join(', ') || 'none';
    throw new ConnectorError(
      'invalid_payload',
      wanted
        ? `The authorisation does not cover shop ${wanted} (it covers: ${named}).`
        : `The authorisation covers ${list.length} shops (${named}): ask for an install link naming one (shopId).`,
    );
  }
  return {
    externalId: shop.id,
    name: shop.name || seller.sellerName || `TikTok shop ${shop.id}`,
    credentials: { ...seller, shopId: shop.id, shopCipher: shop.cipher, region: shop.region ?? '' },
  };
}
