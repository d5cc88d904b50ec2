import { createHmac, randomBytes } from 'node:crypto';
import nock from 'nock';
import { shopifyWebhook } from './webhook-signer.ts';
import accessTokenFixture from './fixtures/access-token.json' with { type: 'json' };
import throttled from './fixtures/graphql-throttled.json' with { type: 'json' };
import { requestViolations, responseViolations } from './shopify-contract.ts';
import { CATALOGUE_SCOPES, catalogueOperation, type FakeProduct } from './fake-shopify-catalogue.ts';

import { type FulfillmentOrder, orderOperation, type OrderShop, type ShopifyOrderJson } from './fake-shopify-orders.ts';

export type { FakeProduct } from './fake-shopify-catalogue.ts';
export type { ShopifyOrderJson } from './fake-shopify-orders.ts';

export type Reply = [number, unknown, Record<string, string>?];

export interface SeenCall {
  operation: string;
  variables: Record<string, any>;
  token: string | null;
  at: number;
}

const API = '/admin/api/2026-01/graphql.json';

/** Every fake store's contract violations since the last `takeContractViolations`. */
const violations: string[] = [];

/** What the Admin API schema refused since the last call, in every fake store (each test checks it is nothing). */
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

const ALL_SCOPES = [
  'read_orders',
  'read_products',
  'read_merchant_managed_fulfillment_orders',
  'write_merchant_managed_fulfillment_orders',
  'write_products',
  'read_publications',
  'write_publications',
];
const cost = (requested: number) => ({
  cost: {
    requestedQueryCost: requested,
    actualQueryCost: Math.min(requested, 12),
    throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1988, restoreRate: 100 },
  },
});

/**
 * A Shopify store behind nock, answering from memory what our connector calls: the OAuth
 * consent (`approve`, with Shopify's query HMAC), the token endpoint (authorization code with
 * `expiring=1`, refresh-token grant with rotation), and the GraphQL Admin API operations
 * (shop, webhook subscriptions, orders by `updated_at` with cursor pages, fulfillment orders,
 * `fulfillmentCreate`), with cost throttling and faults on demand. It delivers signed
 * webhooks to our service as Shopify would (`deliver`, `compliance`).
 */
export class FakeShopifyStore implements OrderShop {
  readonly domain: string;
  readonly app: { apiKey: string; secret: string };
  scopes = [...ALL_SCOPES];
  readonly customToken = `shpat_${randomBytes(16).toString('hex')}`;
  readonly customSecret = randomBytes(16).toString('hex');
  readonly orders = new Map<string, ShopifyOrderJson>();
  readonly fulfillmentOrders = new Map<string, FulfillmentOrder[]>();
  readonly fulfillments: Array<{
    fulfillmentOrderId: string;
    items: Array<{ id: string; quantity: number }>;
    trackingInfo: unknown;
    notifyCustomer: boolean;
  }> = [];
  readonly subscriptions: Array<{ id: string; topic: string; uri: string }> = [];
  /**
   * Every request (and answer of ours) the Admin API schema refused: a test fails on any (`takeContractViolations`).
   */
  readonly contractViolations: string[] = [];
  /** The shop's currency: products are priced in it. */
  currency = 'EUR';
  /** The shop's country (Settings > Store details > address): `shopAddress.countryCodeV2`, null when unset. */
  country: string | null = 'NL';
  /** The shop's catalogue: products (status ACTIVE, DRAFT or ARCHIVED) and their variants, by product id. */
  readonly products = new Map<number, FakeProduct>();
  readonly calls: SeenCall[] = [];
  readonly tokenRequests: Array<Record<string, string>> = [];
  readonly #tokens = new Map<string, number>();
  readonly #refreshTokens = new Set<string>();
  readonly #codes = new Set<string>();
  readonly #faults: Array<{ operation: string; reply: Reply | 'throttle'; remaining: number }> = [];
  readonly #ourBaseUrl: string;
  readonly #publicUrl: string;
  /** Where the shop's Admin API and OAuth pages are: `https://<domain>`, or under a sandbox's `apiUrl`. */
  readonly origin: string;
  readonly #tokenLifetimeSeconds: number;
  #next = 1;
  /** The next id of something the shop creates (webhook subscription, fulfillment, product). */
  nextId(): number {
    return this.#next++;
  }

