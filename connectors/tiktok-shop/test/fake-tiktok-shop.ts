import { randomBytes } from 'node:crypto';
import {
  answerWith,
  type ConformanceService,
  type FakeHttpsServer,
  type FakeReply,
  ContractLog,
  OpenApiContract,
} from '@print-api/connector-kit/testing';
import tiktokContract from './fixtures/contract/tiktok-shop-202309.third-party.json' with { type: 'json' };
import { signRequest, webhookSignature } from '../src/signing.ts';
import accessTokenFixture from './fixtures/access-token.json' with { type: 'json' };
import errors from './fixtures/errors.json' with { type: 'json' };
import orderFixture from './fixtures/order.json' with { type: 'json' };
import productsFixture from './fixtures/products.json' with { type: 'json' };
import { ok, rid, shopOperation, tiktokId } from './fake-tiktok-shop-operations.ts';

/** TikTok Shop 202309 as third-party SDKs transcribe it (no official public document). */
const CONTRACT = new OpenApiContract(tiktokContract, 'TikTok Shop 202309 (third-party)');

export const APP = {
  appKey: '6b0c3fd2a5e7q',
  appSecret: 'c4f1e0b9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3',
  serviceId: '7291456830012345678',
};
/** Where the auth host is served on the fake's server (the API is served at its root, paths exact as TikTok's). */
export const AUTH_PREFIX = '/auth-host';
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
const TIMESTAMP_TOLERANCE_S = 300;

export type LineJson = Omit<
  (typeof orderFixture)['line_items'][number],
  'seller_sku' | 'tracking_number' | 'package_id' | 'shipping_provider_id'
> & {
  seller_sku: string | null;
  tracking_number: string | null;
  package_id: string | null;
  shipping_provider_id: string | null;
};
export type OrderJson = Omit<typeof orderFixture, 'line_items'> & { line_items: LineJson[] };
type Reply = FakeReply;

export interface FakeShop {
  id: string;
  name: string;
  region: string;
  cipher: string;
  orders: Map<string, OrderJson>;
  products: Array<(typeof productsFixture)['data']['products'][number]>;
  webhooks: Map<string, string>;
  packages: Array<{
    orderId: string;
    tracking_number: string;
    shipping_provider_id: string;
    order_line_item_ids: string[];
    package_id: string;
  }>;
  pushAttempts: number[];
  rateLimits: number[];
}

interface Token {
  shopIds: string[];
  expiresAtMs: number;
}

export interface SeenCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: string;
  at: number;
  code: number;
}

/**
 * TikTok Shop's Open API 202309 and auth host on a real local HTTPS server, checking what
 * TikTok checks: every API call's `app_key`, `timestamp` (5 minutes), `sign` (recomputed over
 * the path, the sorted query and the exact body bytes received), `x-tts-access-token` (known,
 * not expired, covering the shop) and `shop_cipher`; the token endpoints' app key and secret,
 * single-use authorisation codes and refresh tokens. Errors are HTTP 200 envelopes with a
 * non-zero code, as TikTok answers them.
 */
export class FakeTikTokShopPlatform {
  readonly shops = new Map<string, FakeShop>();
  readonly calls: SeenCall[] = [];
  readonly contractLog = new ContractLog();
  readonly tokenRequests: Array<{ grant_type: string; at: number }> = [];
  readonly #tokens = new Map<string, Token>();
  readonly #refreshTokens = new Map<string, { shopIds: string[]; expiresAtMs: number }>();
  readonly #codes = new Map<string, { shopIds: string[]; expiresAtMs: number }>();
  /** `timestamp`: the `*_expire_in` fields are unix times; `duration`: seconds from now. */
  expiryStyle: 'timestamp' | 'duration' = 'timestamp';
  accessTokenLifetimeS = 7 * 24 * 3600;
  readonly #faults: Array<{ path: RegExp; reply: Reply; remaining: number }> = [];
  url = '';

