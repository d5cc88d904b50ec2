import { generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import {
  answerWith,
  ContractLog,
  eventually,
  OpenApiContract,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeReply,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import accountModel from './fixtures/contract/sell_account_v1_oas3.subset.json' with { type: 'json' };
import fulfillmentModel from './fixtures/contract/sell_fulfillment_v1_oas3.subset.json' with { type: 'json' };
import identityModel from './fixtures/contract/commerce_identity_v1_oas3.subset.json' with { type: 'json' };
import inventoryModel from './fixtures/contract/sell_inventory_v1_oas3.subset.json' with { type: 'json' };
import notificationModel from './fixtures/contract/commerce_notification_v1_oas3.subset.json' with { type: 'json' };

/** eBay's published contracts, by the base path of their servers: every call is checked against its own. */
export const CONTRACTS: ReadonlyArray<[basePath: string, contract: OpenApiContract]> = [
  ['/sell/fulfillment/v1', new OpenApiContract(fulfillmentModel, 'eBay Sell Fulfillment v1')],
  ['/sell/inventory/v1', new OpenApiContract(inventoryModel, 'eBay Sell Inventory v1')],
  ['/sell/account/v1', new OpenApiContract(accountModel, 'eBay Sell Account v1')],
  ['/commerce/notification/v1', new OpenApiContract(notificationModel, 'eBay Notification v1')],
  ['/commerce/identity/v1', new OpenApiContract(identityModel, 'eBay Identity v1')],
];

export const APP = {
  clientId: 'PrintApi-PrintApi-PRD-4f2e8a1c9-3b7d5e2a',
  clientSecret: 'PRD-f2e8a1c93b7d-5e2a-4c6b-9d0e-8f1a',
  ruName: 'Print_API-PrintApi-PrintA-abcdefgh',
  verificationToken: 'verification-token-of-print-api-0123456789abcdef',
};
const SCOPE = 'https://api.ebay.com/oauth/api_scope';
const USER_SCOPES = [
  `${SCOPE}/sell.fulfillment`,
  `${SCOPE}/sell.inventory`,
  `${SCOPE}/sell.account.readonly`,
  `${SCOPE}/commerce.identity.readonly`,
];
const CODE_LIFETIME_S = 299;
const ACCESS_LIFETIME_S = 7200;
const REFRESH_LIFETIME_S = 47_304_000;

/** eBay's error shape. */
export const ebayErrors = (errorId: number, message: string, category = 'REQUEST', domain = 'API_FULFILLMENT') => ({
  errors: [{ errorId, domain, category, message, longMessage: message }],
});
const invalidToken: FakeReply = [
  401,
  ebayErrors(
    1001,
    'Invalid access token. Check the value of the Authorization HTTP request header.',
    'REQUEST',
    'OAuth',
  ),
];

export interface SeenCall {
  operation: string;
  rawQuery: string;
  body?: unknown;
  at: number;
}

type Json = Record<string, any>;

/** One seller on the fake: orders, inventory, offers, business policies, tokens and what it was asked. */
export class FakeSeller {
  readonly userId = randomBytes(6).toString('base64url');
  readonly username = `tulip_prints_${randomBytes(3).toString('hex')}`;
  readonly marketplaceId = 'EBAY_DE';
  readonly orders = new Map<string, Json>();
  readonly fulfillments = new Map<string, Json[]>();
  readonly items = new Map<string, Json>();
  readonly offers = new Map<string, Json>();
  readonly policies = {
    fulfillment: [{ fulfillmentPolicyId: '6196932000', name: 'Versand DHL Paket' }],
    payment: [{ paymentPolicyId: '6196939000', name: 'eBay Zahlungsabwicklung' }],
    return: [{ returnPolicyId: '6196944000', name: '30 Tage Rückgabe' }],
  };
  readonly locations = [
    { merchantLocationKey: 'druckerei-amsterdam', name: 'Druckerei', merchantLocationStatus: 'ENABLED' },
  ];
  readonly calls: SeenCall[] = [];
  readonly refreshTokens = new Set<string>();
  refreshes = 0;
  #faults: Array<{ operation: string; reply: FakeReply }> = [];
  #lastStamp = 0;

  stamp(at?: string): string {
    if (at) return at;
    const now = Math.max(Date.now(), this.#lastStamp + 1);
    this.#lastStamp = now;
    return new Date(now).toISOString();
  }

  faultNext(operation: string, reply: FakeReply): void {
    this.#faults.push({ operation, reply });
  }

  takeFault(operation: string): FakeReply | undefined {
    const i = this.#faults.findIndex((f) => f.operation === operation);
    return i < 0 ? undefined : this.#faults.splice(i, 1)[0]!.reply;
  }

  seen(operation: string): SeenCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }
}

/**
 * eBay for our tests, on one local HTTPS server: the consent page (`approve`: the RuName's accepted URL with the code),
 * the OAuth token endpoint (HTTP Basic with the app's id and secret; an authorization code for the RuName it was issued
 * to, once, within 299 s; refresh tokens; client credentials), Bearer tokens with their scopes and expiry, every REST call
 * checked against the vendored OpenAPI documents (and the headers eBay requires), eBay's error shape, 429 with
 * Retry-After on demand; and the Notification API's public key for the ECDSA key it signs account deletion
 * notifications with.
 */
export class FakeEbay {
  readonly sellers = new Map<string, FakeSeller>();
  readonly codes = new Map<string, { sellerId: string; ruName: string; issuedAt: number; used: boolean }>();
  readonly tokens = new Map<string, { sellerId: string | null; scopes: string[]; until: number }>();
  readonly tokenRequests: Array<Record<string, string>> = [];
  readonly contractLog = new ContractLog();
  readonly kid = randomUUID();
  readonly #signing: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
  });
  /** More keys the Notification API serves, by kid (PEM on one line, as eBay answers them). */
  readonly extraKeys = new Map<string, string>();
  publicKeyCalls = 0;
  url = '';
  /** The RuName's accepted URL, as set in eBay's developer portal. */
  acceptUrl = '';

  settings(): Record<string, string> {
    return {
      CONNECTOR_EBAY_CLIENT_ID: APP.clientId,
      CONNECTOR_EBAY_CLIENT_SECRET: APP.clientSecret,
      CONNECTOR_EBAY_RU_NAME: APP.ruName,
      CONNECTOR_EBAY_VERIFICATION_TOKEN: APP.verificationToken,
      CONNECTOR_EBAY_API_URL: this.url,
      CONNECTOR_EBAY_AUTH_URL: this.url,
      CONNECTOR_EBAY_IDENTITY_URL: this.url,
    };
  }

  serve(server: Pick<FakeHttpsServer, 'url' | 'fallback'>, publicUrl: string): void {
    this.url = server.url;
    this.acceptUrl = `${publicUrl}/connectors/ebay/callback`;
    server.fallback(answerWith((req) => this.answer(req)));
  }

  seller(): FakeSeller {
    const seller = new FakeSeller();
    this.sellers.set(seller.userId, seller);
    return seller;
  }

  /** The seller agrees on eBay's consent page: where eBay sends the browser (the RuName's accepted URL). */
  approve(consentUrl: string, seller: FakeSeller, opts: { issuedAt?: number } = {}): string {
    const url = new URL(consentUrl);
    if (url.pathname !== '/oauth2/authorize') throw new Error(`not the consent page: ${url.pathname}`);
    const q = url.searchParams;
    if (q.get('client_id') !== APP.clientId) throw new Error(`consent for an unknown app ${q.get('client_id')}`);
    if (q.get('response_type') !== 'code') throw new Error('response_type must be code');
    if (q.get('redirect_uri') !== APP.ruName)
      throw new Error(`redirect_uri ${q.get('redirect_uri')} is not the RuName`);
    const scopes = (q.get('scope') ?? '').split(' ');
    for (const s of USER_SCOPES) if (!scopes.includes(s)) throw new Error(`the consent does not ask for ${s}`);
    const code = `v^1.1#i^1#r^1#f^0#p^3#I^3#t^${randomBytes(24).toString('base64url')}`;
    this.codes.set(code, {
      sellerId: seller.userId,
      ruName: APP.ruName,
      issuedAt: opts.issuedAt ?? Date.now(),
      used: false,
    });
    const back = new URL(this.acceptUrl);
    back.searchParams.set('state', q.get('state') ?? '');
    back.searchParams.set('code', code);
    back.searchParams.set('expires_in', String(CODE_LIFETIME_S));
    return back.toString();
  }

  expireTokens(seller: FakeSeller): void {
    for (const t of this.tokens.values()) if (t.sellerId === seller.userId) t.until = 0;
  }

  revoke(seller: FakeSeller): void {
    seller.refreshTokens.clear();
    for (const [token, t] of this.tokens) if (t.sellerId === seller.userId) this.tokens.delete(token);
  }

  /** A MARKETPLACE_ACCOUNT_DELETION notification for `userId`, signed as eBay signs it (or with another key). */
  deletionNotification(userId: string, username: string, opts: { forged?: boolean } = {}) {
    const message = {
      metadata: { topic: 'MARKETPLACE_ACCOUNT_DELETION', schemaVersion: '1.0', deprecated: false },
      notification: {
        notificationId: `${randomUUID()}_${randomUUID()}`,
        eventDate: new Date().toISOString(),
        publishDate: new Date().toISOString(),
        publishAttemptCount: 1,
        data: { username, userId, eiasToken: randomBytes(30).toString('base64') },
      },
    };
    const body = JSON.stringify(message);
    const key = opts.forged
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
      : this.#signing.privateKey;
    const signature = sign('sha1', Buffer.from(body), key).toString('base64');
    const header = Buffer.from(JSON.stringify({ alg: 'ecdsa', kid: this.kid, signature, digest: 'SHA1' })).toString(
      'base64',
    );
    return { body, signature: header };
  }

  #issue(sellerId: string | null, scopes: string[], refresh?: FakeSeller): FakeReply {
    const access = `v^1.1#i^1#p^3#r^0#I^3#f^0#t^H4sI${randomBytes(32).toString('base64url')}`;
    this.tokens.set(access, { sellerId, scopes, until: Date.now() + ACCESS_LIFETIME_S * 1000 });
    const body: Json = {
      access_token: access,
      expires_in: ACCESS_LIFETIME_S,
      token_type: sellerId ? 'User Access Token' : 'Application Access Token',
    };
    if (refresh) {
      const token = `v^1.1#i^1#r^1#p^3#I^3#f^0#t^Ul4x${randomBytes(32).toString('base64url')}`;
      refresh.refreshTokens.add(token);
      Object.assign(body, { refresh_token: token, refresh_token_expires_in: REFRESH_LIFETIME_S });
    }
    return [200, body];
  }

  async #token(req: Request): Promise<FakeReply> {
    const oauth = (error: string, description: string, status = 400): FakeReply => [
      status,
      { error, error_description: description },
    ];
    const basic = `Basic ${Buffer.from(`${APP.clientId}:${APP.clientSecret}`).toString('base64')}`;
    if (req.headers.get('authorization') !== basic) return oauth('invalid_client', 'client authentication failed', 401);
    if (!(req.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
      return oauth('invalid_request', 'request content type must be application/x-www-form-urlencoded');
    const form = Object.fromEntries(new URLSearchParams(await req.text()));
    this.tokenRequests.push(form);
    if (form.grant_type === 'authorization_code') {
      const issued = form.code ? this.codes.get(form.code) : undefined;
      if (!issued || issued.used)
        return oauth(
          'invalid_grant',
          'the provided authorization grant code is invalid or was issued to another client',
        );
      issued.used = true;
      if (Date.now() - issued.issuedAt > CODE_LIFETIME_S * 1000)
        return oauth('invalid_grant', 'the authorization code has expired');
      if (form.redirect_uri !== issued.ruName)
        return oauth('invalid_grant', 'the redirect_uri does not match the RuName of the grant');
      const seller = this.sellers.get(issued.sellerId)!;
      return this.#issue(seller.userId, USER_SCOPES, seller);
    }
    if (form.grant_type === 'refresh_token') {
      const seller = [...this.sellers.values()].find(
        (s) => form.refresh_token && s.refreshTokens.has(form.refresh_token),
      );
      if (!seller)
        return oauth(
          'invalid_grant',
          'the provided authorization refresh token is invalid or was issued to another client',
        );
      const asked = form.scope ? form.scope.split(' ') : USER_SCOPES;
      if (asked.some((s) => !USER_SCOPES.includes(s)))
        return oauth(
          'invalid_scope',
          'the requested scope is invalid, unknown, malformed, or exceeds the scope granted to the client',
        );
      seller.refreshes++;
      return this.#issue(seller.userId, asked);
    }
    if (form.grant_type === 'client_credentials') {
      if (form.scope !== SCOPE)
        return oauth(
          'invalid_scope',
          'the requested scope is invalid, unknown, malformed, or exceeds the scope granted to the client',
        );
      return this.#issue(null, [SCOPE]);
    }
    return oauth('unsupported_grant_type', `grant type ${form.grant_type} is not supported`);
  }

  async answer(req: Request): Promise<FakeReply> {
    const url = new URL(req.url);
    if (req.method === 'POST' && url.pathname === '/identity/v1/oauth2/token') return this.#token(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
    const token = bearer ? this.tokens.get(bearer) : undefined;
    if (!token || token.until <= Date.now()) return invalidToken;
    const [base, contract] = CONTRACTS.find(([prefix]) => url.pathname.startsWith(`${prefix}/`)) ?? [];
    if (!base || !contract) return [404, ebayErrors(2002, `Resource ${url.pathname} not found`)];
    const path = url.pathname.slice(base.length);
    const rawQuery = url.search.slice(1);
    const text = req.method === 'GET' ? '' : await req.text();
    const violations = this.contractLog.record(contract, {
      method: req.method,
      path,
      query: url.searchParams,
      body: text,
      contentType: req.headers.get('content-type') ?? undefined,
    });
    if (violations.length > 0) return [400, ebayErrors(2004, violations.join('; '))];
    const op = contract.check({ method: req.method, path, query: url.searchParams }).operationId!;
    // eBay's documents list in one requirement the scopes of which a token needs any one ("OAuth scope: one of"):
    // the kit's check reads a requirement's list as all of them, so scopes are checked here.
    const needs = scopesOf(base, path, req.method);
    if (!needs.some((s) => token.scopes.includes(s))) {
      const missing = `${op}: the token lacks every one of ${needs.join(', ')}`;
      this.contractLog.violations.push(missing);
      return [403, ebayErrors(1100, `Access denied: insufficient permissions. ${missing}`, 'REQUEST', 'ACCESS')];
    }
    if (
      ['createOrReplaceInventoryItem', 'createOffer', 'updateOffer'].includes(op) &&
      !req.headers.get('content-language')
    )
      return [400, ebayErrors(25709, 'Invalid value for header Content-Language.', 'REQUEST', 'API_INVENTORY')];
    if (base === '/commerce/notification/v1') {
      if (token.sellerId)
        return [403, ebayErrors(1100, 'Access denied: an application token is required.', 'REQUEST', 'ACCESS')];
      this.publicKeyCalls++;
      const kid = decodeURIComponent(path.slice('/public_key/'.length));
      const key = kid === this.kid ? pemLine(this.#signing.publicKey) : this.extraKeys.get(kid);
      return key
        ? [200, { key, algorithm: 'ECDSA', digest: 'SHA1' }]
        : [404, ebayErrors(195000, 'Resource not found.', 'REQUEST', 'API_NOTIFICATION')];
    }
    const seller = token.sellerId ? this.sellers.get(token.sellerId) : undefined;
    if (!seller) return [403, ebayErrors(1100, 'Access denied: a user token is required.', 'REQUEST', 'ACCESS')];
    const body = text ? JSON.parse(text) : undefined;
    seller.calls.push({ operation: op, rawQuery, body, at: Date.now() });
    const fault = seller.takeFault(op);
    if (fault) return fault;
    return answerFor(seller, op, path, url.searchParams, rawQuery, body);
  }
}

const MODELS: Record<string, Json> = {
  '/sell/fulfillment/v1': fulfillmentModel,
  '/sell/inventory/v1': inventoryModel,
  '/sell/account/v1': accountModel,
  '/commerce/notification/v1': notificationModel,
  '/commerce/identity/v1': identityModel,
};

/** The scopes the operation's `security` lists (the vendored document's). */
function scopesOf(base: string, path: string, method: string): string[] {
  const doc = MODELS[base]!;
  const template = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))!;
  const security: Json[] = doc.paths[template][method.toLowerCase()].security ?? [];
  return security.flatMap((r) => r.api_auth ?? []);
}

