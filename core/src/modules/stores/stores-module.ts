import type { ConnectorContext } from '@print-api/connector-kit';
import type { CursorCodec } from '../../kernel/pagination.ts';
import type { AnyRoute } from '../../web/route.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { JobQueue } from '../../infra/queue/job-queue.ts';
import { SafeFetchError } from '../../infra/safe-fetch/safe-fetch.ts';
import { createTokenBucket, type TokenBucket } from '../../infra/token-bucket.ts';
import type { RateLimiter } from '../../infra/rate-limit.ts';
import type { EventEnvelope, Outbox } from '../events/outbox.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { Tenant } from '../../kernel/tenant.ts';
import type { ResellerProductsService } from '../reseller-products/reseller-products-service.ts';
import type { Db } from '../tables.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import { connectorRoutes } from './inbound/connector-routes.ts';
import { ConnectorEndpoints } from './inbound/connector-endpoints.ts';
import { CredentialRequests } from './connect/credential-requests.ts';
import { EventIngester } from './inbound/event-ingester.ts';
import { FulfilmentPusher } from './outbound/fulfilment-pusher.ts';
import { IngestRetrier } from './inbound/ingest-retrier.ts';
import { LISTINGS_SOON_MS, ListingSyncer } from './catalogue/listing-syncer.ts';
import { StoreLocales } from './catalogue/store-locales.ts';
import { OAuthInstalls } from './connect/oauth-installs.ts';
import { OrderFetches } from './inbound/order-fetches.ts';
import { OrderIngester } from './inbound/order-ingester.ts';
import { StoreCalls } from './outbound/store-calls.ts';
import { StorePoller } from './inbound/store-poller.ts';
import { publishingRoutes } from './catalogue/publishing-routes.ts';
import { StorePublishing } from './catalogue/store-publishing.ts';
import { StoreRedactor } from './inbound/store-redactor.ts';
import type { ListingMargins } from './catalogue/listing-margins.ts';
import type { StoresContext } from './stores-context.ts';
import { StoreQueues } from './store-queues.ts';
import { storesRoutes } from './stores-routes.ts';
import { StoresService, type StoreRow } from './stores-service.ts';
import { WebhookReceiver } from './inbound/webhook-receiver.ts';

export interface StoresDeps {
  db: Db;
  queue: JobQueue;
  box: SecretBox;
  cursors: CursorCodec;
  logger: Logger;
  connectors: ConnectorRegistry;
  context: (platform: string) => ConnectorContext;
  orders: OrdersService;
  resellerProducts: ResellerProductsService;
  /** A limiter per platform (shared by every process on Redis); its key is the store. */
  callLimiter: (platform: string, rate: { max: number; durationMs: number }) => RateLimiter;
  /** A token bucket per platform that meters its order search (manifest.pollBudget); in-process buckets when absent. */
  pollBudget?: (platform: string, budget: { burst: number; refillMs: number }) => TokenBucket;
  /** Where the stores' own events are written (`store.order_skipped`). */
  outbox?: Outbox;
  /** A store order became a print order (the ingestion-lag metric). */
  onPlaced?: (platform: string, storeCreatedAt: string) => void;
  /** The SSRF guard's check of a URL (images to publish are handed to the platforms); none allowed when absent. */
  checkUrl?: (url: string) => Promise<void>;
  /** A published listing's margin in its store's currency (our price quoted, converted at the ECB's rate). */
  margins: ListingMargins;
}

/**
 * The stores capability: connected stores and their connect flows, and the one pipeline
 * through which every platform's orders become print orders. Its parts:
 * - receiving (webhook-receiver.ts): inbound webhooks verified on the raw body, stored, acknowledged;
 * - ingesting (event-ingester.ts, order-ingester.ts): a stored webhook's orders placed once each;
 * - polling (store-poller.ts): orders changed since the cursor, on schedule and on demand (sync);
 * - fulfilment push (fulfilment-pusher.ts): tracking back to the store when an order ships;
 * - redaction (store-redactor.ts): privacy requests;
 * - credential refresh and call budgets (store-calls.ts).
 * - listings (listing-syncer.ts): the stores' catalogues, and the links they make;
 * - publishing (store-publishing.ts): reseller products created in stores.
 * Queues (store-queues.ts): `ingest-<platform>` (webhooks and polls), `fulfil-<platform>` (tracking) and
 * `listings-<platform>` (catalogues, for connectors that list them), per connector. Their jobs decide on the
 * connectors' typed failures (connector-errors.ts). Built once by the composition root.
 *
 * @example
 * const stores = new StoresModule({ db, queue, box, cursors, logger, connectors, context, orders, resellerProducts,
 * callLimiter });
 * apiRoutes.push(...stores.routes());
 * rootRoutes.push(...stores.connectorRoutes());
 * for (const [name, run] of stores.maintenanceTasks()) maintenance.add(name, run);
 */