  serve(server: FakeHttpsServer): Record<string, string> {
    this.url = server.url;
    server.fallback(answerWith((req) => this.answer(req)));
    return {
      CONNECTOR_TIKTOK_SHOP_APP_KEY: APP.appKey,
      CONNECTOR_TIKTOK_SHOP_APP_SECRET: APP.appSecret,
      CONNECTOR_TIKTOK_SHOP_SERVICE_ID: APP.serviceId,
      CONNECTOR_TIKTOK_SHOP_API_URL: server.url,
      CONNECTOR_TIKTOK_SHOP_AUTH_URL: `${server.url}${AUTH_PREFIX}`,
    };
  }

  addShop(over: Partial<Pick<FakeShop, 'id' | 'name' | 'region'>> = {}): FakeShop {
    const id = over.id ?? tiktokId();
    const shop: FakeShop = {
      id,
      name: over.name ?? `Tulip Prints ${this.shops.size + 1}`,
      region: over.region ?? 'DE',
      cipher: `ROW_${randomBytes(12).toString('base64url')}`,
      orders: new Map(),
      products: structuredClone(productsFixture.data.products),
      webhooks: new Map(),
      packages: [],
      pushAttempts: [],
      rateLimits: [],
    };
    this.shops.set(id, shop);
    return shop;
  }

  /** The seller authorises our app on the consent page: a single-use code for these shops (10 minutes). */
  authorise(shopIds: string[]): string {
    const code = `ROW_${randomBytes(18).toString('base64url')}`;
    this.#codes.set(code, { shopIds, expiresAtMs: Date.now() + 600_000 });
    return code;
  }

  /**
   * An access token for these shops, as a completed authorisation leaves one (for a store seeded without the install).
   */
  issueToken(shopIds: string[]): { accessToken: string; refreshToken: string } {
    const accessToken = `ROW_${randomBytes(24).toString('base64url')}`;
    const refreshToken = `ROW_${randomBytes(24).toString('base64url')}`;
    this.#tokens.set(accessToken, { shopIds, expiresAtMs: Date.now() + this.accessTokenLifetimeS * 1000 });
    this.#refreshTokens.set(refreshToken, { shopIds, expiresAtMs: Date.now() + 365 * 24 * 3600_000 });
    return { accessToken, refreshToken };
  }

