import { createHash, randomBytes } from 'node:crypto';
import {
  answerWith,
  ContractLog,
  OpenApiContract,
  type FakeHttpsServer,
  type FakeReply,
} from '@print-api/connector-kit/testing';
import etsyContract from './fixtures/contract/etsy-open-api-v3.subset.json' with { type: 'json' };
import listingsFixture from './fixtures/listings.json' with { type: 'json' };
import shopFixture from './fixtures/shop.json' with { type: 'json' };
import tokenFixture from './fixtures/token.json' with { type: 'json' };
import { listingRoute, shopSetup, shopSetupRoute } from './fake-etsy-listings.ts';
import { type DeliveryOptions, type ReceiptJson, receiptDelivery, receiptRoute } from './fake-etsy-receipts.ts';

/** The scopes Etsy knows (its document's OAuth2 flow). */
const ETSY_SCOPES: Record<string, string> =
  etsyContract.components.securitySchemes.oauth2.flows.authorizationCode.scopes;
/** What our install asks for: the grant the fake's seeded tokens carry unless a test says otherwise. */
export const ALL_SCOPES = ['transactions_r', 'transactions_w', 'shops_r', 'listings_r', 'listings_w'] as const;
/** What the install asked for before listings were read. */
export const SCOPES_WITHOUT_LISTINGS = ['transactions_r', 'transactions_w', 'shops_r'] as const;

export type ListingJson = (typeof listingsFixture.results)[number];

/** The app our tests register with the fake Etsy: keystring, shared secret, webhook signing secret. */
export const APP = {
  keystring: '1aa2bb33cc44dd55ee66ff77',
  sharedSecret: 'q9w8e7r6t5',
  webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};

export interface SeenCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
  /** A `multipart/form-data` body, as read (`uploadListingImage`'s file and fields). */
  multipart?: FormData;
  at: number;
  /** What the fake answered. */
  status?: number;
}

interface Grant {
  userId: string;
  scopes: string[];
  challenge: string;
  redirectUri: string;
  issuedAt: number;
  used: boolean;
}

/** One Etsy seller: a user and their shop, its receipts and listings. */
export class FakeEtsyShop {
  readonly receipts = new Map<string, ReceiptJson>();
  listings: ListingJson[] = structuredClone(listingsFixture.results);
  /** Tracking pushed (`createReceiptShipment`), by receipt, in the order it came. */
  readonly tracking = new Map<
    string,
    Array<{ tracking_code: string; carrier_name: string; note_to_buyer?: string; contentType: string }>
  >();
  readonly userId: string;
  readonly shopId: string;
  readonly shopName: string;
  /** Its currency, profiles and policies, and its listings' images. */
  readonly setup = shopSetup();
  constructor(userId: string, shopId: string, shopName: string) {
    this.userId = userId;
    this.shopId = shopId;
    this.shopName = shopName;
  }
}

/**
 * Etsy Open API v3 as a real local HTTPS server: the OAuth token endpoint (authorization code
 * with PKCE S256, refresh-token grant with rotation: a refresh token works once), the consent
 * screen (`approve`, what the merchant's click does), `users/me`, shops, receipts (the
 * documented filters, `sort_on=updated` ascending, offset paging), one receipt, tracking
 * (form-encoded only, as Etsy reads it), active listings with their inventory. Every
 * application call must carry `x-api-key: <keystring>:<shared secret>` (403 with Etsy's
 * messages otherwise) and a live Bearer token of the shop's owner (401 otherwise); answers
 * carry Etsy's `x-limit-*` / `x-remaining-*` headers. Deliveries to us are signed the Standard
 * Webhooks way with the app's `whsec_` secret.
 */
