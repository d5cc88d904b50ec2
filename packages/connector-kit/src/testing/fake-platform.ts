import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request as a fake platform's server received it (raw bytes, as a signature check needs them). */
export type FakeRequestHandler = (req: IncomingMessage, res: ServerResponse, rawBody: Buffer) => void | Promise<void>;

/**
 * A real HTTPS server on 127.0.0.1 (`https://localhost:PORT`) that the service under test trusts.
 * A fake platform serves its whole wire format from it.
 */
export interface FakeHttpsServer {
  url: string;
  /** Serves `path` (exact, query ignored) with `handler`. */
  route(path: string, handler: FakeRequestHandler): void;
  /** Serves every request no route matches (a platform with ids in its paths, or stores under prefixes). */
  fallback(handler: FakeRequestHandler): void;
  close(): Promise<void>;
}

/** What the suite's service offers a fake: our API, and the way from a public URL to the service. */
export interface ConformanceService {
  /** Where the service listens (`http://127.0.0.1:PORT`). */
  baseUrl: string;
  /** The service's PUBLIC_URL: what webhook and callback URLs the connector registers start with. */
  publicUrl: string;
  /** A URL the connector registered (under PUBLIC_URL) rewritten to where the service listens. */
  toService(url: string): string;
  /** Calls the reseller API (`/api/reseller/v1` + path) with a key; JSON in, JSON out. */
  api<T = any>(
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
}

/**
 * An order as the shared scenarios describe it; each fake turns it into its platform's own
 * JSON (from its fixtures) with these facts.
 */
export interface OrderSpec {
  /** The platform's order id: the fake picks one when absent, and answers it. */
  id?: string;
  paid: boolean;
  cancelled?: boolean;
  /** When the platform last changed the order (ISO 8601); the fake's own clock when absent. */
  updatedAt?: string;
  lines: Array<{ sku: string | null; quantity: number }>;
}

/** What the platform did with a fulfilment we pushed back: its tracking, as the platform recorded it. */
export interface PushedTracking {
  trackingNumber: string;
  trackingUrl?: string;
}

/** How a delivery is tampered with, for the signature scenarios. */
export type DeliveryTamper = 'forged' | 'stale';

/** The order events every platform has; each fake sends them as its platform's webhook topics. */
export type OrderEvent = 'created' | 'updated' | 'paid' | 'cancelled';

/** One store on the fake platform, connected to the service for the reseller `key`. */
export interface FakeStore {
  /** Our store id (`sto_…`), answered by the connect. */
  storeId: string;
  /** The id the platform gives its next order (taken: the next call answers another). */
  nextOrderId(): string;
  /** Puts (or replaces) an order in the store without delivering anything; answers its id. */
  saveOrder(spec: OrderSpec): string;
  /**
   * Delivers `order` (this state of it, which may be older than the one the store holds: an
   * out-of-order delivery) as the platform's webhook for `event`; answers our HTTP status. `tamper`: `forged` signs
   * with a wrong secret; `stale` makes a delivery the
   * connector must refuse as a replay (an old timestamp, or the platform's equivalent).
   * Platforms that redeliver with the same id (duplicates) do so when `deliveryId` repeats.
   * Never called for a platform without webhooks (`capabilities.webhooks` false): the suite
   * saves the order and syncs the store instead (its fake may throw here).
   */
  deliver(
    order: OrderSpec & { id: string },
    event: OrderEvent,
    opts?: { tamper?: DeliveryTamper; deliveryId?: string },
  ): Promise<number>;
  /** The tracking the connector pushed back for the order, in the order it arrived. */
  pushedTracking(orderId: string): PushedTracking[];
  /**
   * The platform's next answer to the fulfilment push is a rate limit (429 with
   * `Retry-After: retryAfterSeconds`); answers a function reading when each push attempt came (ms).
   */
  rateLimitNextPush(retryAfterSeconds: number): () => number[];
  /** Expires every access token issued so far (for platforms with expiring tokens). */
  expireTokens?(): void;
  /** How many times a token was refreshed (refresh-token grants answered). */
  tokenRefreshes?(): number;
  /**
   * The merchant removes our app on the platform, and the platform tells us (a webhook).
   * Absent where the platform sends nothing: the suite then disconnects through `DELETE /stores/{id}`.
   * On a platform without webhooks: the merchant withdraws our access (answer 200 once done),
   * and the next call to the platform must find out and disconnect the store with a reason.
   */
  uninstall?(): Promise<number>;
  /**
   * A product as the store holds it now (publishing platforms: the suite's publishing scenarios
   * check what `publishListing` and `updateListing` made): its SKU, title, price as the platform
   * writes it (a decimal string in the store's currency) and whether it is on sale; undefined
   * when the store has no such product.
   */
  product?(
    externalProductId: string,
  ): { sku: string | null; title: string; price: string; active: boolean } | undefined;
  /**
   * The `platformOptions` a merchant of this store gives a publish (Etsy: the shop's taxonomy,
   * shipping profile, processing profile and return policy); absent where the platform needs none.
   */
  publishOptions?: Record<string, unknown>;
  /**
   * What the merchant does on the platform before a draft made by publishing can go on sale
   * (Etsy: uploads an image in Shop Manager, as it takes no image URL). Implemented by the fake
   * of a platform whose publish yields drafts (`FakePlatform.publishYields`).
   */
  completeListing?(externalProductId: string): void;
}

/**
 * A local stand-in for a storefront platform: a real HTTPS server speaking the platform's
 * wire format, holding orders, checking the auth the platform checks, recording calls.
 *
 * @example
 * ```ts
 * connectorConformance({
 *   connector: shopifyConnector,
 *   fakePlatform: () => new FakeShopify(),
 * });
 * ```
 */
export interface FakePlatform {
  /** The platform, as in `source` (`SHOPIFY`). */
  platform: string;
  /** Where the fake's orders ship to, as the order's `recipient` must show it (every field given is compared). */
  shipsTo: Record<string, string>;
  /** Access tokens expire and are refreshed with a refresh token (Shopify's expiring offline tokens). */
  expiringTokens: boolean;
  /**
   * Its stores hold the products the connector publishes (`FakeStore.product`): the suite's
   * publishing scenarios run for a connector declaring `capabilities.publishing` whose fake says so.
   */
  readonly holdsProducts?: boolean;
  /**
   * What a publish (`published` true) yields on this platform: `active` (the default), or `draft`
   * where the platform lists nothing until the merchant completes it there (Etsy). The publishing
   * scenarios then expect a draft with a notice saying what it needs, complete it
   * (`FakeStore.completeListing`) and put it on sale with `PATCH {published: true}`.
   */
  readonly publishYields?: 'active' | 'draft';
  /**
   * Starts serving from `server`; answers the connector's settings (`CONNECTOR_<PLATFORM>_*`)
   * that point it at this fake (its API URL, the app's key and secret).
   */
  start(server: FakeHttpsServer): Promise<Record<string, string>>;
  /**
   * Creates a store on the platform and connects it to the service for the reseller `key`, the
   * way a merchant would (pasted keys, OAuth install…); the connect's first poll has run.
   */
  connect(service: ConformanceService, key: string): Promise<FakeStore>;
  close?(): Promise<void>;
}
