import { randomBytes } from 'node:crypto';
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
import orderFixture from './fixtures/order.json' with { type: 'json' };
import listingsModel from './fixtures/contract/listingsItems_2021-08-01.json' with { type: 'json' };
import orders2026Model from './fixtures/contract/orders_2026-01-01.json' with { type: 'json' };
import ordersV0Model from './fixtures/contract/ordersV0.json' with { type: 'json' };
import sellersModel from './fixtures/contract/sellers.json' with { type: 'json' };
import participations from './fixtures/marketplace-participations.json' with { type: 'json' };

/**
 * Amazon's published models (selling-partner-api-models, Apache-2.0): every Selling Partner API call is checked against
 * its own.
 */
export const CONTRACTS: ReadonlyArray<[prefix: string, contract: OpenApiContract]> = [
  ['/orders/2026-01-01/', new OpenApiContract(orders2026Model, 'Amazon orders 2026-01-01')],
  ['/orders/v0/', new OpenApiContract(ordersV0Model, 'Amazon orders v0')],
  ['/listings/2021-08-01/', new OpenApiContract(listingsModel, 'Amazon listings items 2021-08-01')],
  ['/sellers/v1/', new OpenApiContract(sellersModel, 'Amazon sellers v1')],
];

export type AmazonOrderJson = Omit<typeof orderFixture, 'fulfillment' | 'packages'> & {
  fulfillment: typeof orderFixture.fulfillment & { fulfillmentStatus: string; fulfilledBy: string };
  packages: Array<Record<string, unknown>>;
};

export const APP = {
  appId: 'amzn1.sp.solution.7f3c9e2a-1b4d-4c8e-9a6f-0d2e5b7c1a93',
  clientId: 'amzn1.application-oa2-client.4b1f6c0e9d2a47b3a8e5f7c9d0b1a2e3',
  clientSecret: 'amzn1.oa2-cs.v1.3f9b2c7d1e8a4f6b0c5d9e2a7b4f1c8d3e6a9b0c2d5f8e1a4b7c0d3f6e9a2b5c8',
};
/** Amazon.de: the fake's sellers sell in Germany (and France). */
export const MARKETPLACE = 'A1PA6795UKMFR9';
const CARRIERS = new Set([
  'USPS',
  'UPS',
  'FedEx',
  'DHL',
  'DHL eCommerce',
  'Royal Mail',
  'PostNL',
  'DPD',
  'GLS',
  'Deutsche Post',
  'Canada Post',
  'Other',
]);
const STATUSES = new Set([
  'PENDING_AVAILABILITY',
  'PENDING',
  'UNSHIPPED',
  'PARTIALLY_SHIPPED',
  'SHIPPED',
  'CANCELLED',
  'UNFULFILLABLE',
]);
const INCLUDED = new Set([
  'BUYER',
  'RECIPIENT',
  'PROCEEDS',
  'EXPENSE',
  'PROMOTION',
  'CANCELLATION',
  'FULFILLMENT',
  'PACKAGES',
  'TAX',
  'PAYMENT',
  'FULFILLMENT_ORDERS',
]);
const CODE_LIFETIME_MS = 5 * 60_000;

const errors = (code: string, message: string, details = '') => ({ errors: [{ code, message, details }] });
const denied = (details: string): FakeReply => [
  403,
  errors('Unauthorized', 'Access to requested resource is denied.', details),
  { 'x-amzn-RequestId': randomBytes(8).toString('hex') },
];

export interface SeenCall {
  operation: string;
  query: Record<string, string>;
  body?: unknown;
  at: number;
  /** searchOrders: the lastUpdatedBefore it answered. */
  lastUpdatedBefore?: string;
}

