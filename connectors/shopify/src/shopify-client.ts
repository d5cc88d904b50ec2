import type { ConnectorLogger, HttpClient } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { API_VERSION } from './config.ts';
import { parseJsonExact } from './order-mapper.ts';

/** `extensions.cost` of a GraphQL Admin API answer. */
export interface QueryCost {
  requestedQueryCost?: number;
  actualQueryCost?: number | null;
  throttleStatus?: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
}

interface GraphqlBody {
  data?: unknown;
  errors?: Array<{ message?: string; extensions?: { code?: string } }> | string;
  extensions?: { cost?: QueryCost };
}

/** A throttled call is retried here while the wait is short; longer waits go back to the queue. */
const MAX_INLINE_WAIT_MS = 10_000;
const MAX_INLINE_RETRIES = 4;

/** How long the bucket needs to refill enough for the query (Shopify's leaky bucket), at least 250 ms. */
export function throttleWaitMs(cost: QueryCost | undefined): number {
  const status = cost?.throttleStatus;
  if (!status || !(status.restoreRate > 0)) return 1000;
  const needed = (cost?.requestedQueryCost ?? 0) - status.currentlyAvailable;
  return Math.max(250, Math.ceil((Math.max(needed, 0) / status.restoreRate) * 1000));
}

/**
 * The Admin GraphQL API of one shop, and nothing else: `POST /admin/api/<version>/graphql.json`
 * with the store's access token, through core's HttpClient. Failures become typed errors:
 * 401/403 and ACCESS_DENIED -> `auth`; 5xx and network -> `upstream_unavailable`;
 * cost throttling ("Throttled" in a 200, or a 429 without Retry-After) -> wait for the bucket
 * to refill (`extensions.cost.throttleStatus`) and try again, or `rate_limited` with that wait
 * when it is long, so the job waits in its queue instead of failing. (A 429 with Retry-After,
 * REST-style, is the HttpClient's to wait out.)
 */
export class ShopifyClient {
  readonly #http: HttpClient;
  readonly #shop: string;
  readonly #origin: string;
  readonly #accessToken: string;
  readonly #logger: ConnectorLogger | undefined;
  readonly #sleep: (ms: number) => Promise<void>;

  /** `origin`: where the shop's Admin API is (`CONNECTOR_SHOPIFY_API_URL`); `https://<shop>` by default. */
  constructor(deps: {
    http: HttpClient;
    shop: string;
    origin?: string;
    accessToken: string;
    logger?: ConnectorLogger;
    sleep?: (ms: number) => Promise<void>;
  }) {
    this.#http = deps.http;
    this.#shop = deps.shop;
    this.#origin = deps.origin ?? `https://${deps.shop}`;
    this.#accessToken = deps.accessToken;
    this.#logger = deps.logger;
    this.#sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  get shop(): string {
    return this.#shop;
  }

  /** Runs a query or mutation and returns its `data`. */
  async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    // Our queries are constants with names: the metrics' operation (a small, fixed set).
    const operation = /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? 'graphql';
    for (let attempt = 0; ; attempt++) {
      const res = await this.#http.request({
        operation,
        method: 'POST',
        url: `${this.#origin}/admin/api/${API_VERSION}/graphql.json`,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-shopify-access-token': this.#accessToken,
        },
        body: JSON.stringify({ query, variables }),
      });
      let body: GraphqlBody | undefined;
      try {
        body = res.body ? (parseJsonExact(res.body) as GraphqlBody) : undefined;
      } catch {
        body = undefined;
      }
      const throttled =
        res.status === 429 ||
        (Array.isArray(body?.errors) &&
          body.errors.some((e) => e.extensions?.code === 'THROTTLED' || e.message === 'Throttled'));
      if (throttled) {
        // A 429 with Retry-After never gets here: core's client waits it out or fails rate_limited.
        const waitMs = throttleWaitMs(body?.extensions?.cost);
        if (waitMs > MAX_INLINE_WAIT_MS || attempt >= MAX_INLINE_RETRIES) {
          throw new ConnectorError(
            'rate_limited',
            `Shopify throttled ${this.#shop}: the query cost bucket refills in ${waitMs} ms`,
            { retryAfterMs: waitMs, status: res.status },
          );
        }
        this.#logger?.info('Shopify throttled the query; waiting for the cost bucket', { shop: this.#shop, waitMs });
        await this.#sleep(waitMs);
        continue;
      }
      if (res.status !== 200)
        throw ConnectorError.fromStatus(`Shopify (${this.#shop})`, res.status, res.body, res.headers['retry-after']);
      if (!body)
        throw new ConnectorError(
          'upstream_unavailable',
          `Shopify (${this.#shop}) answered 200 with a body that is not JSON`,
        );
      if (body.errors) {
        const errors = Array.isArray(body.errors) ? body.errors : [{ message: body.errors }];
        const message = errors.map((e) => e.message ?? 'error').join('; ');
        if (errors.some((e) => e.extensions?.code === 'ACCESS_DENIED'))
          throw new ConnectorError('auth', `Shopify (${this.#shop}) denied access: ${message}`);
        if (errors.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR'))
          throw new ConnectorError('upstream_unavailable', `Shopify (${this.#shop}) failed: ${message}`);
        throw new ConnectorError('invalid_payload', `Shopify (${this.#shop}) refused the query: ${message}`);
      }
      if (body.data === undefined || body.data === null)
        throw new ConnectorError('invalid_payload', `Shopify (${this.#shop}) answered without data`);
      return body.data as T;
    }
  }
}

/** Mutation `userErrors`: anything there means Shopify did not do it. */
export function assertNoUserErrors(
  userErrors: Array<{ field?: string[] | null; message: string }> | undefined,
  what: string,
): void {
  if (!userErrors || userErrors.length === 0) return;
  const detail = userErrors.map((e) => (e.field?.length ? `${e.field.join('.')}: ${e.message}` : e.message)).join('; ');
  throw new ConnectorError('invalid_payload', `Shopify refused to ${what}: ${detail}`);
}
