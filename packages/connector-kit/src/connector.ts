import type { ZodObject, ZodType } from 'zod';
import { PLATFORM_NAME, SETTING_KEY } from './settings.ts';
import type { ListingsPage, Shipment, StoreOrder, StorePlatform } from './store-order.ts';
import type { ConnectorContext, StoreConnection } from './connector-context.ts';
import {
  RESERVED_ENDPOINTS,
  type EndpointAnswer,
  type EndpointCall,
  type InboundWebhook,
  type WebhookContent,
  type WebhookVerdict,
} from './inbound.ts';
import type { ListingChanges, ListingDraft, ListingRef, PublishedListing } from './publishing.ts';

export interface ConnectorManifest<C, S = unknown> {
  /**
   * The platform, in upper snake case (`SHOPIFY`, `TIKTOK_SHOP`): the `source` of the orders it
   * brings, the prefix of its settings (`CONNECTOR_<PLATFORM>_…`) and, lower-cased with dashes,
   * its URL slug (`/connectors/tiktok-shop/…`). Not `API` or `DASHBOARD` (the API's own sources).
   */
  platform: StorePlatform;
  displayName: string;
  /**
   * The app settings, as a zod object with camelCase keys: core reads each from
   * `CONNECTOR_<PLATFORM>_<KEY in UPPER_SNAKE>` (`apiKey` -> `CONNECTOR_SHOPIFY_API_KEY`),
   * parses them at start-up and hands the result over as `ctx.settings`. Values are strings
   * (use `z.coerce` for numbers). Every origin the connector calls is a setting whose default
   * is the real one (`apiUrl`, `authUrl`…), so a sandbox or a local fake platform can stand in.
   * Give each a `.meta({ description })`: the README's table of variables is generated from it.
   *
   * A setting the connector can work without (an app secret needed by one flow only) is
   * `.optional()`, and the flow that needs it fails with a ConnectorError naming the variable
   * (`settingVariable`). A required one that is not set keeps the connector from loading:
   * left out with a warning under `CONNECTORS=all`, start-up stopped when `CONNECTORS` names it.
   * A value that fails the schema always stops start-up, naming the variable.
   */
  settingsSchema?: ZodObject & ZodType<S>;
  /**
   * The fields of `POST /stores {platform, ...fields}` for this platform (documented in OpenAPI as one branch of a
   * union on `platform`).
   */
  connectSchema: ZodObject;
  /**
   * Examples for the API reference: `connect` of `POST /stores`, `credentialRequest` of `POST
   * /stores/credential-requests` (without `platform`).
   */
  examples: { connect: Record<string, unknown>; credentialRequest?: Record<string, unknown> };
  /** The stored credentials' shape (checked when they are read back). */
  credentialsSchema: ZodType<C>;
  capabilities: {
    webhooks: boolean;
    polling: boolean;
    fulfilment: boolean;
    oauth: boolean;
    /**
     * Creates, changes and archives products in the store (`POST/PATCH/DELETE
     * /stores/{id}/listings`): needs `publishListing`, `updateListing` and `unpublishListing`.
     * Absent or false: the endpoint answers 422 `not_supported_by_platform`, with `publishingAdvice`.
     */
    publishing?: boolean;
  };
  /**
   * Only test keys connect its stores (a sandbox, a platform's test environment): a live key's
   * `POST /stores` answers 422 `store_not_connectable` ("<displayName> stores are for test keys").
   */
  testModeOnly?: boolean;
  /**
   * Without publishing: what the merchant can do instead, said in the 422 ("Create the product in Seller Central, then
   * map it with POST /stores/{id}/links").
   */
  publishingAdvice?: string;
  /**
   * The platform's request budget for one store: core takes one call under it, per store and shared by every process,
   * before each call to the platform (a webhook carrying its order makes no call and waits for nothing).
   */
  rateLimit: { max: number; durationMs: number };
  /**
   * How many order ids one `fetchOrders` call takes at most (default 50). Core merges the ids of
   * a store's thin notifications waiting for its call budget into calls of up to this many, each
   * taking one call of `rateLimit`: give what one platform call answers (TikTok Shop's order
   * detail takes 50 ids; Etsy reads 100 recent receipts in one call).
   */
  fetchOrdersMax?: number;
  /** How often polling runs for a connected store (ms), when `capabilities.polling`. */
  pollIntervalMs?: number;
  /**
   * A budget of `listOrders` calls per store, besides `rateLimit`, for platforms whose order
   * search is metered on its own (a token bucket: `burst` calls at once, one more every
   * `refillMs`). Core takes one before each page, shared by every process (the scheduled poll
   * and `POST /stores/{id}/sync` alike): a poll waits for it, and a sync answers when its poll
   * can call the platform.
   */
  pollBudget?: { burst: number; refillMs: number };
}