  /** Every access token issued so far expires (as seven days passing would). */
  expireTokens(): void {
    for (const token of this.#tokens.values()) token.expiresAtMs = 0;
  }

  /** The seller revokes our authorisation: every token stops working. */
  revoke(shopId: string): void {
    for (const [k, t] of this.#tokens) if (t.shopIds.includes(shopId)) this.#tokens.delete(k);
    for (const [k, t] of this.#refreshTokens) if (t.shopIds.includes(shopId)) this.#refreshTokens.delete(k);
  }

  /** The next `times` calls to a path matching `path` get `reply` instead. */
  faultNext(path: RegExp, reply: Reply, times = 1): void {
    this.#faults.push({ path, reply, remaining: times });
  }

  seen(path: RegExp): SeenCall[] {
    return this.calls.filter((c) => path.test(c.path));
  }

  save(shop: FakeShop, order: OrderJson): void {
    shop.orders.set(order.id, structuredClone(order));
  }

  /** Delivers a notification to the address the shop registered (or `to`), signed like TikTok (or with `secret`). */
  async deliver(
    service: ConformanceService,
    shop: FakeShop,
    payload: Record<string, unknown>,
    opts: { secret?: string; to?: string } = {},
  ): Promise<number> {
    const address = opts.to ?? shop.webhooks.get('ORDER_STATUS_CHANGE');
    if (!address) throw new Error(`shop ${shop.id} registered no ORDER_STATUS_CHANGE webhook`);
    const body = JSON.stringify(payload);
    const res = await fetch(service.toService(address), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: webhookSignature(APP.appKey, opts.secret ?? APP.appSecret, body),
        'user-agent': 'TikTok-Shop-Webhook',
      },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** The whole install as a seller's browser goes through it: install link, consent, callback. */
  async install(
    service: ConformanceService,
    key: string,
    shops: FakeShop[],
    opts: { shopId?: string } = {},
  ): Promise<{ status: number; location: string | null; body: any }> {
    const { state, cookies } = await this.openInstallLink(service, key, opts);
    const code = this.authorise(shops.map((s) => s.id));
    return this.callback(service, { code, state }, cookies);
  }

  /** Install link and its redirect to TikTok's authorisation page: the `state` it carries and the browser's cookies. */
  async openInstallLink(
    service: ConformanceService,
    key: string,
    opts: { shopId?: string } = {},
  ): Promise<{ state: string; cookies: string[] }> {
    const link = await service.api(key, 'POST', '/stores/install-links', {
      platform: 'TIKTOK_SHOP',
      returnUrl: 'https://app.reseller.example/stores',
      ...(opts.shopId ? { shopId: opts.shopId } : {}),
    });
    if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
    const begin = await fetch(service.toService(link.body.data.installUrl), {
      redirect: 'manual',
      headers: { 'user-agent': BROWSER },
    });
    await begin.arrayBuffer();
    const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const consent = new URL(begin.headers.get('location')!);
    if (consent.origin + consent.pathname !== 'https://services.tiktokshop.com/open/authorize')
      throw new Error(`not TikTok's authorisation page: ${consent}`);
    if (consent.searchParams.get('service_id') !== APP.serviceId)
      throw new Error(`authorisation link for another service: ${consent}`);
    return { state: consent.searchParams.get('state')!, cookies };
  }

  /** TikTok sends the seller's browser back to the app's redirect URL. */
  async callback(
    service: ConformanceService,
    params: Record<string, string>,
    cookies: string[],
  ): Promise<{ status: number; location: string | null; body: any }> {
    const query = new URLSearchParams({ app_key: APP.appKey, locale: 'en', shop_region: 'US', ...params });
    const done = await fetch(service.toService(`${service.publicUrl}/connectors/tiktok-shop/callback?${query}`), {
      redirect: 'manual',
      headers: { cookie: cookies.join('; '), 'user-agent': BROWSER },
    });
    const text = await done.text();
    return { status: done.status, location: done.headers.get('location'), body: text ? JSON.parse(text) : null };
  }

  async answer(req: Request): Promise<Reply> {
    const url = new URL(req.url);
    const body = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text();
    const query = Object.fromEntries(url.searchParams);
    const reply = url.pathname.startsWith(AUTH_PREFIX)
      ? this.#auth(url.pathname.slice(AUTH_PREFIX.length), query)
      : this.#api(req, url.pathname, query, body);
    this.calls.push({
      method: req.method,
      path: url.pathname,
      query,
      body,
      at: Date.now(),
      code: typeof reply[1] === 'object' && reply[1] ? (reply[1] as { code: number }).code : -1,
    });
    return reply;
  }

  #auth(path: string, q: Record<string, string>): Reply {
    if (path !== '/api/v2/token/get' && path !== '/api/v2/token/refresh')
      return [404, { code: 40400, message: 'not found' }];
    this.tokenRequests.push({ grant_type: q.grant_type ?? '', at: Date.now() });
    if (q.app_key !== APP.appKey || q.app_secret !== APP.appSecret)
      return [200, { code: 36004002, message: 'invalid app_key or app_secret', request_id: rid(), data: null }];
    let shopIds: string[];
    if (path === '/api/v2/token/get') {
      const grant = this.#codes.get(q.auth_code ?? '');
      if (q.grant_type !== 'authorized_code' || !grant || grant.expiresAtMs < Date.now())
        return [200, { ...errors.invalidAuthCode, request_id: rid() }];
      this.#codes.delete(q.auth_code!);
      shopIds = grant.shopIds;
    } else {
      const grant = this.#refreshTokens.get(q.refresh_token ?? '');
      if (q.grant_type !== 'refresh_token' || !grant || grant.expiresAtMs < Date.now())
        return [200, { code: 36004005, message: 'invalid refresh token', request_id: rid(), data: null }];
      shopIds = grant.shopIds;
    }
    const accessToken = `ROW_${randomBytes(24).toString('base64url')}`;
    const accessExpires = Date.now() + this.accessTokenLifetimeS * 1000;
    this.#tokens.set(accessToken, { shopIds, expiresAtMs: accessExpires });
    // TikTok keeps the refresh token on a refresh (its expiry does not move).
    const refreshToken =
      path === '/api/v2/token/refresh' ? q.refresh_token! : `ROW_${randomBytes(24).toString('base64url')}`;
    const refreshExpires = this.#refreshTokens.get(refreshToken)?.expiresAtMs ?? Date.now() + 365 * 24 * 3600_000;
    this.#refreshTokens.set(refreshToken, { shopIds, expiresAtMs: refreshExpires });
    const expiry = (ms: number) =>
      this.expiryStyle === 'timestamp' ? Math.floor(ms / 1000) : Math.floor((ms - Date.now()) / 1000);
    return [
      200,
      {
        ...accessTokenFixture,
        request_id: rid(),
        data: {
          ...accessTokenFixture.data,
          access_token: accessToken,
          access_token_expire_in: expiry(accessExpires),
          refresh_token: refreshToken,
          refresh_token_expire_in: expiry(refreshExpires),
        },
      },
    ];
  }

  #api(req: Request, path: string, q: Record<string, string>, body: string): Reply {
    for (const fault of this.#faults) {
      if (fault.remaining > 0 && fault.path.test(path)) {
        fault.remaining--;
        return fault.reply;
      }
    }
    // What TikTok checks on every call, in its order: app key, timestamp, signature, token, shop.
    if (q.app_key !== APP.appKey)
      return [200, { code: 106002, message: 'Invalid app_key', request_id: rid(), data: {} }];
    const ts = Number(q.timestamp);
    if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > TIMESTAMP_TOLERANCE_S)
      return [200, { code: 106003, message: 'Invalid timestamp: expired or malformed', request_id: rid(), data: {} }];
    const { sign, ...signed } = q;
    if (!sign || sign !== signRequest({ appSecret: APP.appSecret, path, query: signed, body }))
      return [200, { ...errors.invalidSign, request_id: rid() }];
    if (body && req.headers.get('content-type') !== 'application/json')
      return [200, { code: 36009004, message: 'Content-Type must be application/json', request_id: rid(), data: {} }];
    const token = this.#tokens.get(req.headers.get('x-tts-access-token') ?? '');
    if (!token) return [200, { ...errors.invalidToken, request_id: rid() }];
    if (token.expiresAtMs <= Date.now()) return [200, { ...errors.expiredToken, request_id: rid() }];
    // The third-party transcription of TikTok's 202309 reference (fixtures/contract): a call it does not allow is a bad
    // parameter.
    const violations = this.contractLog.record(CONTRACT, {
      method: req.method,
      path,
      query: new URLSearchParams(q),
      body,
      contentType: req.headers.get('content-type') ?? undefined,
    });
    if (violations.length > 0)
      return [200, { code: 36009004, message: violations.join('; '), request_id: rid(), data: {} }];

    if (req.method === 'GET' && path === '/authorization/202309/shops') {
      const shops = token.shopIds
        .map((id) => this.shops.get(id)!)
        .map((s) => ({
          id: s.id,
          name: s.name,
          region: s.region,
          seller_type: 'LOCAL',
          cipher: s.cipher,
          code: `${s.region}LC${s.id.slice(-6)}`,
        }));
      return ok({ shops });
    }
    const shop = [...this.shops.values()].find((s) => s.cipher === q.shop_cipher);
    if (!shop)
      return [200, { code: 106011, message: 'shop_cipher is missing or invalid', request_id: rid(), data: {} }];
    if (!token.shopIds.includes(shop.id))
      return [200, { code: 105005, message: 'The access token does not cover this shop', request_id: rid(), data: {} }];
    return (
      shopOperation(req.method, path, q, body, shop) ?? [
        404,
        { code: 40400, message: `no such API: ${req.method} ${path}`, request_id: rid(), data: {} },
      ]
    );
  }
}