export class FakeEtsy {
  readonly calls: SeenCall[] = [];
  readonly tokenRequests: Array<Record<string, string>> = [];
  readonly shops = new Map<string, FakeEtsyShop>();
  /** How long issued access tokens live (Etsy: an hour). */
  tokenLifetimeSeconds = tokenFixture.expires_in;
  /** How long an authorization code can be exchanged (Etsy's codes are short-lived). */
  codeLifetimeMs = 5 * 60_000;
  /** Etsy's per-app budget as its headers state it. */
  limitPerSecond = 10;
  limitPerDay = 10_000;
  /** Overrides the day's remaining budget in the headers (null: counted). */
  remainingToday: number | null = null;
  #url = '';
  #ourBaseUrl = '';
  #publicUrl = '';
  readonly #grants = new Map<string, Grant>();
  readonly #tokens = new Map<string, { userId: string; expiresAt: number; scopes: string[] }>();
  /** Refresh token -> its user and the scopes of the grant it renews. */
  readonly #refreshTokens = new Map<string, { userId: string; scopes: string[] }>();
  /** Etsy's Open API v3 document (the operations we call): every application call is checked against it. */
  readonly contract = new OpenApiContract(etsyContract, 'Etsy Open API v3');
  readonly contractLog = new ContractLog();
  readonly #revokedUsers = new Set<string>();
  readonly #faults: Array<{ operation: RegExp; reply: FakeReply }> = [];
  #nextUser = 71000000;
  #nextShop = 52000;
  #nextReceipt = 3456789012;
  #dayCount = 0;
  #secondStart = 0;
  #secondCount = 0;

  get url(): string {
    return this.#url;
  }

  /**
   * Serves from `server`; `ourBaseUrl`/`publicUrl`: where the service listens and the URL it registers. Answers the
   * connector's settings.
   */
  serve(server: FakeHttpsServer, ours: { baseUrl: string; publicUrl: string } | null = null): Record<string, string> {
    this.#url = server.url;
    if (ours) this.attach(ours);
    server.fallback(answerWith((req) => this.answer(req)));
    return {
      CONNECTOR_ETSY_KEYSTRING: APP.keystring,
      CONNECTOR_ETSY_SHARED_SECRET: APP.sharedSecret,
      CONNECTOR_ETSY_WEBHOOK_SECRET: APP.webhookSecret,
      CONNECTOR_ETSY_API_URL: server.url,
    };
  }

  attach(ours: { baseUrl: string; publicUrl: string }): void {
    this.#ourBaseUrl = ours.baseUrl;
    this.#publicUrl = ours.publicUrl;
  }