/**
 * A storefront platform, as a plugin. Core does the rest once for every platform: routes,
 * signature checks on the raw body, storage, queues, SKU mapping, order placement,
 * idempotency, tracking push-back, rate limits and metrics.
 *
 * @example
 * const settingsSchema = z.object({
 * apiUrl: z.url({ protocol: /^https$/ }).default('https://api.acme.example').meta({ description: "Acme's API origin"
 * }),
 * });
 * export const acmeConnector = defineConnector<{ token: string }, z.output<typeof settingsSchema>>({
 *   manifest: {
 *     platform: 'ACME', displayName: 'Acme', settingsSchema,
 *     connectSchema: z.strictObject({ token: z.string() }), examples: { connect: { token: 'acme_0123' } },
 *     credentialsSchema: z.object({ token: z.string() }),
 *     capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: false },
 *     rateLimit: { max: 10, durationMs: 1000 },
 *   },
 *   async connect(ctx, input) {
 *     const { token } = input as { token: string };
 * const shop = await ctx.http.request({ method: 'GET', url: `${ctx.settings.apiUrl}/shop`, headers: { authorization:
 * `Bearer ${token}` } });
 *     if (shop.status !== 200) throw ConnectorError.fromStatus('Acme', shop.status, shop.body);
 *     const { id, name } = JSON.parse(shop.body);
 *     return { externalId: id, name, credentials: { token } };
 *   },
 *   verifyWebhook: (req, secrets) => verifyHmac(req.rawBody, req.headers['x-acme-signature'], secrets.storeSecret),
 * async parseWebhook(ctx, store, req) { return { kind: 'orders', orders: [mapOrder(JSON.parse(req.rawBody.toString()))]
 * }; },
 *   async listOrders(ctx, store, cursor) { … return { orders, nextCursor }; },
 *   async pushShipment(ctx, store, shipment) { … },
 * });
 */
export interface Connector<C = unknown, S = unknown> {
  manifest: ConnectorManifest<C, S>;

  /** `POST /stores`: checks pasted credentials against the platform and describes the store. */
  connect(ctx: ConnectorContext<S>, input: unknown): Promise<StoreConnection<C>>;

  /**
   * Optional settings that every way of connecting a store needs (our app's credentials with the
   * platform), left optional so that the service starts without them: until the operator sets
   * them, the dashboard does not offer this platform.
   */
  requiresSettings?: string[];