/** eBay serves the PEM on one line (as the SDK's test vectors show). */
const pemLine = (key: KeyObject) => (key.export({ type: 'spki', format: 'pem' }) as string).replace(/\n/g, '');

function answerFor(
  seller: FakeSeller,
  op: string,
  path: string,
  q: URLSearchParams,
  rawQuery: string,
  body: any,
): FakeReply {
  const id = decodeURIComponent(path.split('/')[2] ?? '');
  const inventoryError = (errorId: number, message: string, status = 400): FakeReply => [
    status,
    ebayErrors(errorId, message, 'REQUEST', 'API_INVENTORY'),
  ];
  switch (op) {
    case 'getUser':
      return [
        200,
        {
          userId: seller.userId,
          username: seller.username,
          accountType: 'BUSINESS',
          registrationMarketplaceId: seller.marketplaceId,
          status: 'CONFIRMED',
        },
      ];
    case 'getOrders':
      return searchOrders(seller, q, rawQuery);
    case 'getOrder': {
      const order = seller.orders.get(id);
      return order ? [200, order] : [404, ebayErrors(32100, `Order ${id} not found.`)];
    }
    case 'getShippingFulfillments':
      return seller.orders.has(id)
        ? [200, { fulfillments: seller.fulfillments.get(id) ?? [], total: (seller.fulfillments.get(id) ?? []).length }]
        : [404, ebayErrors(32100, `Order ${id} not found.`)];
    case 'createShippingFulfillment':
      return ship(seller, id, body);
    case 'getInventoryItems': {
      const limit = Number(q.get('limit') ?? 25);
      const offset = Number(q.get('offset') ?? 0);
      if (!(limit >= 1 && limit <= 200)) return inventoryError(25706, 'The limit must be between 1 and 200.');
      const all = [...seller.items.values()];
      return [
        200,
        {
          total: all.length,
          size: Math.min(limit, all.length - offset),
          limit,
          inventoryItems: all.slice(offset, offset + limit),
          ...(offset + limit < all.length
            ? { next: `/sell/inventory/v1/inventory_item?limit=${limit}&offset=${offset + limit}` }
            : {}),
        },
      ];
    }
    case 'getInventoryItem': {
      const item = seller.items.get(id);
      return item ? [200, item] : inventoryError(25702, `The SKU ${id} is not available in the system.`, 404);
    }
    case 'createOrReplaceInventoryItem': {
      if (!body?.product?.title || !body?.condition || !body?.availability)
        return inventoryError(25002, 'The product title, condition and availability are required.');
      const created = !seller.items.has(id);
      seller.items.set(id, { sku: id, locale: 'de_DE', ...body });
      return [created ? 201 : 204, undefined];
    }
    case 'getOffers': {
      const offers = [...seller.offers.values()].filter(
        (o) => o.sku === q.get('sku') && (!q.get('marketplace_id') || o.marketplaceId === q.get('marketplace_id')),
      );
      return offers.length
        ? [200, { total: offers.length, offers }]
        : inventoryError(25713, 'This Offer is not available.', 404);
    }
    case 'createOffer': {
      for (const field of ['sku', 'marketplaceId', 'format'])
        if (!body?.[field]) return inventoryError(25709, `${field} is required.`);
      if (!seller.items.has(body.sku))
        return inventoryError(25702, `The SKU ${body.sku} is not available in the system.`);
      if ([...seller.offers.values()].some((o) => o.sku === body.sku && o.marketplaceId === body.marketplaceId))
        return inventoryError(25002, 'Offer entity already exists.');
      const offerId = String(5_000_000_000 + seller.offers.size);
      seller.offers.set(offerId, { ...body, offerId, status: 'UNPUBLISHED' });
      return [201, { offerId }];
    }
    case 'getOffer': {
      const offer = seller.offers.get(id);
      return offer ? [200, offer] : inventoryError(25713, 'This Offer is not available.', 404);
    }
    case 'updateOffer': {
      const offer = seller.offers.get(id);
      if (!offer) return inventoryError(25713, 'This Offer is not available.', 404);
      seller.offers.set(id, {
        ...body,
        offerId: id,
        sku: offer.sku,
        marketplaceId: offer.marketplaceId,
        format: offer.format,
        status: offer.status,
        ...(offer.listing ? { listing: offer.listing } : {}),
      });
      return [200, { offerId: id }];
    }
    case 'publishOffer': {
      const offer = seller.offers.get(id);
      if (!offer) return inventoryError(25713, 'This Offer is not available.', 404);
      const item = seller.items.get(offer.sku);
      const policies = offer.listingPolicies ?? {};
      if (!item?.product?.imageUrls?.length)
        return inventoryError(25002, 'A user error has occurred. At least 1 picture is required.');
      if (!offer.categoryId || !offer.merchantLocationKey || !offer.pricingSummary?.price)
        return inventoryError(25002, 'Missing category, location or price.');
      if (
        policies.fulfillmentPolicyId !== seller.policies.fulfillment[0]!.fulfillmentPolicyId ||
        policies.paymentPolicyId !== seller.policies.payment[0]!.paymentPolicyId ||
        policies.returnPolicyId !== seller.policies.return[0]!.returnPolicyId
      )
        return inventoryError(25007, 'Invalid or missing business policies.');
      const listingId = offer.listing?.listingId ?? String(110_000_000_000 + seller.offers.size);
      seller.offers.set(id, { ...offer, status: 'PUBLISHED', listing: { listingId, listingStatus: 'ACTIVE' } });
      return [200, { listingId }];
    }
    case 'withdrawOffer': {
      const offer = seller.offers.get(id);
      if (!offer || offer.status !== 'PUBLISHED') return inventoryError(25713, 'This Offer is not available.', 404);
      seller.offers.set(id, { ...offer, status: 'UNPUBLISHED', listing: { ...offer.listing, listingStatus: 'ENDED' } });
      return [200, { listingId: offer.listing.listingId }];
    }
    case 'getInventoryLocations':
      return [200, { total: seller.locations.length, locations: seller.locations }];
    case 'getFulfillmentPolicies':
    case 'getPaymentPolicies':
    case 'getReturnPolicies': {
      if (q.get('marketplace_id') !== seller.marketplaceId) return [200, { total: 0 }];
      const kind = op === 'getFulfillmentPolicies' ? 'fulfillment' : op === 'getPaymentPolicies' ? 'payment' : 'return';
      return [200, { total: seller.policies[kind].length, [`${kind}Policies`]: seller.policies[kind] }];
    }
  }
  return [404, ebayErrors(2002, `No fake for ${op}`)];
}