  /** A new seller with a shop (the listings of the fixture). */
  addShop(): FakeEtsyShop {
    const shop = new FakeEtsyShop(
      String(this.#nextUser++),
      String(this.#nextShop++),
      `TulipPrints${this.shops.size + 1}`,
    );
    this.shops.set(shop.shopId, shop);
    return shop;
  }

  /** A receipt id no shop has used. */
  nextReceiptId(): string {
    return String(this.#nextReceipt++);
  }

  /** The merchant revokes our app's access (Etsy: Account settings > Apps): every token of the user dies. */
  revoke(shop: FakeEtsyShop): void {
    this.#revokedUsers.add(shop.userId);
    for (const [t, v] of this.#tokens) if (v.userId === shop.userId) this.#tokens.delete(t);
  }

  /** Expires every access token issued so far (as an hour passing would). */
  expireTokens(): void {
    for (const v of this.#tokens.values()) v.expiresAt = 0;
  }

  /** The next call matching `operation` (`METHOD /path` regexp) gets `reply`. */
  faultNext(operation: RegExp, reply: FakeReply): void {
    this.#faults.push({ operation, reply });
  }

  seen(operation: RegExp): SeenCall[] {
    return this.calls.filter((c) => operation.test(`${c.method} ${c.path}`));
  }

  /**
   * The merchant's click on Etsy's consent screen (`https://www.etsy.com/oauth/connect?…`):
   * checks what our app asked for and answers the callback URL (where the service listens)
   * with the code and the echoed state.
   */
  approve(consentUrl: string, shop: FakeEtsyShop): string {
    const url = new URL(consentUrl);
    const q = url.searchParams;
    const problems: string[] = [];
    if (url.origin + url.pathname !== 'https://www.etsy.com/oauth/connect')
      problems.push(`consent at ${url.origin}${url.pathname}`);
    if (q.get('response_type') !== 'code') problems.push('response_type');
    if (q.get('client_id') !== APP.keystring) problems.push('client_id');
    if (q.get('code_challenge_method') !== 'S256') problems.push('code_challenge_method');
    if (!/^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') ?? '')) problems.push('code_challenge');
    if (!q.get('state')) problems.push('state');
    const redirect = q.get('redirect_uri') ?? '';
    if (!redirect.startsWith('https://')) problems.push('redirect_uri must be https');
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    // Each call is checked against the scopes its operation needs (the contract); here only that Etsy knows them.
    for (const s of scopes) if (!(s in ETSY_SCOPES)) problems.push(`unknown scope ${s}`);
    if (scopes.length === 0) problems.push('scope');
    if (problems.length > 0) throw new Error(`Etsy would refuse this consent request: ${problems.join(', ')}`);
    const code = randomBytes(24).toString('base64url');
    this.#grants.set(code, {
      userId: shop.userId,
      scopes,
      challenge: q.get('code_challenge')!,
      redirectUri: redirect,
      issuedAt: Date.now(),
      used: false,
    });
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state')!);
    return this.toService(back.toString());
  }

  toService(url: string): string {
    return url.replace(this.#publicUrl, this.#ourBaseUrl);
  }

  /** Ages an authorization code past its lifetime (the merchant came back too late). */
  ageCodes(): void {
    for (const g of this.#grants.values()) g.issuedAt -= this.codeLifetimeMs + 1000;
  }

  /**
   * A refresh token issued to the shop's user, as `POST /stores` would take it pasted (granted `scopes`: all we ask for
   * by default).
   */
  issueRefreshToken(shop: FakeEtsyShop, scopes: readonly string[] = ALL_SCOPES): string {
    const token = `${shop.userId}.${randomBytes(30).toString('base64url')}`;
    this.#refreshTokens.set(token, { userId: shop.userId, scopes: [...scopes] });
    return token;
  }

  /** Tokens issued to the shop's user without the OAuth dance, for a store seeded as connected. */
  issueTokens(
    shop: FakeEtsyShop,
    scopes: readonly string[] = ALL_SCOPES,
  ): { accessToken: string; refreshToken: string; expiresAt: Date } {
    const accessToken = `${shop.userId}.${randomBytes(36).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + this.tokenLifetimeSeconds * 1000);
    this.#tokens.set(accessToken, { userId: shop.userId, expiresAt: expiresAt.getTime(), scopes: [...scopes] });
    return { accessToken, refreshToken: this.issueRefreshToken(shop, scopes), expiresAt };
  }

  /** Puts (or replaces) a receipt in the shop without delivering anything. */
  saveReceipt(shop: FakeEtsyShop, receipt: ReceiptJson): ReceiptJson {
    shop.receipts.set(String(receipt.receipt_id), structuredClone(receipt));
    return receipt;
  }

  /** Etsy's thin webhook for a receipt, signed with the app's secret: its body and headers (`receiptDelivery`). */
  delivery(
    shop: FakeEtsyShop,
    receiptId: string,
    opts: DeliveryOptions = {},
  ): { body: string; headers: Record<string, string> } {
    return receiptDelivery(shop, receiptId, { ...opts, secret: opts.secret ?? APP.webhookSecret });
  }

  /** Delivers the receipt's webhook (`delivery`) to `POST /connectors/etsy/webhooks`; answers our HTTP status. */
  async deliver(shop: FakeEtsyShop, receiptId: string, opts: DeliveryOptions = {}): Promise<number> {
    const { body, headers } = this.delivery(shop, receiptId, opts);
    const res = await fetch(`${this.#ourBaseUrl}/connectors/etsy/webhooks`, { method: 'POST', headers, body });
    const answer = await res.text();
    if (process.env.ETSY_FAKE_DEBUG) process.stderr.write(`fake etsy: delivered ${body} -> ${res.status} ${answer}\n`);
    return res.status;
  }

  async answer(req: Request): Promise<FakeReply> {
    const url = new URL(req.url);
    const bytes = req.method === 'GET' ? Buffer.alloc(0) : Buffer.from(await req.arrayBuffer());
    const multipart = await readMultipart(bytes, req.headers.get('content-type'));
    const call: SeenCall = {
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: bytes.toString('utf8'),
      ...(multipart ? { multipart } : {}),
      at: Date.now(),
    };
    this.calls.push(call);
    const reply = await this.#route(call);
    call.status = reply[0];
    if (process.env.ETSY_FAKE_DEBUG)
      process.stderr.write(
        `fake etsy: ${call.method} ${call.path}?${call.query} -> ${reply[0]} ${reply[0] >= 400 ? JSON.stringify(reply[1]) : ''}\n`,
      );
    return [
      reply[0],
      reply[1],
      { ...this.#budgetHeaders(), 'x-etsy-request-uuid': randomBytes(8).toString('hex'), ...(reply[2] ?? {}) },
    ];
  }

  #budgetHeaders(): Record<string, string> {
    const now = Date.now();
    if (now - this.#secondStart >= 1000) {
      this.#secondStart = now;
      this.#secondCount = 0;
    }
    this.#secondCount++;
    this.#dayCount++;
    return {
      'x-limit-per-second': String(this.limitPerSecond),
      'x-remaining-this-second': String(Math.max(0, this.limitPerSecond - this.#secondCount)),
      'x-limit-per-day': String(this.limitPerDay),
      'x-remaining-today': String(this.remainingToday ?? Math.max(0, this.limitPerDay - this.#dayCount)),
    };
  }

  async #route(c: SeenCall): Promise<FakeReply> {
    const key = c.headers.get('x-api-key') ?? '';
    if (!key.includes(':')) return [403, { error: 'Shared secret is required in x-api-key header.' }];
    if (key !== `${APP.keystring}:${APP.sharedSecret}`)
      return [403, { error: "Invalid API key: should be in the format 'keystring:shared_secret'." }];
    const fault = this.#faults.findIndex((f) => f.operation.test(`${c.method} ${c.path}`));
    if (fault >= 0) return this.#faults.splice(fault, 1)[0]!.reply;
    if (c.method === 'POST' && c.path === '/v3/public/oauth/token') return this.#token(c);
    const auth = /^Bearer (.+)$/.exec(c.headers.get('authorization') ?? '');
    const token = auth ? this.#tokens.get(auth[1]!) : undefined;
    if (!token) return [401, { error: 'invalid_token' }];
    if (token.expiresAt <= Date.now())
      return [401, { error: 'invalid_token', error_description: 'access token is expired' }];
    const violations = this.contractLog.record(this.contract, {
      method: c.method,
      path: c.path,
      query: c.query,
      body: c.body,
      multipart: c.multipart,
      contentType: c.headers.get('content-type') ?? undefined,
      scopes: token.scopes,
    });
    const scope = violations.find((v) => v.includes('lacks the OAuth scope'));
    if (scope) return [403, { error: `Insufficient scope: ${scope}` }];
    if (violations.length > 0) return [400, { error: violations.join('; ') }];
    const listed = await listingRoute(this.shops, token.userId, c);
    if (listed) return listed;
    if (c.method === 'GET' && c.path === '/v3/application/users/me') {
      const shop = [...this.shops.values()].find((s) => s.userId === token.userId);
      return [200, { user_id: Number(token.userId), shop_id: shop ? Number(shop.shopId) : null }];
    }
    const m = /^\/v3\/application\/shops\/(\d+)(\/.*)?$/.exec(c.path);
    if (!m) return [404, { error: `No route ${c.method} ${c.path}` }];
    const shop = this.shops.get(m[1]!);
    if (!shop) return [404, { error: `Shop ${m[1]} not found` }];
    if (shop.userId !== token.userId) return [403, { error: 'You do not have permission to access this shop' }];
    const rest = m[2] ?? '';
    if (c.method === 'GET' && rest === '')
      return [
        200,
        {
          ...shopFixture,
          shop_id: Number(shop.shopId),
          user_id: Number(shop.userId),
          shop_name: shop.shopName,
          currency_code: shop.setup.currency,
          shop_location_country_iso: shop.setup.country,
        },
      ];
    const setupReply = shopSetupRoute(shop, c, rest);
    if (setupReply) return setupReply;
    if (c.method === 'GET' && rest === '/listings') return this.#listings(shop, c.query);
    const receipts = receiptRoute(shop, c, rest);
    if (receipts) return receipts;
    return [404, { error: `No route ${c.method} ${c.path}` }];
  }

  #token(c: SeenCall): FakeReply {
    if (!(c.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
      return [400, { error: 'invalid_request', error_description: 'form-encoded body expected' }];
    const form = Object.fromEntries(new URLSearchParams(c.body));
    this.tokenRequests.push(form);
    if (form.client_id !== APP.keystring) return [401, { error: 'invalid_client' }];
    let userId: string;
    let scopes: string[];
    if (form.grant_type === 'authorization_code') {
      const grant = this.#grants.get(form.code ?? '');
      if (!grant || grant.used)
        return [400, { error: 'invalid_grant', error_description: 'code is invalid or was already used' }];
      grant.used = true;
      if (Date.now() - grant.issuedAt > this.codeLifetimeMs)
        return [400, { error: 'invalid_grant', error_description: 'code has expired' }];
      if (form.redirect_uri !== grant.redirectUri)
        return [400, { error: 'invalid_grant', error_description: 'redirect_uri does not match' }];
      const challenge = createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url');
      if (challenge !== grant.challenge)
        return [400, { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' }];
      userId = grant.userId;
      scopes = grant.scopes;
    } else if (form.grant_type === 'refresh_token') {
      const held = this.#refreshTokens.get(form.refresh_token ?? '');
      const owner = held?.userId;
      if (owner && this.#revokedUsers.has(owner))
        return [401, { error: 'invalid_grant', error_description: 'The refresh token has been revoked' }];
      if (!owner)
        return [400, { error: 'invalid_grant', error_description: 'refresh token is invalid or was already used' }];
      // Rotation: the refresh token works once.
      this.#refreshTokens.delete(form.refresh_token!);
      userId = owner;
      scopes = held!.scopes;
    } else {
      return [400, { error: 'unsupported_grant_type' }];
    }
    if (this.#revokedUsers.has(userId))
      return [401, { error: 'invalid_grant', error_description: 'The user revoked access' }];
    const accessToken = `${userId}.${randomBytes(36).toString('base64url')}`;
    const refreshToken = `${userId}.${randomBytes(36).toString('base64url')}`;
    this.#tokens.set(accessToken, { userId, expiresAt: Date.now() + this.tokenLifetimeSeconds * 1000, scopes });
    this.#refreshTokens.set(refreshToken, { userId, scopes });
    return [
      200,
      {
        ...tokenFixture,
        access_token: accessToken,
        refresh_token: refreshToken,
        expires_in: this.tokenLifetimeSeconds,
      },
    ];
  }

  #listings(shop: FakeEtsyShop, q: URLSearchParams): FakeReply {
    const state = q.get('state') ?? 'active';
    const limit = Number(q.get('limit') ?? 25);
    const offset = Number(q.get('offset') ?? 0);
    const withInventory = (q.get('includes') ?? '').split(',').includes('Inventory');
    const rows = shop.listings
      .filter((l) => l.state === state)
      .sort((a, b) => a.created_timestamp - b.created_timestamp || a.listing_id - b.listing_id);
    return [
      200,
      {
        count: rows.length,
        results: rows.slice(offset, offset + limit).map((l) => (withInventory ? l : { ...l, inventory: undefined })),
      },
    ];
  }
}

/** A `multipart/form-data` body as Etsy's server reads it; undefined for another type, or bytes that do not parse. */
async function readMultipart(bytes: Buffer, contentType: string | null): Promise<FormData | undefined> {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) return undefined;
  return new Response(bytes, { headers: { 'content-type': contentType } }).formData().catch(() => undefined);
}
