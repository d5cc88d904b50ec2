import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client } from 'openapi-fetch';
import { errorFromResponse } from './errors.ts';
import type { operations, paths } from './generated/api.ts';
import { listen, type ListenOptions, type ListenSession } from './listen.ts';
import { retryingFetch } from './retrying-fetch.ts';
import { SDK_VERSION } from './version.ts';

type Op = keyof operations;
type JsonOf<O extends Op, S extends number> =
  operations[O]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;
type DataOf<O extends Op, S extends number = 200> = JsonOf<O, S> extends { data: infer D } ? D : never;
type ItemOf<O extends Op> = DataOf<O> extends Array<infer I> ? I : never;
type BodyOf<O extends Op> = operations[O] extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;
type QueryOf<O extends Op> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
/** A list's filters: the operation's query without the cursor, and `limit` as a number. */
type ListQuery<O extends Op> = Omit<QueryOf<O>, 'limit' | 'cursor'> & { limit?: number };

export type Me = DataOf<'getMe'>;
export type Product = ItemOf<'listProducts'>;
export type ProductDetail = DataOf<'getProduct'>;
export type QuoteInput = BodyOf<'createQuote'>;
export type Quote = DataOf<'createQuote'>;
export type PlaceOrderInput = BodyOf<'placeOrder'>;
/** The order as placed; `duplicate: true` when the Idempotency-Key had placed it already. */
export type OrderResult = DataOf<'placeOrder', 201>;
export type Order = DataOf<'getOrder'>;
export type Wallet = DataOf<'getWallet'>;
export type ResellerProduct = DataOf<'getResellerProduct'>;
export type ResellerProductInput = BodyOf<'createResellerProduct'>;
export type ResellerProductPatch = BodyOf<'updateResellerProduct'>;
export type WebhookEndpoint = DataOf<'getWebhook'>;
export type CreatedWebhookEndpoint = DataOf<'createWebhook', 201>;
export type WebhookInput = BodyOf<'createWebhook'>;
export type WebhookDelivery = ItemOf<'listWebhookDeliveries'>;
export type ListOrdersQuery = ListQuery<'listOrders'>;
export type ListProductsQuery = ListQuery<'listProducts'>;

/** One page of a list: the items and the cursor of the next page (null on the last). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  limit: number;
  limitCapped: boolean;
}

export interface ClientOptions {
  /** `prk_test_…` (sandbox) or `prk_live_…`. */
  apiKey: string;
  /** The API's base URL, default `http://localhost:3000/api/reseller/v1` (what `npm start` serves). */
  baseUrl?: string;
  /** Retries after a 429, or a 5xx / lost connection where repeating is safe (default 2). */
  maxRetries?: number;
  /** The longest wait the client accepts before a retry, Retry-After included (default 60 000 ms). */
  maxRetryDelayMs?: number;
  /** Each attempt's time limit (default 60 000 ms). */
  timeoutMs?: number;
  /** Added before the SDK's own User-Agent (`my-shop/2.1`); generic agents are refused by the CDN (error 1010). */
  userAgent?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
  onRetry?: (info: { attempt: number; delayMs: number; status: number | undefined; url: string }) => void;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000/api/reseller/v1';

/**
 * The Reseller Print API client. Every method returns the answer's `data` and throws a
 * `PrintApiError` subclass (with the API's `code`) otherwise; lists iterate every page.
 * `raw` is the typed openapi-fetch client, for any operation of the OpenAPI document.
 *
 * @example
 * ```ts
 * const client = createClient({ apiKey: process.env.PRINT_API_KEY! });
 * const quote = await client.quotes.create({ country: 'NL', lines: [{ productId: 'business-cards', quantity: 250 }] });
 * const order = await client.orders.create({ lines: [{ productId: 'business-cards', quantity: 250, fileUrl }],
 * recipient });
 * for await (const o of client.orders.list({ state: 'SUBMITTED' })) console.log(o.id, o.status);
 * ```
 */