  /**
   * OAuth install flow, when the platform has one. Core serves it: the reseller API's
   * `POST /stores/install-links {platform, ...input}` (the old path
   * `POST /connectors/<platform>/install-links` is an alias) seals the reseller, the input and an
   * expiry into `state` and answers an install URL; `GET /connectors/<platform>/install?state=…`
   * sets `state` as an HttpOnly cookie, adds the connector's `cookies` and redirects to
   * `redirectUrl`; the platform sends the merchant back to `callbackUrl`
   * (`/connectors/<platform>/callback`), where core reads its cookie and calls `callback`. The
   * connector checks what the platform echoes (its `state` parameter, HMAC…) and exchanges
   * the code; core saves the store like `POST /stores`.
   *
   * @example
   * install: {
   *   inputSchema: z.strictObject({ shop: z.string() }),
   *   async begin(ctx, { query, state, callbackUrl }) {
   * return { redirectUrl: `https://${query.shop}/oauth/authorize?${new URLSearchParams({ client_id:
   * ctx.settings.apiKey, state, redirect_uri: callbackUrl })}` };
   *   },
   *   async callback(ctx, { query, state, callbackUrl }) {
   *     if (query.state !== state) throw new ConnectorError('auth', 'state mismatch');
   *     return exchangeCode(ctx, query.shop!, query.code!, callbackUrl);
   *   },
   * },
   */
  install?: {
    /** The fields of the install link besides `returnUrl` (e.g. the shop); checked when the link is made. */
    inputSchema?: ZodType;
    /**
     * The optional settings the install needs (our app's key and secret, say), where the connector
     * also works without them (pasted credentials): until the operator sets them, core offers no
     * install (no dashboard button, no install link) instead of a flow that fails half way.
     */
    requiresSettings?: string[];
    /**
     * Where to send the merchant; `cookies` are Set-Cookie values to send with that redirect (e.g. a library's own
     * signed state).
     */
    begin(
      ctx: ConnectorContext<S>,
      params: { query: Record<string, string | undefined>; state: string; callbackUrl: string },
    ): Promise<{ redirectUrl: string; cookies?: string[] }>;
    /** The platform's redirect back: `headers` are the browser's (its cookies included). */
    callback(
      ctx: ConnectorContext<S>,
      params: {
        query: Record<string, string | undefined>;
        rawQuery: string;
        state: string;
        headers: Record<string, string | undefined>;
        callbackUrl: string;
      },
    ): Promise<StoreConnection<C>>;
  };

  /**
   * A key-issuing connect flow, for platforms that hand us credentials server-to-server
   * instead of redirecting with an OAuth code: WooCommerce's `/wc-auth/v1/authorize` asks the
   * merchant, POSTs the keys to our `callbackUrl`, then sends the merchant to `returnUrl`.
   * Core serves it: `POST /stores/credential-requests {platform, returnUrl?, ...input}` (begin),
   * `POST /connectors/<platform>/credentials/<state>` (the platform's callback, answered 200
   * once the store is connected) and `GET /connectors/<platform>/credentials/<state>/return`.
   *
   * @example
   * credentialRequest: {
   *   inputSchema: z.strictObject({ storeUrl: z.url({ protocol: /^https$/ }) }),
   *   async begin(ctx, { input, state, callbackUrl, returnUrl }) {
   *     const { storeUrl } = input as { storeUrl: string };
   * return { redirectUrl: `${storeUrl}/authorize?${new URLSearchParams({ user_id: state, callback_url: callbackUrl,
   * return_url: returnUrl })}` };
   *   },
   *   async receive(ctx, { input, state, rawBody }) {
   *     const keys = JSON.parse(rawBody.toString());
   *     if (keys.user_id !== state) throw new ConnectorError('invalid_payload', 'issued for another request');
   *     return checkKeys(ctx, (input as { storeUrl: string }).storeUrl, keys);
   *   },
   * },
   */
  credentialRequest?: {
    /**
     * The fields of `POST /stores/credential-requests` besides `platform` and `returnUrl` (e.g. the store URL);
     * documented in OpenAPI with `manifest.examples.credentialRequest`.
     */
    inputSchema: ZodObject;
    /**
     * Where to send the merchant to approve: the platform must POST the credentials to `callbackUrl` and send the
     * merchant to `returnUrl`.
     */
    begin(
      ctx: ConnectorContext<S>,
      params: { input: unknown; state: string; callbackUrl: string; returnUrl: string },
    ): Promise<{ redirectUrl: string }>;
    /**
     * The platform's POST to `callbackUrl`: checks what it sent (on the raw body) with the platform and describes the
     * store.
     */
    receive(
      ctx: ConnectorContext<S>,
      params: { input: unknown; state: string; headers: Record<string, string | undefined>; rawBody: Buffer },
    ): Promise<StoreConnection<C>>;
  };

  /**
   * Creates the store's webhooks pointing at `callbackUrl`; returns the per-store secret when the platform uses one.
   */
  registerWebhooks?(
    ctx: ConnectorContext<S>,
    store: StoreConnection<C>,
    callbackUrl: string,
  ): Promise<{ webhookSecret?: string }>;