/** One seller (selling partner) on the fake: its orders, listings, tokens and what it was asked. */
export class FakeSeller {
  readonly id: string;
  readonly orders = new Map<string, AmazonOrderJson>();
  readonly listings: Array<{ sku: string; asin: string; itemName: string; status: string[] }> = [];
  readonly calls: SeenCall[] = [];
  readonly refreshTokens = new Set<string>();
  readonly accessTokens = new Map<string, number>();
  refreshes = 0;
  revoked = false;
  /** searchOrders leaves out `lastUpdatedBefore` (optional in the orders 2026-01-01 model). */
  omitLastUpdatedBefore = false;
  #faults: Array<{ operation: string; reply: FakeReply }> = [];
  #lastStamp = 0;

  constructor(id: string) {
    this.id = id;
  }

  /** A strictly increasing clock, as Amazon's lastUpdatedTime (ms precision). */
  stamp(at?: string): string {
    if (at) return at;
    const now = Math.max(Date.now(), this.#lastStamp + 1);
    this.#lastStamp = now;
    return new Date(now).toISOString();
  }

  save(order: AmazonOrderJson): void {
    this.orders.set(order.orderId, order);
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

  expireTokens(): void {
    for (const token of this.accessTokens.keys()) this.accessTokens.set(token, 0);
  }

  /** A private app authorised by the seller in Seller Central (Develop apps > Authorize): the refresh token shown. */
  selfAuthorize(): string {
    const refresh = `Atzr|${randomBytes(32).toString('base64url')}`;
    this.refreshTokens.add(refresh);
    return refresh;
  }

  /** The seller removes the app in Seller Central (Manage Your Apps): its tokens stop working. */
  revoke(): void {
    this.revoked = true;
    this.refreshTokens.clear();
    this.accessTokens.clear();
  }
}

/**
 * Amazon for our tests, on one local HTTPS server: Seller Central's consent page (`approve`),
 * Login with Amazon's token endpoint (authorization code: five minutes, once, for the
 * redirect_uri it was issued to; refresh token; the app's client id and secret checked
 * exactly), and the Selling Partner API (access token in `x-amz-access-token`, expired or
 * revoked ones refused with 403): marketplaceParticipations, Orders v2026-01-01 searchOrders
 * (parameters validated, pagination tokens bound to identical parameters) and getOrder, v0
 * confirmShipment (packageReferenceId a positive number in a JSON string, carrierCode of the
 * list or Other with carrierName, known order items within their quantity), and the Listings
 * Items API's searchListingsItems.
 */
export class FakeAmazon {
  readonly sellers = new Map<string, FakeSeller>();
  readonly codes = new Map<string, { sellerId: string; redirectUri: string; issuedAt: number; used: boolean }>();
  readonly tokenRequests: Array<Record<string, string>> = [];
  readonly #pageTokens = new Map<string, { params: string; offset: number; before: string }>();
  url = '';
  pageSize: number | undefined;
  readonly contractLog = new ContractLog();

  settings(): Record<string, string> {
    return {
      CONNECTOR_AMAZON_APP_ID: APP.appId,
      CONNECTOR_AMAZON_LWA_CLIENT_ID: APP.clientId,
      CONNECTOR_AMAZON_LWA_CLIENT_SECRET: APP.clientSecret,
      CONNECTOR_AMAZON_API_URL: this.url,
      CONNECTOR_AMAZON_LWA_URL: this.url,
      CONNECTOR_AMAZON_SELLER_CENTRAL_URL: this.url,
      CONNECTOR_AMAZON_MARKETPLACE_IDS: MARKETPLACE,
    };
  }

  serve(
    server: Pick<FakeHttpsServer, 'url'> & { fallback(handler: Parameters<FakeHttpsServer['fallback']>[0]): void },
  ): void {
    this.url = server.url;
    server.fallback(answerWith((req) => this.answer(req)));
  }

  seller(id = `A${randomBytes(7).toString('hex').toUpperCase().slice(0, 13)}`): FakeSeller {
    const seller = new FakeSeller(id);
    this.sellers.set(id, seller);
    return seller;
  }

  /**
   * The seller clicks "Confirm" on the consent page: where Amazon sends the browser (our redirect_uri with the code).
   */
  approve(consentUrl: string, seller: FakeSeller, opts: { issuedAt?: number; state?: string } = {}): string {
    const url = new URL(consentUrl);
    if (url.pathname !== '/apps/authorize/consent') throw new Error(`not the consent page: ${url.pathname}`);
    if (url.searchParams.get('application_id') !== APP.appId)
      throw new Error(`consent for an unknown app ${url.searchParams.get('application_id')}`);
    const redirectUri = url.searchParams.get('redirect_uri')!;
    const code = `ANdNAVhyhqirUelHGEHA${randomBytes(6).toString('hex')}`;
    this.codes.set(code, { sellerId: seller.id, redirectUri, issuedAt: opts.issuedAt ?? Date.now(), used: false });
    const back = new URL(redirectUri);
    back.searchParams.set('state', opts.state ?? url.searchParams.get('state')!);
    back.searchParams.set('selling_partner_id', seller.id);
    back.searchParams.set('spapi_oauth_code', code);
    return back.toString();
  }

  #issue(seller: FakeSeller, withRefresh: boolean): FakeReply {
    const access = `Atza|${randomBytes(24).toString('base64url')}`;
    seller.accessTokens.set(access, Date.now() + 3600_000);
    const body: Record<string, unknown> = { access_token: access, token_type: 'bearer', expires_in: 3600 };
    if (withRefresh) {
      const refresh = `Atzr|${randomBytes(32).toString('base64url')}`;
      seller.refreshTokens.add(refresh);
      body.refresh_token = refresh;
    }
    return [200, body];
  }

  async answer(req: Request): Promise<FakeReply> {
    const url = new URL(req.url);
    if (req.method === 'POST' && url.pathname === '/auth/o2/token') return this.#token(req);
    const token = req.headers.get('x-amz-access-token');
    const seller = [...this.sellers.values()].find((s) => token && s.accessTokens.has(token));
    if (!token)
      return [
        403,
        errors(
          'Unauthorized',
          'Access to requested resource is denied.',
          'The request has no x-amz-access-token header',
        ),
      ];
    if (!seller) return denied('The access token you provided is revoked, malformed or invalid.');
    if (seller.accessTokens.get(token)! <= Date.now()) return denied('The access token you provided has expired.');
    const query = Object.fromEntries(url.searchParams);
    const text = req.method === 'GET' ? '' : await req.text();
    const contract = CONTRACTS.find(([prefix]) => url.pathname.startsWith(prefix))?.[1];
    if (!contract) return [404, errors('NotFound', `Resource ${url.pathname} is not found.`)];
    const violations = this.contractLog.record(contract, {
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      body: text,
      contentType: req.headers.get('content-type') ?? undefined,
    });
    if (violations.length > 0)
      return [400, { errors: violations.map((message) => ({ code: 'InvalidInput', message, details: '' })) }];
    const route = (operation: string, body?: unknown): FakeReply | undefined => {
      seller.calls.push({ operation, query, body, at: Date.now() });
      return seller.takeFault(operation);
    };
    if (req.method === 'GET' && url.pathname === '/sellers/v1/marketplaceParticipations')
      return route('getMarketplaceParticipations') ?? [200, participations];
    if (req.method === 'GET' && url.pathname === '/orders/2026-01-01/orders')
      return route('searchOrders') ?? this.#search(seller, url.searchParams);
    const one = /^\/orders\/2026-01-01\/orders\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const fault = route('getOrder');
      if (fault) return fault;
      const order = seller.orders.get(decodeURIComponent(one[1]!));
      return order ? [200, { order }] : [404, errors('NotFound', 'The order does not exist.')];
    }
    const confirm = /^\/orders\/v0\/orders\/([^/]+)\/shipmentConfirmation$/.exec(url.pathname);
    if (req.method === 'POST' && confirm) {
      const fault = route('confirmShipment', safeJson(text));
      if (fault) return fault;
      return this.#confirm(seller, decodeURIComponent(confirm[1]!), text);
    }
    const listings = /^\/listings\/2021-08-01\/items\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && listings)
      return route('searchListingsItems') ?? this.#listings(seller, decodeURIComponent(listings[1]!), url.searchParams);
    return [404, errors('NotFound', `Resource ${url.pathname} is not found.`)];
  }

  async #token(req: Request): Promise<FakeReply> {
    if (!(req.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
      return [
        400,
        { error: 'invalid_request', error_description: 'Content-Type must be application/x-www-form-urlencoded' },
      ];
    const form = Object.fromEntries(new URLSearchParams(await req.text()));
    this.tokenRequests.push(form);
    if (form.client_id !== APP.clientId || form.client_secret !== APP.clientSecret)
      return [401, { error: 'invalid_client', error_description: 'Client authentication failed' }];
    if (form.grant_type === 'authorization_code') {
      const issued = form.code ? this.codes.get(form.code) : undefined;
      if (!issued || issued.used)
        return [
          400,
          { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter : code' },
        ];
      issued.used = true;
      if (Date.now() - issued.issuedAt > CODE_LIFETIME_MS)
        return [400, { error: 'invalid_grant', error_description: 'The authorization code has expired' }];
      if (form.redirect_uri !== issued.redirectUri)
        return [
          400,
          {
            error: 'invalid_grant',
            error_description: 'redirect_uri does not match the one of the authorization request',
          },
        ];
      return this.#issue(this.sellers.get(issued.sellerId)!, true);
    }
    if (form.grant_type === 'refresh_token') {
      const seller = [...this.sellers.values()].find(
        (s) => form.refresh_token && s.refreshTokens.has(form.refresh_token),
      );
      if (!seller)
        return [
          400,
          { error: 'invalid_grant', error_description: 'The request has an invalid grant parameter : refresh_token' },
        ];
      seller.refreshes++;
      return this.#issue(seller, false);
    }
    return [
      400,
      { error: 'unsupported_grant_type', error_description: `grant_type ${form.grant_type} is not supported` },
    ];
  }

  #search(seller: FakeSeller, q: URLSearchParams): FakeReply {
    const invalid = (message: string): FakeReply => [400, errors('InvalidInput', message)];
    const token = q.get('paginationToken');
    const params = new URLSearchParams(
      [...q].filter(([k]) => k !== 'paginationToken' && k !== 'maxResultsPerPage' && k !== 'includedData').sort(),
    );
    const after = q.get('lastUpdatedAfter');
    if (!after === !q.get('createdAfter'))
      return invalid('Exactly one of createdAfter and lastUpdatedAfter must be given.');
    if (!after || !Number.isFinite(Date.parse(after)))
      return invalid('lastUpdatedAfter must be an ISO 8601 date time.');
    const statuses = (q.get('fulfillmentStatuses') ?? '').split(',').filter(Boolean);
    if (statuses.some((s) => !STATUSES.has(s)))
      return invalid(`Invalid fulfillmentStatuses: ${q.get('fulfillmentStatuses')}`);
    const by = q.get('fulfilledBy');
    if (by && by !== 'MERCHANT' && by !== 'AMAZON') return invalid(`Invalid fulfilledBy: ${by}`);
    const marketplaces = (q.get('marketplaceIds') ?? '').split(',').filter(Boolean);
    if (marketplaces.length > 50) return invalid('At most 50 marketplaceIds.');
    if (
      (q.get('includedData') ?? '')
        .split(',')
        .filter(Boolean)
        .some((d) => !INCLUDED.has(d))
    )
      return invalid(`Invalid includedData: ${q.get('includedData')}`);
    const size = Number(q.get('maxResultsPerPage') ?? 100);
    if (!Number.isInteger(size) || size < 1 || size > 100)
      return invalid('maxResultsPerPage must be between 1 and 100.');
    let offset = 0;
    let before = new Date().toISOString();
    if (token) {
      const held = this.#pageTokens.get(token);
      if (!held || held.params !== params.toString())
        return invalid('The paginationToken is invalid, expired or was issued for other parameters.');
      offset = held.offset;
      before = held.before;
    }
    const matching = [...seller.orders.values()]
      .filter((o) => o.lastUpdatedTime >= new Date(after).toISOString() && o.lastUpdatedTime <= before)
      .filter((o) => statuses.length === 0 || statuses.includes(o.fulfillment.fulfillmentStatus))
      .filter((o) => !by || o.fulfillment.fulfilledBy === by)
      .filter((o) => marketplaces.length === 0 || marketplaces.includes(o.salesChannel.marketplaceId))
      .sort((a, b) => a.lastUpdatedTime.localeCompare(b.lastUpdatedTime) || a.orderId.localeCompare(b.orderId));
    const limit = Math.min(size, this.pageSize ?? size);
    const page = matching.slice(offset, offset + limit);
    const body: Record<string, unknown> = {
      orders: page,
      ...(seller.omitLastUpdatedBefore ? {} : { lastUpdatedBefore: before }),
    };
    if (offset + limit < matching.length) {
      const next = randomBytes(12).toString('base64url');
      this.#pageTokens.set(next, { params: params.toString(), offset: offset + limit, before });
      body.pagination = { nextToken: next };
    }
    const seen = seller.seen('searchOrders').at(-1);
    if (seen && !seller.omitLastUpdatedBefore) seen.lastUpdatedBefore = before;
    return [200, body, { 'x-amzn-RateLimit-Limit': '0.0056' }];
  }

  #confirm(seller: FakeSeller, orderId: string, text: string): FakeReply {
    const invalid = (message: string): FakeReply => [400, errors('InvalidInput', message)];
    const order = seller.orders.get(orderId);
    if (!order) return [404, errors('NotFound', `Order ${orderId} not found.`)];
    const body = safeJson(text) as { marketplaceId?: unknown; packageDetail?: Record<string, unknown> } | undefined;
    const p = body?.packageDetail;
    if (!body || typeof body.marketplaceId !== 'string' || !p)
      return invalid('marketplaceId and packageDetail are required.');
    if (body.marketplaceId !== order.salesChannel.marketplaceId)
      return invalid(`The order is not in marketplace ${body.marketplaceId}.`);
    if (typeof p.packageReferenceId !== 'string')
      return invalid('The request has an invalid type [packageDetail.packageReferenceId].');
    if (!/^[1-9]\d*$/.test(p.packageReferenceId))
      return invalid('PackageReferenceId: is invalid, must be a positive numeric value.');
    if (typeof p.carrierCode !== 'string' || !CARRIERS.has(p.carrierCode))
      return invalid(`Invalid carrierCode ${String(p.carrierCode)}.`);
    if (p.carrierCode === 'Other' && (typeof p.carrierName !== 'string' || !p.carrierName))
      return invalid('carrierName is required when carrierCode is Other.');
    if (typeof p.trackingNumber !== 'string' || !p.trackingNumber) return invalid('trackingNumber is required.');
    if (typeof p.shipDate !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(p.shipDate))
      return [400, errors('Invalid Input', 'Invalid Input')];
    if (!Array.isArray(p.orderItems) || p.orderItems.length === 0)
      return invalid('OrderItemId is invalid: orderItems must be a non-empty array.');
    for (const item of p.orderItems as Array<{ orderItemId?: unknown; quantity?: unknown }>) {
      const own = order.orderItems.find((i) => i.orderItemId === item.orderItemId);
      if (!own) return invalid(`OrderItemId ${String(item.orderItemId)} is invalid.`);
      const shipped = order.packages
        .flatMap((pk) => (pk.orderItems as Array<{ orderItemId: string; quantity: number }>) ?? [])
        .filter((i) => i.orderItemId === own.orderItemId)
        .reduce((n, i) => n + i.quantity, 0);
      if (
        typeof item.quantity !== 'number' ||
        !Number.isInteger(item.quantity) ||
        item.quantity < 1 ||
        item.quantity + shipped > own.quantityOrdered
      )
        return invalid(`Quantity of ${own.orderItemId} is invalid.`);
    }
    if (order.packages.some((pk) => pk.packageReferenceId === p.packageReferenceId))
      return invalid('Failed to create package due to a duplicate packageReferenceId.');
    for (const item of p.orderItems as Array<{ orderItemId: string; quantity: number }>) {
      const own = order.orderItems.find((i) => i.orderItemId === item.orderItemId)!;
      own.fulfillment = {
        quantityFulfilled: own.fulfillment.quantityFulfilled + item.quantity,
        quantityUnfulfilled: own.fulfillment.quantityUnfulfilled - item.quantity,
      };
    }
    // The order moves on as Amazon moves it: shipped once nothing awaits, else partly.
    order.fulfillment.fulfillmentStatus = order.orderItems.every((i) => i.fulfillment.quantityUnfulfilled === 0)
      ? 'SHIPPED'
      : 'PARTIALLY_SHIPPED';
    order.lastUpdatedTime = seller.stamp();
    order.packages.push({
      packageReferenceId: p.packageReferenceId,
      carrier: p.carrierCode === 'Other' ? p.carrierName : p.carrierCode,
      carrierCode: p.carrierCode,
      trackingNumber: p.trackingNumber,
      shipDate: p.shipDate,
      orderItems: p.orderItems,
    });
    return [204, undefined, { 'x-amzn-RateLimit-Limit': '2.0', 'x-amzn-RequestId': randomBytes(8).toString('hex') }];
  }

  #listings(seller: FakeSeller, sellerId: string, q: URLSearchParams): FakeReply {
    if (sellerId !== seller.id) return denied('The seller id does not match the access token.');
    const marketplace = q.get('marketplaceIds');
    if (!marketplace) return [400, errors('InvalidInput', 'marketplaceIds is required.')];
    const size = Number(q.get('pageSize') ?? 10);
    if (!Number.isInteger(size) || size < 1 || size > 20)
      return [400, errors('InvalidInput', 'pageSize must be between 1 and 20.')];
    const start = Number(q.get('pageToken') ? Buffer.from(q.get('pageToken')!, 'base64url').toString() : '0');
    const items = seller.listings.slice(start, start + size).map((l) => ({
      sku: l.sku,
      summaries: [
        {
          marketplaceId: marketplace,
          asin: l.asin,
          productType: 'POSTER',
          conditionType: 'new_new',
          status: l.status,
          itemName: l.itemName,
          createdDate: '2026-01-01T00:00:00Z',
          lastUpdatedDate: '2026-01-01T00:00:00Z',
        },
      ],
    }));
    return [
      200,
      {
        numberOfResults: seller.listings.length,
        items,
        ...(start + size < seller.listings.length
          ? { pagination: { nextToken: Buffer.from(String(start + size)).toString('base64url') } }
          : {}),
      },
    ];
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