const FILTER =
  /^lastmodifieddate:\[(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)\.\.(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)?\]$/;

/** getOrders: the filter's brackets must come percent-encoded (as the document requires), then it is parsed. */
function searchOrders(seller: FakeSeller, q: URLSearchParams, rawQuery: string): FakeReply {
  const rawFilter = rawQuery.split('&').find((p) => p.startsWith('filter='));
  if (rawFilter && /[[\]]/.test(rawFilter))
    return [400, ebayErrors(30700, 'The filter is invalid: [ and ] must be percent-encoded (%5B, %5D).')];
  const filter = q.get('filter');
  const m = filter ? FILTER.exec(filter) : null;
  if (filter && !m) return [400, ebayErrors(30700, `The filter ${filter} is invalid.`)];
  const limit = Number(q.get('limit') ?? 50);
  const offset = Number(q.get('offset') ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    return [400, ebayErrors(30810, 'The limit must be between 1 and 200.')];
  const all = [...seller.orders.values()]
    .filter((o) => !m || (o.lastModifiedDate >= m[1]! && (!m[2] || o.lastModifiedDate <= m[2])))
    .sort((a, b) => b.creationDate.localeCompare(a.creationDate) || a.orderId.localeCompare(b.orderId));
  const page = all.slice(offset, offset + limit);
  return [
    200,
    {
      href: `/sell/fulfillment/v1/order?${rawQuery}`,
      total: all.length,
      limit,
      offset,
      orders: page,
      ...(offset + limit < all.length
        ? { next: `/sell/fulfillment/v1/order?limit=${limit}&offset=${offset + limit}` }
        : {}),
    },
  ];
}

function ship(seller: FakeSeller, orderId: string, body: any): FakeReply {
  const order = seller.orders.get(orderId);
  if (!order) return [404, ebayErrors(32100, `Order ${orderId} not found.`)];
  if (!body?.trackingNumber || !body?.shippingCarrierCode)
    return [400, ebayErrors(32400, 'The tracking number and the carrier code are required.')];
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(body.shippedDate ?? ''))
    return [400, ebayErrors(32400, 'The shippedDate is invalid.')];
  if (!Array.isArray(body.lineItems) || body.lineItems.length === 0)
    return [400, ebayErrors(32400, 'lineItems is required.')];
  for (const l of body.lineItems) {
    const line = order.lineItems.find((x: Json) => x.lineItemId === l.lineItemId);
    if (!line || !(l.quantity >= 1 && l.quantity <= line.quantity))
      return [400, ebayErrors(32400, `The line item ${l.lineItemId} is invalid.`)];
  }
  const fulfillmentId = randomBytes(8).toString('hex').toUpperCase();
  const held = seller.fulfillments.get(orderId) ?? [];
  held.push({
    fulfillmentId,
    lineItems: body.lineItems,
    shipmentTrackingNumber: body.trackingNumber,
    shippedDate: body.shippedDate,
    shippingCarrierCode: body.shippingCarrierCode,
  });
  seller.fulfillments.set(orderId, held);
  order.orderFulfillmentStatus = 'FULFILLED';
  order.lastModifiedDate = seller.stamp();
  return [
    201,
    '',
    { location: `https://api.ebay.com/sell/fulfillment/v1/order/${orderId}/shipping_fulfillment/${fulfillmentId}` },
  ];
}