  /**
   * Which store sent this webhook (the platform's id for it, as `externalId`), when the path
   * does not say: deliveries to the app-level URL `POST /connectors/<platform>/webhooks`, signed
   * with the app's secret (`secrets.appSecret` in verifyWebhook), name their store in a header
   * or the body (Shopify's X-Shopify-Shop-Domain, Etsy's `shop_id`, Wix's `instanceId`).
   */
  identifyStore?(req: InboundWebhook): string | undefined;

  /**
   * Checks the signature on the raw body. Pure: no I/O (it may be async, e.g. to use WebCrypto
   * or a platform library). `storeSecret` is the store's (from `registerWebhooks` or the
   * connection); app-level secrets are in `settings`.
   */
  verifyWebhook(
    req: InboundWebhook,
    secrets: { storeSecret?: string | undefined; settings: S },
  ): WebhookVerdict | Promise<WebhookVerdict>;

  /** Turns a verified webhook into orders (or a list of orders to fetch, an uninstall, a redaction…). */
  parseWebhook(ctx: ConnectorContext<S>, store: StoreConnection<C>, req: InboundWebhook): Promise<WebhookContent>;

  /**
   * Fetches orders by id (thin webhooks; core asks once for the orders of every notification of a store waiting for its
   * call budget, up to `manifest.fetchOrdersMax` ids, so batch them as the platform allows).
   */
  fetchOrders?(ctx: ConnectorContext<S>, store: StoreConnection<C>, externalOrderIds: string[]): Promise<StoreOrder[]>;

  /**
   * Orders changed since `cursor` (null = the connector's default look-back), one page at a
   * time. `done`: this page ends the run (the next poll goes on from `nextCursor`), for a
   * platform whose cursor moves on every call and whose calls are scarce. `notice`: something
   * the poll found and repaired that the merchant should know (a webhook the platform had
   * disabled, created anew), shown among the store's `notices` for a week.
   */
  listOrders?(
    ctx: ConnectorContext<S>,
    store: StoreConnection<C>,
    cursor: string | null,
  ): Promise<{ orders: StoreOrder[]; nextCursor: string | null; done?: boolean; notice?: string }>;

  /**
   * The store's catalogue, one page at a time (`cursor` null: the first page): every product
   * variant with its SKU, title, ids and whether it is on sale. Core reads every page of a run
   * (each under the connector's rate limit, each written on its own), then forgets the
   * listings the run did not see. The ids are those the platform's order lines carry.
   */
  listListings?(ctx: ConnectorContext<S>, store: StoreConnection<C>, cursor: string | null): Promise<ListingsPage>;

  /**
   * Creates one product in the store carrying `draft.sku` on its only variant, at
   * `draft.priceCents` in `draft.currency` (the store's), published or not. The ids returned are
   * those the platform's order lines and `listListings` carry. `status: 'pending'` when the
   * platform creates it asynchronously (core answers 202 and reads it back with `getListing`).
   * A refusal is a ConnectorError (`invalid_payload` with the platform's reason -> 422; `rate_limited` -> 503).
   */
  publishListing?(ctx: ConnectorContext<S>, store: StoreConnection<C>, draft: ListingDraft): Promise<PublishedListing>;

  /** Pushes a change of title, price or visibility to a product `publishListing` made. */
  updateListing?(
    ctx: ConnectorContext<S>,
    store: StoreConnection<C>,
    ref: ListingRef,
    changes: ListingChanges,
  ): Promise<PublishedListing>;

  /** Archives (unpublishes) the product in the store; a product already gone is not an error. */
  unpublishListing?(ctx: ConnectorContext<S>, store: StoreConnection<C>, ref: ListingRef): Promise<void>;

  /** Where `publishListing` answered `pending`: the product as the platform holds it now. */
  getListing?(ctx: ConnectorContext<S>, store: StoreConnection<C>, ref: ListingRef): Promise<PublishedListing>;

  /**
   * The store's currency (ISO 4217, upper case): what `ListingDraft.priceCents` is counted in.
   * Core asks once, before the store's first publish, and keeps it; without it, a store is taken
   * to sell in euros.
   */
  storeCurrency?(ctx: ConnectorContext<S>, store: StoreConnection<C>): Promise<string>;