export class PrintApiClient {
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: (input: Request) => Promise<Response>;
  readonly #userAgent: string;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required (prk_test_… or prk_live_…)');
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#userAgent = `${options.userAgent ? `${options.userAgent} ` : ''}print-api-sdk/${SDK_VERSION} (node ${process.versions.node})`;
    this.#fetch = retryingFetch({
      maxRetries: options.maxRetries ?? 2,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: options.fetch ?? globalThis.fetch,
      onRetry: options.onRetry,
    });
    this.raw = createFetchClient<paths>({
      baseUrl: this.baseUrl,
      headers: { authorization: `Bearer ${options.apiKey}`, 'user-agent': this.#userAgent },
      fetch: this.#fetch,
    });
  }

  /** The calling key's reseller, mode and scopes. */
  me(): Promise<Me> {
    return data(this.raw.GET('/me'));
  }

  readonly products = {
    /** Every catalogue product matching the filters, page after page. */
    list: (query: ListProductsQuery = {}): AsyncIterable<Product> =>
      this.#iterate((q) => this.raw.GET('/products', { params: { query: q } }), query),
    listPage: (query: ListProductsQuery & { cursor?: string } = {}): Promise<Page<Product>> =>
      page(this.raw.GET('/products', { params: { query: pageQuery(query) } })),
    /** A product with its options, defaults and file requirements (id or slug in any language). */
    get: (id: string, query: QueryOf<'getProduct'> = {}): Promise<ProductDetail> =>
      data(this.raw.GET('/products/{id}', { params: { path: { id }, query } })),
  };

  readonly quotes = {
    /** Prices lines for a destination country (discount, VAT and shipping included). */
    create: (input: QuoteInput): Promise<Quote> => data(this.raw.POST('/quotes', { body: input })),
  };

  readonly orders = {
    /**
     * Places an order. An Idempotency-Key is made for the call (a UUID) unless you pass one;
     * retries of the call reuse it, so a lost answer never places a second order. Pass your own
     * (e.g. your shop's order id) to make repeats across processes safe too.
     */
    create: (input: PlaceOrderInput, options: { idempotencyKey?: string } = {}): Promise<OrderResult> =>
      data(
        this.raw.POST('/orders', {
          body: input,
          params: { header: { 'Idempotency-Key': options.idempotencyKey ?? randomUUID() } },
        }),
        [200, 201],
      ),
    get: (id: string): Promise<Order> => data(this.raw.GET('/orders/{id}', { params: { path: { id } } })),
    /**
     * Every order matching the filters, newest first, page after page: `for await (const order of
     * client.orders.list())`.
     */
    list: (query: ListOrdersQuery = {}): AsyncIterable<Order> =>
      this.#iterate((q) => this.raw.GET('/orders', { params: { query: q } }), query),
    listPage: (query: ListOrdersQuery & { cursor?: string } = {}): Promise<Page<Order>> =>
      page(this.raw.GET('/orders', { params: { query: pageQuery(query) } })),
    /** Cancels while production has not started (409 `order_not_cancellable` after). */
    cancel: (id: string): Promise<Order> => data(this.raw.POST('/orders/{id}/cancel', { params: { path: { id } } })),
    /** Supplies or replaces a line's print file while the order is AWAITING_FILE. */
    replaceLineFile: (id: string, line: number, fileUrl: string): Promise<Order> =>
      data(
        this.raw.PUT('/orders/{id}/lines/{line}/file', {
          params: { path: { id, line: String(line) } },
          body: { fileUrl },
        }),
      ),
  };

  readonly wallet = {
    /** The balance (euro cents) and the first page of the ledger. */
    get: (query: { limit?: number; cursor?: string } = {}): Promise<Wallet> =>
      data(this.raw.GET('/wallet', { params: { query: pageQuery(query) } })),
  };

  readonly resellerProducts = {
    list: (query: ListQuery<'listResellerProducts'> = {}): AsyncIterable<ResellerProduct> =>
      this.#iterate((q) => this.raw.GET('/reseller-products', { params: { query: q } }), query),
    create: (input: ResellerProductInput): Promise<ResellerProduct> =>
      data(this.raw.POST('/reseller-products', { body: input }), [201]),
    get: (idOrSku: string): Promise<ResellerProduct> =>
      data(this.raw.GET('/reseller-products/{id}', { params: { path: { id: idOrSku } } })),
    update: (idOrSku: string, patch: ResellerProductPatch): Promise<ResellerProduct> =>
      data(this.raw.PATCH('/reseller-products/{id}', { params: { path: { id: idOrSku } }, body: patch })),
    delete: (idOrSku: string) =>
      data(this.raw.DELETE('/reseller-products/{id}', { params: { path: { id: idOrSku } } })),
  };

  readonly webhooks = {
    list: (): AsyncIterable<WebhookEndpoint> =>
      this.#iterate((q) => this.raw.GET('/webhooks', { params: { query: q } }), {}),
    /** Registers an https endpoint; the answer carries its `secret`, shown only this once. */
    create: (input: WebhookInput): Promise<CreatedWebhookEndpoint> =>
      data(this.raw.POST('/webhooks', { body: input }), [201]),
    get: (id: string): Promise<WebhookEndpoint> => data(this.raw.GET('/webhooks/{id}', { params: { path: { id } } })),
    delete: (id: string) => data(this.raw.DELETE('/webhooks/{id}', { params: { path: { id } } })),
    deliveries: (id: string, query: ListQuery<'listWebhookDeliveries'> = {}): AsyncIterable<WebhookDelivery> =>
      this.#iterate((q) => this.raw.GET('/webhooks/{id}/deliveries', { params: { path: { id }, query: q } }), query),
  };

  readonly events = {
    /**
     * Streams this key's events (a test key: sandbox events) and, with `forwardTo`, POSTs each
     * to that URL signed exactly like a webhook delivery, with the session's secret
     * (`session.secret`). Your process makes the local request: nothing has to reach your
     * machine. A dropped stream resumes after the last event received.
     */
    listen: (options: ListenOptions = {}): ListenSession =>
      listen({
        ...options,
        url: `${this.baseUrl}/events/stream`,
        apiKey: this.#apiKey,
        userAgent: this.#userAgent,
        fetch: options.fetch ?? globalThis.fetch,
      }),
  };

  /** Page after page until nextCursor is null. */
  async *#iterate<T, Q extends { limit?: number }>(
    fetchPage: (query: Record<string, string>) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
    query: Q,
  ): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const result = await page<T>(fetchPage(pageQuery({ ...query, cursor }) as Record<string, string>));
      yield* result.data;
      cursor = result.nextCursor ?? undefined;
    } while (cursor);
  }
}

/** A client for `apiKey`; see `ClientOptions`. */
export function createClient(options: ClientOptions): PrintApiClient {
  return new PrintApiClient(options);
}

/** The query as sent: numbers as text, undefined left out. */
function pageQuery<Q extends Record<string, unknown>>(query: Q): any {
  return Object.fromEntries(
    Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, typeof v === 'number' ? String(v) : v]])),
  );
}

async function data<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  ok: number[] = [200],
): Promise<T extends { data: infer D } ? D : never> {
  const { data: body, error, response } = await call;
  if (!ok.includes(response.status) || body === undefined) throw errorFromResponse(response, error);
  return (body as { data: any }).data;
}

async function page<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Page<T>> {
  const { data: body, error, response } = await call;
  if (!response.ok || body === undefined) throw errorFromResponse(response, error);
  return body as Page<T>;
}