let nextOrder = 1;
/** An order id in eBay's form (12-34567-89012), unique in this run. */
export const ebayOrderId = () =>
  `${String(10 + (process.pid % 89))}-${String(10_000 + nextOrder).padStart(5, '0')}-${String(nextOrder++).padStart(5, '0')}`;

export const SHIP_TO = {
  fullName: 'Anna de Vries',
  companyName: 'Bloemen & Zo B.V.',
  email: 'a3f9c2e1b7d4@members.ebay.com',
  primaryPhone: { phoneNumber: '+31 20 123 4567' },
  contactAddress: {
    addressLine1: 'Prinsengracht 263',
    addressLine2: '2e verdieping',
    city: 'Amsterdam',
    stateOrProvince: 'NH',
    postalCode: '1016 GV',
    countryCode: 'NL',
  },
};

/** An order of the Fulfillment API with the spec's facts (payment, cancellation, lines by SKU). */
export function ebayOrderOf(
  seller: FakeSeller,
  spec: OrderSpec & { id: string },
  over: { paymentStatus?: string; cancelState?: string } = {},
): Json {
  const updated = seller.stamp(spec.updatedAt);
  const existing = seller.orders.get(spec.id);
  return {
    orderId: spec.id,
    legacyOrderId: spec.id,
    creationDate: existing?.creationDate ?? updated,
    lastModifiedDate: updated,
    orderFulfillmentStatus: existing?.orderFulfillmentStatus ?? 'NOT_STARTED',
    orderPaymentStatus: over.paymentStatus ?? (spec.paid ? 'PAID' : 'PENDING'),
    sellerId: seller.username,
    buyer: { username: 'buyer_anna_nl' },
    cancelStatus: {
      cancelState: over.cancelState ?? (spec.cancelled ? 'CANCELED' : 'NONE_REQUESTED'),
      cancelRequests: [],
    },
    pricingSummary: { total: { value: '24.95', currency: 'EUR' } },
    fulfillmentStartInstructions: [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        ebaySupportedFulfillment: false,
        shippingStep: { shippingCarrierCode: 'DHL', shipTo: structuredClone(SHIP_TO) },
      },
    ],
    lineItems: spec.lines.map((l, i) => ({
      lineItemId: `${spec.id.replace(/-/g, '').slice(-8)}${String(i).padStart(3, '0')}`,
      legacyItemId: String(110_000_000_100 + i),
      ...(l.sku ? { sku: l.sku } : {}),
      title: `Poster ${i + 1}`,
      quantity: l.quantity,
      lineItemCost: { value: '24.95', currency: 'EUR' },
      soldFormat: 'FIXED_PRICE',
      lineItemFulfillmentStatus: 'NOT_STARTED',
    })),
  };
}