let nextOrder = 1;
/** An order id in Amazon's 3-7-7 form, unique in this run. */
export const amazonOrderId = () =>
  `302-${String(4_000_000 + (process.pid % 1000) * 1000 + nextOrder).padStart(7, '0')}-${String(nextOrder++).padStart(7, '0')}`;

/** The documented order with the spec's facts (status, update time, lines: one order item each). */
export function amazonOrderOf(
  seller: FakeSeller,
  spec: OrderSpec & { id: string },
  over: { fulfilledBy?: 'MERCHANT' | 'AMAZON'; status?: string } = {},
): AmazonOrderJson {
  const base = structuredClone(orderFixture) as AmazonOrderJson;
  const item = base.orderItems[0]!;
  const updated = seller.stamp(spec.updatedAt);
  const existing = seller.orders.get(spec.id);
  return {
    ...base,
    orderId: spec.id,
    createdTime: existing?.createdTime ?? updated,
    lastUpdatedTime: updated,
    fulfillment: {
      ...base.fulfillment,
      fulfillmentStatus: over.status ?? (spec.cancelled ? 'CANCELLED' : spec.paid ? 'UNSHIPPED' : 'PENDING'),
      fulfilledBy: over.fulfilledBy ?? 'MERCHANT',
    },
    orderItems: spec.lines.map((l, i) => ({
      ...item,
      orderItemId: `${spec.id.replace(/-/g, '').slice(-10)}${String(i).padStart(4, '0')}`,
      quantityOrdered: l.quantity,
      product: { ...item.product, sellerSku: l.sku as string, asin: `B0${String(i).padStart(8, '0')}` },
      fulfillment: { quantityFulfilled: 0, quantityUnfulfilled: l.quantity },
    })),
    packages: existing?.packages ?? [],
  };
}

