import { randomBytes } from 'node:crypto';
import {
  answerWith,
  ContractLog,
  OpenApiContract,
  type FakeHttpsServer,
  type FakeReply,
} from '@print-api/connector-kit/testing';
import orderFixture from './fixtures/order.json' with { type: 'json' };
import listingsModel from './fixtures/contract/listingsItems_2021-08-01.json' with { type: 'json' };
import orders2026Model from './fixtures/contract/orders_2026-01-01.json' with { type: 'json' };
import ordersV0Model from './fixtures/contract/ordersV0.json' with { type: 'json' };
import sellersModel from './fixtures/contract/sellers.json' with { type: 'json' };
import participations from './fixtures/marketplace-participations.json' with { type: 'json' };
import {
  confirmShipment,
  denied,
  errors,
  safeJson,
  type SearchPages,
  searchListingsItems,
  searchOrders,
} from './fake-amazon-operations.ts';

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
const CODE_LIFETIME_MS = 5 * 60_000;

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
  url = '';
  readonly #pageTokens: SearchPages['tokens'] = new Map();
  /** A page size a test forces (smaller than asked). */
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
      return (
        route('searchOrders') ??
        searchOrders(seller, url.searchParams, { tokens: this.#pageTokens, pageSize: this.pageSize })
      );
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
      return confirmShipment(seller, decodeURIComponent(confirm[1]!), text);
    }
    const listings = /^\/listings\/2021-08-01\/items\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && listings)
      return (
        route('searchListingsItems') ?? searchListingsItems(seller, decodeURIComponent(listings[1]!), url.searchParams)
      );
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
}