/** The install as the seller's browser goes through it: install link, eBay's consent, our callback. */
export async function consentInstall(
  service: Pick<ConformanceService, 'api' | 'toService'>,
  key: string,
  ebay: FakeEbay,
  seller: FakeSeller,
): Promise<Response> {
  const link = await service.api(key, 'POST', '/stores/install-links', {
    platform: 'EBAY',
    returnUrl: 'https://app.reseller.example/stores',
  });
  if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
  const begin = await fetch(service.toService(link.body.data.installUrl), { redirect: 'manual' });
  await begin.arrayBuffer();
  const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const back = ebay.approve(begin.headers.get('location')!, seller);
  return fetch(service.toService(back), { redirect: 'manual', headers: { cookie: cookies.join('; ') } });
}

/** The kit's conformance suite's view of eBay: sellers installed through the consent page, orders polled through sync. */
export class FakeEbayPlatform implements FakePlatform {
  readonly platform = 'EBAY';
  readonly expiringTokens = true;
  readonly holdsProducts = true;
  readonly publishYields = 'draft' as const;
  readonly shipsTo = {
    name: SHIP_TO.fullName,
    company: SHIP_TO.companyName,
    address1: SHIP_TO.contactAddress.addressLine1,
    address2: SHIP_TO.contactAddress.addressLine2,
    postalCode: SHIP_TO.contactAddress.postalCode,
    city: SHIP_TO.contactAddress.city,
    state: SHIP_TO.contactAddress.stateOrProvince,
    country: 'NL',
  };
  readonly ebay = new FakeEbay();

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.ebay.serve(server, 'https://print-api.example.com');
    return this.ebay.settings();
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    this.ebay.acceptUrl = `${service.publicUrl}/connectors/ebay/callback`;
    const seller = this.ebay.seller();
    const done = await consentInstall(service, key, this.ebay, seller);
    if (done.status !== 303) throw new Error(`install callback answered ${done.status}: ${await done.text()}`);
    await done.arrayBuffer();
    const storeId = new URL(done.headers.get('location')!).searchParams.get('store')!;
    await eventually(
      async () => (await service.api(key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
      'the first poll',
    );
    return ebayStore(this.ebay, seller, storeId);
  }
}

export function ebayStore(ebay: FakeEbay, seller: FakeSeller, storeId: string): FakeStore {
  return {
    storeId,
    nextOrderId: ebayOrderId,
    saveOrder(spec) {
      const id = spec.id ?? ebayOrderId();
      seller.orders.set(id, ebayOrderOf(seller, { ...spec, id }));
      return id;
    },
    async deliver() {
      throw new Error('eBay orders are polled');
    },
    pushedTracking: (orderId) =>
      (seller.fulfillments.get(orderId) ?? []).map((f) => ({ trackingNumber: f.shipmentTrackingNumber })),
    rateLimitNextPush(retryAfterSeconds) {
      seller.faultNext('createShippingFulfillment', [
        429,
        ebayErrors(
          2001,
          'Too many requests. The request limit has been reached for the resource.',
          'REQUEST',
          'ACCESS',
        ),
        { 'Retry-After': String(retryAfterSeconds) },
      ]);
      return () => seller.seen('createShippingFulfillment').map((c) => c.at);
    },
    expireTokens: () => ebay.expireTokens(seller),
    tokenRefreshes: () => seller.refreshes,
    async uninstall() {
      ebay.revoke(seller);
      return 200;
    },
    product(sku) {
      const item = seller.items.get(sku);
      const offer = [...seller.offers.values()].find((o) => o.sku === sku);
      if (!item || !offer) return undefined;
      return {
        sku,
        title: item.product.title,
        price: offer.pricingSummary.price.value,
        active: offer.status === 'PUBLISHED',
      };
    },
    publishOptions: { categoryId: '140' },
    completeListing(sku) {
      const item = seller.items.get(sku);
      if (item) item.product.imageUrls = ['https://i.ebayimg.com/images/g/tulip/s-l1600.jpg'];
    },
  };
}