export class StoresModule {
  readonly stores: StoresService;
  readonly credentialRequests: CredentialRequests;
  readonly installs: OAuthInstalls;
  readonly receiver: WebhookReceiver;
  readonly ingester: OrderIngester;
  readonly events: EventIngester;
  readonly poller: StorePoller;
  readonly fulfilments: FulfilmentPusher;
  readonly redactor: StoreRedactor;
  readonly endpoints: ConnectorEndpoints;
  readonly calls: StoreCalls;
  readonly listings: ListingSyncer;
  readonly retrier: IngestRetrier;
  readonly publishing: StorePublishing;
  readonly #ctx: StoresContext;
  /** Listings' margins in their store's currency (also the dashboard's publish form's). */
  readonly margins: ListingMargins;
  readonly #queues: StoreQueues;

  constructor(deps: StoresDeps) {
    // What the stores' classes share, built once and handed to each with what it adds of its own.
    const ctx: StoresContext = {
      db: deps.db,
      box: deps.box,
      cursors: deps.cursors,
      logger: deps.logger,
      connectors: deps.connectors,
      context: deps.context,
    };
    this.#ctx = ctx;
    const queues = new StoreQueues(ctx);
    this.#queues = queues;
    this.margins = deps.margins;
    this.stores = new StoresService({
      ...ctx,
      products: deps.resellerProducts,
      onConnected: (store) => this.#onConnected(store),
    });
    // The pipeline's classes take the services split by job that they call, not the facade.
    const { connections, credentials, links } = this.stores;
    const locales = new StoreLocales(ctx);
    this.credentialRequests = new CredentialRequests({ ...ctx, connections });
    this.installs = new OAuthInstalls({ ...ctx, connections });
    this.calls = new StoreCalls({
      ...ctx,
      connections,
      credentials,
      callLimiter: deps.callLimiter,
      pollBudget:
        deps.pollBudget ??
        ((platform, budget) =>
          createTokenBucket({ ...budget, keyPrefix: `poll-budget:${platform}`, name: `poll-budget:${platform}` })),
    });
    this.ingester = new OrderIngester({
      ...ctx,
      links,
      resellerProducts: deps.resellerProducts,
      orders: deps.orders,
      ...(deps.outbox ? { outbox: deps.outbox } : {}),
      ...(deps.onPlaced ? { onPlaced: deps.onPlaced } : {}),
    });
    this.retrier = new IngestRetrier({
      ...ctx,
      connections,
      credentials,
      calls: this.calls,
      ingester: this.ingester,
      // One job per ingest and attempt: asked twice before it runs, it runs once; asked again after, it runs again.
      queueRetry: (store, ingestId, attempts) => queues.queueRetry(store, ingestId, attempts),
    });
    this.redactor = new StoreRedactor({ ...ctx, connections });
    this.endpoints = new ConnectorEndpoints({ ...ctx, connections, redactor: this.redactor });
    this.listings = new ListingSyncer({
      ...ctx,
      connections,
      links,
      calls: this.calls,
      locales,
      products: deps.resellerProducts,
      queueSync: (store, seq, delayMs) => queues.queueListingsSync(store, seq, delayMs),
    });
    this.events = new EventIngester({
      ...ctx,
      connections,
      credentials,
      orders: this.ingester,
      fetches: new OrderFetches({ ...ctx, calls: this.calls }),
      redactor: this.redactor,
      listingsChanged: (store) => this.listings.requestSync(store, LISTINGS_SOON_MS),
    });
    this.poller = new StorePoller({
      ...ctx,
      connections,
      calls: this.calls,
      ingester: this.ingester,
      queuePoll: (store, suffix) => queues.queuePoll(store, suffix),
      listings: this.listings,
    });
    this.fulfilments = new FulfilmentPusher({
      ...ctx,
      connections,
      orders: deps.orders,
      calls: this.calls,
      queuePush: (platform, orderId) => queues.queuePush(platform, orderId),
    });
    this.publishing = new StorePublishing({
      ...ctx,
      connections,
      calls: this.calls,
      locales,
      checkImageUrl:
        deps.checkUrl ??
        (async (url) =>
          Promise.reject(new SafeFetchError('address_blocked', `no outbound address is allowed here: ${url}`))),
      listingsChanged: (store) => this.listings.requestSyncQuietly(store, LISTINGS_SOON_MS),
    });
    this.receiver = new WebhookReceiver({
      ...ctx,
      connections,
      credentials,
      stored: (platform, eventId) => queues.stored(platform, eventId),
    });
    queues.define(deps.queue, this);
  }