/**
 * The install as the seller's browser goes through it: install link, consent in Seller Central, our callback. Answers
 * the callback's response.
 */
export async function consentInstall(
  service: Pick<ConformanceService, 'api' | 'toService'>,
  key: string,
  amazon: FakeAmazon,
  seller: FakeSeller,
  opts: { marketplaceIds?: string; issuedAt?: number; state?: string; code?: string } = {},
): Promise<Response> {
  const link = await service.api(key, 'POST', '/stores/install-links', {
    platform: 'AMAZON',
    ...(opts.marketplaceIds ? { marketplaceIds: opts.marketplaceIds } : {}),
    returnUrl: 'https://app.reseller.example/stores',
  });
  if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
  const begin = await fetch(service.toService(link.body.data.installUrl), { redirect: 'manual' });
  await begin.arrayBuffer();
  const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
  let back = amazon.approve(begin.headers.get('location')!, seller, opts);
  if (opts.code !== undefined) {
    const u = new URL(back);
    u.searchParams.set('spapi_oauth_code', opts.code);
    back = u.toString();
  }
  return fetch(service.toService(back), { redirect: 'manual', headers: { cookie: cookies.join('; ') } });
}

/** The kit's conformance suite's view of Amazon: sellers installed through the consent flow, polled through sync. */
export class FakeAmazonPlatform implements FakePlatform {
  readonly platform = 'AMAZON';
  readonly expiringTokens = true;
  readonly shipsTo = {
    name: 'Ada Weber',
    address1: 'Kastanienallee 12',
    address2: 'Hinterhaus, 3. OG',
    postalCode: '10435',
    city: 'Berlin',
    country: 'DE',
    phone: '+49 30 1234567',
    email: 'x7k2q9w1mzt4d8h@marketplace.amazon.de',
  };
  readonly amazon = new FakeAmazon();

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.amazon.serve(server);
    return this.amazon.settings();
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const seller = this.amazon.seller();
    const done = await consentInstall(service, key, this.amazon, seller);
    await done.arrayBuffer();
    if (done.status !== 303) throw new Error(`install callback answered ${done.status}`);
    const storeId = new URL(done.headers.get('location')!).searchParams.get('store')!;
    await eventually(
      async () => (await service.api(key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
      'the first poll',
    );
    return amazonStore(seller, storeId);
  }
}

function amazonStore(seller: FakeSeller, storeId: string): FakeStore {
  return {
    storeId,
    nextOrderId: amazonOrderId,
    saveOrder(spec) {
      const id = spec.id ?? amazonOrderId();
      seller.save(amazonOrderOf(seller, { ...spec, id }));
      return id;
    },
    async deliver() {
      throw new Error('Amazon sends no HTTP webhooks');
    },
    pushedTracking: (orderId) =>
      (seller.orders.get(orderId)?.packages ?? []).map((p) => ({ trackingNumber: String(p.trackingNumber) })),
    rateLimitNextPush(retryAfterSeconds) {
      seller.faultNext('confirmShipment', [
        429,
        errors('QuotaExceeded', 'You exceeded your quota for the requested resource.'),
        { 'Retry-After': String(retryAfterSeconds), 'x-amzn-RateLimit-Limit': '2.0' },
      ]);
      return () => seller.seen('confirmShipment').map((c) => c.at);
    },
    expireTokens: () => seller.expireTokens(),
    tokenRefreshes: () => seller.refreshes,
    async uninstall() {
      seller.revoke();
      return 200;
    },
  };
}