  /**
   * The store's own country (ISO 3166-1 alpha-2, upper case: where its address is, where it
   * sells from), or null when the platform does not say. Core asks with `storeCurrency`, once
   * (after the store's first listings sync, or before its first publish), and keeps it on the
   * store: the dashboard prices a product's margin for it.
   */
  storeCountry?(ctx: ConnectorContext<S>, store: StoreConnection<C>): Promise<string | null>;

  /**
   * Endpoints of the connector's own, for what a platform calls outside webhooks and installs (eBay's marketplace
   * account deletion: a GET challenge and signed POST notifications at one URL), served by core at
   * `/connectors/<slug>/<name>` for GET and POST (`name` in lower case with dashes, not one of
   * RESERVED_ENDPOINTS). Its `answer` checks what arrived (it may call the platform, e.g. for a signing key) and says
   * what to answer; a ConnectorError answers as core's connect flows answer one (502 when the platform cannot be
   * reached).
   */
  endpoints?: Record<string, { answer(ctx: ConnectorContext<S>, call: EndpointCall): Promise<EndpointAnswer> }>;

  /** Pushes tracking back to the store. */
  pushShipment?(ctx: ConnectorContext<S>, store: StoreConnection<C>, shipment: Shipment): Promise<void>;

  /**
   * Reminders for the merchant about this store (an authorisation to renew before a date),
   * shown as `notices` on `GET /stores/{id}`. Pure: no I/O.
   */
  storeNotices?(store: StoreConnection<C>, now: Date): string[];

  /**
   * Renews expiring credentials; returns the new ones, or null when they are still good. Core
   * calls it before each call to the platform, one at a time per store across every process,
   * with the credentials as stored at that moment (another process may have renewed them), and
   * stores what it returns before the next one runs (a rotated refresh token is never lost). An
   * `auth` failure marked `revoked` (the platform refuses the refresh token: revoked, expired)
   * disconnects the store with the error's message in its `lastError`; one without (our app's
   * own credentials refused) leaves it connected.
   */
  refreshCredentials?(ctx: ConnectorContext<S>, store: StoreConnection<C>): Promise<C | null>;

  /**
   * Whether `refreshCredentials` has anything to do now (an access token near its expiry).
   * Pure: no I/O. Core runs the renewal, under its lock shared by every process, only when this
   * says so; without it, before every call to the platform.
   */
  credentialsDue?(store: StoreConnection<C>, now: Date): boolean;
}

/**
 * Declares a connector: `C` is its stored credentials, `S` its settings (the output of its
 * `settingsSchema`, typed as `ctx.settings`). Checks the manifest when the module loads.
 */
export function defineConnector<C, S = unknown>(connector: Connector<C, S>): Connector<C, S> {
  const m = connector.manifest;
  if (!PLATFORM_NAME.test(m.platform))
    throw new Error(`${m.platform}: a platform is named in upper snake case (SHOPIFY, TIKTOK_SHOP)`);
  for (const key of Object.keys(m.settingsSchema?.shape ?? {})) {
    if (!SETTING_KEY.test(key))
      throw new Error(`${m.platform}: setting '${key}' must be camelCase (it becomes CONNECTOR_${m.platform}_<KEY>)`);
  }
  if (m.capabilities.polling && !connector.listOrders) throw new Error(`${m.platform}: polling needs listOrders`);
  if (m.capabilities.fulfilment && !connector.pushShipment)
    throw new Error(`${m.platform}: fulfilment needs pushShipment`);
  for (const name of Object.keys(connector.endpoints ?? {})) {
    if (!/^[a-z][a-z0-9-]*$/.test(name) || (RESERVED_ENDPOINTS as readonly string[]).includes(name))
      throw new Error(
        `${m.platform}: endpoint '${name}' must be lower case with dashes, not ${RESERVED_ENDPOINTS.join('/')}`,
      );
  }
  if (m.capabilities.oauth && !connector.install) throw new Error(`${m.platform}: oauth needs install`);
  if (
    m.capabilities.publishing &&
    !(connector.publishListing && connector.updateListing && connector.unpublishListing)
  ) {
    throw new Error(`${m.platform}: publishing needs publishListing, updateListing and unpublishListing`);
  }
  return connector;
}