  /** `apiUrl`: the shop behind a sandbox (CONNECTOR_SHOPIFY_API_URL, `{shop}` standing for its domain). */
  /**
   * `served`: a real local HTTPS server answers the shop's requests through `answer` (at
   * `apiUrl`) instead of nock. `tokenLifetimeSeconds`: what expiring access tokens live (Shopify: an hour).
   */
  constructor(opts: {
    name: string;
    app: { apiKey: string; secret: string };
    ourBaseUrl: string;
    publicUrl: string;
    apiUrl?: string;
    served?: boolean;
    tokenLifetimeSeconds?: number;
  }) {
    this.domain = `${opts.name}.myshopify.com`;
    this.app = opts.app;
    this.#ourBaseUrl = opts.ourBaseUrl;
    this.#publicUrl = opts.publicUrl;
    this.origin = (opts.apiUrl ?? 'https://{shop}').replaceAll('{shop}', this.domain).replace(/\/+$/, '');
    this.#tokens.set(this.customToken, Number.POSITIVE_INFINITY);
    this.#tokenLifetimeSeconds = opts.tokenLifetimeSeconds ?? accessTokenFixture.expires_in;
    if (opts.served) return;
    const base = new URL(this.origin);
    const prefix = base.pathname.replace(/\/$/, '');
    const scope = nock(base.origin).persist();
    scope.post(`${prefix}${API}`).reply(async (req: Request) => this.#graphql(req));
    scope
      .post(`${prefix}/admin/oauth/access_token`)
      .reply(async (req: Request) => this.#token((await req.json()) as Record<string, string>));
  }

  /**
   * The next `times` calls of `operation` are throttled (a 200 with "Throttled", as Shopify answers) or get `reply`.
   */
  faultNext(operation: string, reply: Reply | 'throttle', times = 1): void {
    this.#faults.push({ operation, reply, remaining: times });
  }

  seen(operation: string): SeenCall[] {
    return this.calls.filter((c) => c.operation === operation);
  }

  /** Expires every access token issued so far (as one hour passing would). */
  expireTokens(): void {
    for (const token of this.#tokens.keys()) if (token !== this.customToken) this.#tokens.set(token, 0);
  }

  /** Puts an order in the store (as a checkout or an edit would) without delivering anything. */
  save(order: ShopifyOrderJson): ShopifyOrderJson {
    this.orders.set(String(order.id), structuredClone(order));
    if (!this.fulfillmentOrders.has(String(order.id))) {
      const items = order.line_items
        .filter((l) => l.requires_shipping)
        .map((l) => ({
          id: `gid://shopify/FulfillmentOrderLineItem/${l.id + 1_000_000}`,
          lineItemId: l.admin_graphql_api_id,
          sku: l.sku,
          remaining: l.current_quantity,
        }));
      this.fulfillmentOrders.set(String(order.id), [
        { id: `gid://shopify/FulfillmentOrder/${order.id + 7}`, status: 'OPEN', items },
      ]);
    }
    return order;
  }

  /** Puts a product in the catalogue (as the merchant's admin would), without delivering anything. */
  saveProduct(product: FakeProduct): FakeProduct {
    this.products.set(product.id, structuredClone(product));
    return product;
  }

  /** Delivers `order` as the `topic` webhook of this store's subscription; answers our HTTP status. */
  async deliver(
    order: unknown,
    topic: string,
    opts: { secret?: string; eventId?: string; triggeredAt?: string } = {},
  ): Promise<number> {
    const sub = this.subscriptions.find((s) => s.topic === topic.toUpperCase().replace('/', '_'));
    if (!sub) throw new Error(`${this.domain} has no ${topic} subscription`);
    return this.post(
      sub.uri,
      shopifyWebhook({
        payload: order,
        secret: opts.secret ?? this.app.secret,
        topic,
        shop: this.domain,
        apiVersion: '2026-01',
        ...pick(opts, ['eventId', 'triggeredAt']),
      }),
    );
  }

  /** A mandatory compliance delivery, sent to the app-level URL of the app's configuration. */
  async compliance(topic: string, payload: unknown, secret = this.app.secret): Promise<number> {
    return this.post(
      `${this.#publicUrl}/connectors/shopify/webhooks/compliance`,
      shopifyWebhook({ payload, secret, topic, shop: this.domain, apiVersion: '2026-01' }),
    );
  }

  async post(url: string, req: { headers: Record<string, string>; body: string }): Promise<number> {
    const res = await fetch(url.replace(this.#publicUrl, this.#ourBaseUrl), {
      method: 'POST',
      headers: { ...req.headers, 'user-agent': 'Shopify-Captain-Hook' },
      body: req.body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  /**
   * The merchant approves our app on `/admin/oauth/authorize`: Shopify sends them back to
   * `redirect_uri` with `code`, `hmac` (hex HMAC-SHA256 of the sorted query, app secret),
   * `host`, `shop`, `state` and `timestamp`. Answers that callback URL.
   */
  approve(authorizeUrl: string, tamper: (q: Record<string, string>) => Record<string, string> = (q) => q): string {
    const url = new URL(authorizeUrl);
    if (`${url.origin}${url.pathname}` !== `${this.origin}/admin/oauth/authorize`)
      throw new Error(`not this shop's consent screen: ${authorizeUrl}`);
    const p = url.searchParams;
    if (p.get('client_id') !== this.app.apiKey) throw new Error('unknown client_id');
    this.scopes = (p.get('scope') ?? '').split(',');
    const code = randomBytes(16).toString('hex');
    this.#codes.add(code);
    const query = tamper({
      code,
      host: Buffer.from(`admin.shopify.com/store/${this.domain.split('.')[0]}`).toString('base64url'),
      shop: this.domain,
      state: p.get('state') ?? '',
      timestamp: String(Math.floor(Date.now() / 1000)),
    });
    const signed = new URLSearchParams({ ...query, hmac: shopifyQueryHmac(query, this.app.secret) });
    return `${p.get('redirect_uri')}?${signed.toString()}`.replace(this.#publicUrl, this.#ourBaseUrl);
  }

  /**
   * Answers one request to the shop (its path relative to the shop's origin): the token endpoint and the GraphQL Admin
   * API.
   */
  async answer(req: Request): Promise<Reply> {
    const path = new URL(req.url).pathname;
    if (req.method === 'POST' && path === API) return this.#graphql(req);
    if (req.method === 'POST' && path === '/admin/oauth/access_token')
      return this.#token((await req.json()) as Record<string, string>);
    return [404, { errors: 'Not Found' }];
  }

  #token(body: Record<string, string>): Reply {
    this.tokenRequests.push(body);
    if (body.client_id !== this.app.apiKey || body.client_secret !== this.app.secret)
      return [400, { error: 'invalid_client', error_description: 'Client authentication failed' }];
    if (body.grant_type === 'refresh_token') {
      if (!this.#refreshTokens.delete(body.refresh_token ?? ''))
        return [400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or expired' }];
    } else if (!this.#codes.delete(body.code ?? '')) {
      return [
        400,
        { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' },
      ];
    }
    const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
    const refreshToken = `shprt_${randomBytes(16).toString('hex')}`;
    const expiring = body.expiring === '1' || body.grant_type === 'refresh_token';
    this.#tokens.set(accessToken, expiring ? Date.now() + this.#tokenLifetimeSeconds * 1000 : Number.POSITIVE_INFINITY);
    if (!expiring) return [200, { access_token: accessToken, scope: this.scopes.join(',') }];
    this.#refreshTokens.add(refreshToken);
    return [
      200,
      {
        ...accessTokenFixture,
        expires_in: this.#tokenLifetimeSeconds,
        access_token: accessToken,
        refresh_token: refreshToken,
        scope: this.scopes.join(','),
      },
    ];
  }

  #violated(found: string[]): void {
    this.contractViolations.push(...found);
    violations.push(...found.map((v) => `${this.domain}: ${v}`));
  }

  async #graphql(req: Request): Promise<Reply> {
    const { query, variables } = (await req.json()) as { query: string; variables: Record<string, any> };
    const operation = /^(?:query|mutation)\s+(\w+)/.exec(query.trim())?.[1] ?? 'anonymous';
    const token = req.headers.get('x-shopify-access-token');
    this.calls.push({ operation, variables, token, at: Date.now() });
    // Shopify validates the document and its variables against the version's schema first: 200 with `errors`, nothing
    // run.
    const refused = requestViolations(query, variables ?? {});
    if (refused.length) {
      this.#violated(refused.map((r) => `${operation}: ${r}`));
      return [
        200,
        { errors: refused.map((message) => ({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) },
      ];
    }
    if (!token || !((this.#tokens.get(token) ?? 0) > Date.now()))
      return [401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }];
    const denied = this.#accessDenied(operation);
    if (denied) return [200, denied];
    const fault = this.#faults.find((f) => f.operation === operation && f.remaining > 0);
    if (fault) {
      fault.remaining--;
      if (fault.reply === 'throttle') return [200, throttled];
      return fault.reply;
    }
    const data = this.#operation(operation, variables);
    if (!data) return [200, { errors: [{ message: `unknown operation ${operation}` }] }];
    // The fake's own answer must keep to the schema too (a misread field or enum would pass unseen otherwise).
    const wrong = responseViolations(query, variables ?? {}, data);
    if (wrong.length) {
      this.#violated(wrong.map((w) => `answer to ${operation}: ${w}`));
      return [500, { errors: [{ message: `the fake's answer breaks the Admin API schema: ${wrong.join('; ')}` }] }];
    }
    return [200, { data, extensions: cost(10) }];
  }

  /** Shopify's answer to a field the token has no scope for (`write_x` grants `read_x`). */
  #accessDenied(operation: string): unknown {
    const needs = CATALOGUE_SCOPES[operation];
    if (!needs) return null;
    const granted = (scope: string) =>
      this.scopes.includes(scope) || (scope.startsWith('read_') && this.scopes.includes(`write_${scope.slice(5)}`));
    if (granted(needs.scope)) return null;
    const requiredAccess = `\`${needs.scope}\` access scope.`;
    return {
      errors: [
        {
          message: `Access denied for ${needs.field} field. Required access: ${requiredAccess}`,
          path: [needs.field],
          extensions: {
            code: 'ACCESS_DENIED',
            documentation: 'https://shopify.dev/api/usage/access-scopes',
            requiredAccess,
          },
        },
      ],
      data: null,
    };
  }

  #operation(operation: string, v: Record<string, any>): unknown {
    switch (operation) {
      case 'ShopForConnection':
        return {
          shop: { name: 'Tulip Prints', myshopifyDomain: this.domain },
          currentAppInstallation: { accessScopes: this.scopes.map((handle) => ({ handle })) },
        };
      case 'OurWebhookSubscriptions':
        return { webhookSubscriptions: { nodes: this.subscriptions.filter((s) => s.uri === v.uri) } };
      case 'SubscribeWebhook': {
        const sub = { id: `gid://shopify/WebhookSubscription/${this.nextId()}`, topic: v.topic, uri: v.uri };
        this.subscriptions.push(sub);
        return { webhookSubscriptionCreate: { webhookSubscription: sub, userErrors: [] } };
      }
      case 'ProductVariantsPage': {
        const all = [...this.products.values()]
          .flatMap((p) => p.variants.map((variant) => ({ p, variant })))
          .sort((a, b) => a.variant.id - b.variant.id);
        const start = v.after ? Number(Buffer.from(v.after, 'base64url').toString()) : 0;
        const page = all.slice(start, start + Math.min(v.first, 250));
        const end = start + page.length;
        const nodes = page.map(({ p, variant }) => ({
          id: `gid://shopify/ProductVariant/${variant.id}`,
          legacyResourceId: String(variant.id),
          sku: variant.sku,
          title: variant.title,
          product: {
            id: `gid://shopify/Product/${p.id}`,
            legacyResourceId: String(p.id),
            title: p.title,
            status: p.status,
          },
        }));
        return {
          productVariants: {
            pageInfo: {
              hasNextPage: end < all.length,
              endCursor: page.length ? Buffer.from(String(end)).toString('base64url') : null,
            },
            nodes,
          },
        };
      }
      default:
        return (
          orderOperation(this, operation, v) ??
          catalogueOperation(
            {
              products: this.products,
              currency: this.currency,
              country: this.country,
              nextId: () => 8_000_000_000 + this.nextId(),
            },
            operation,
            v,
          )
        );
    }
  }
}

/** Shopify's OAuth query signature: hex HMAC-SHA256 of the sorted, URL-encoded query without `hmac`. */
export function shopifyQueryHmac(query: Record<string, string>, secret: string): string {
  const sorted = new URLSearchParams(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)));
  return createHmac('sha256', secret).update(sorted.toString().replace(/\+/g, '%20')).digest('hex');
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])) as Partial<Pick<T, K>>;
}