  /** A store was connected (or reconnected): register its webhooks, catch up by polling, read its listings. */
  async #onConnected(store: StoreRow): Promise<void> {
    const connector = this.#ctx.connectors.get(store.platform);
    if (!connector) return;
    if (connector.registerWebhooks) {
      const ctx = this.#ctx.context(store.platform);
      const { webhookSecret } = await connector.registerWebhooks(
        ctx,
        await this.calls.connection(store),
        ctx.webhookUrl(store.id),
      );
      if (webhookSecret) await this.stores.credentials.setWebhookSecret(store.id, webhookSecret);
    }
    if (connector.listOrders) {
      // Not a failure of the connection: a store never polled is queued by the polling sweep (schedulePolls).
      await this.#queues.queuePoll(store).catch((err: Error) =>
        this.#ctx.logger.warn('first poll of a store not queued; the polling sweep will queue it', {
          storeId: store.id,
          error: err.message,
        }),
      );
    }
    await this.listings.requestSyncQuietly(store);
  }

  /** The maintenance loop's tasks: lost webhooks, scheduled polls, shipments to push. */
  maintenanceTasks(): Array<[string, () => Promise<unknown>]> {
    return [
      ['store webhooks sweep', () => this.sweepEvents()],
      ['store polling', () => this.poller.schedulePolls()],
      ['store listings', () => this.listings.scheduleSyncs()],
      ['store shipments', () => this.fulfilments.queueShipments()],
      ['interrupted publishes', () => this.publishing.recoverInterrupted()],
    ];
  }

  /**
   * order.shipped events, committed (the outbox's subscriber): the store orders among them get their tracking pushed.
   */
  onOrdersShipped(events: EventEnvelope[]): void {
    this.fulfilments
      .queueShipped(events)
      .catch((err: Error) =>
        this.#ctx.logger.warn('shipment push not queued; the sweeper will retry', { error: err.message }),
      );
  }

  /** Queues the stored webhooks still waiting for their batch (at shutdown). */
  flush(): Promise<void> {
    return this.#queues.flush();
  }

  /** Re-queues stored webhooks that were never processed (a crash between store and queue), the oldest first. */
  sweepEvents(olderThanMs?: number): Promise<number> {
    return this.#queues.sweepEvents(olderThanMs);
  }

  /** Every stored webhook not yet processed queued now (Redis is back after an outage): StoreQueues.requeueUnprocessed. */
  requeueUnprocessed(): Promise<number> {
    return this.#queues.requeueUnprocessed();
  }

  /**
   * The queue's reconnection listener (logged, never thrown): the stored webhooks not yet processed
   * and the pending tracking pushes queued again, for a queue that came back empty lost their jobs.
   */
  onQueueBack(): void {
    this.#queues.onQueueBack();
    this.fulfilments.requeuePending().then(
      (n) => void (n > 0 && this.#ctx.logger.info('tracking pushes queued again after a queue outage', { pushes: n })),
      (err: Error) =>
        void this.#ctx.logger.warn(
          'tracking pushes not queued again after a queue outage; the sweeper will queue them',
          {
            error: err.message,
          },
        ),
    );
  }

  /** The reseller API's routes: stores, links, ingests, connect flows, sync. */
  routes(resolveProduct: (tenant: Tenant, idOrSku: string) => Promise<{ id: string; sku: string }>): AnyRoute[] {
    return [
      ...storesRoutes({
        stores: this.stores,
        connectors: this.#ctx.connectors,
        credentialRequests: this.credentialRequests,
        installs: this.installs,
        poller: this.poller,
        retrier: this.retrier,
        resolveProduct,
      }),
      ...publishingRoutes({
        publishing: this.publishing,
        resolveProduct,
        marginOf: async (tenant, listing) => {
          const store = await this.stores.connections.row(tenant, listing.storeId);
          return this.margins.of(tenant, {
            sku: listing.resellerProduct.sku,
            priceCents: listing.priceCents,
            currency: listing.currency,
            country: store.country,
          });
        },
      }),
    ];
  }

  /** What platforms and merchants' browsers call at `/connectors/...`. */
  connectorRoutes(): AnyRoute[] {
    return connectorRoutes({
      receiver: this.receiver,
      installs: this.installs,
      credentialRequests: this.credentialRequests,
      endpoints: this.endpoints,
    });
  }
}
