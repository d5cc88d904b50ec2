import type { Connector, ConnectorContext } from '@print-api/connector-kit';
import type { CursorCodec } from '../../kernel/pagination.ts';
import type { AnyRoute } from '../../web/route.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import { JobBatcher } from '../../infra/queue/job-batcher.ts';
import type { JobQueue, Queue } from '../../infra/queue/job-queue.ts';
import { SafeFetchError } from '../../infra/safe-fetch/safe-fetch.ts';
import { createTokenBucket, type TokenBucket } from '../../infra/token-bucket.ts';
import type { RateLimiter } from '../../infra/rate-limit.ts';
import type { EventEnvelope, Outbox } from '../events/outbox.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { Tenant } from '../../kernel/tenant.ts';
import type { ResellerProductsService } from '../reseller-products/reseller-products-service.ts';
import type { Db } from '../tables.ts';
import { jobErrorFor } from './connect/connector-errors.ts';
import { platformSlug, type ConnectorRegistry } from './connector-registry.ts';
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
import { storesRoutes } from './stores-routes.ts';
import { StoresService, type StoreRow } from './stores-service.ts';
import { WebhookReceiver } from './inbound/webhook-receiver.ts';

/**
 * An ingest job: stored webhooks received close together (`events`), one of them (`event`: a retry, the sweeper's), a
 * store to poll, or a skipped store order to retry (`retry`: POST /stores/{id}/ingests/retry).
 */
export type IngestJob =
  | { kind: 'events'; eventIds: string[] }
  | { kind: 'event'; eventId: string }
  | { kind: 'poll'; storeId: string }
  | { kind: 'retry'; storeId: string; ingestId: string };

/**
 * Webhooks stored close together are ingested by one job: how long the first waits for others, and the most a job
 * takes.
 */
/**
 * Ingest jobs run side by side per platform and process. Most of a thin notification's job is
 * waiting for its store's call budget, and the orders waiting together are what one merged
 * fetch carries (OrderFetches): too few jobs and the budget's calls go out half empty. The
 * database work is bounded by the pool, not by this.
 */
const INGEST_CONCURRENCY = 32;
const EVENTS_WINDOW_MS = 10;
const EVENTS_BATCH = 50;
/**
 * Stored webhooks older than this and still not processed are queued again by the sweep (a crash between storing and
 * queueing).
 */
const SWEEP_EVENTS_AFTER_MS = 60_000;
/** Stored webhooks a sweep queues at most (the next sweep takes more). */
const SWEEP_PAGE = 500;
/** Pages queued again at most when Redis is back (10,000 webhooks); the sweeps take any more. */
const REQUEUE_MAX_PAGES = 20;

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
 * Queues: `ingest-<platform>` (webhooks and polls), `fulfil-<platform>` (tracking) and
 * `listings-<platform>` (catalogues, for connectors that list them), per connector. Their jobs decide on the
 * connectors' typed failures (connector-errors.ts). Built
 * once by the composition root.
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
  readonly #ingest = new Map<string, Queue<IngestJob>>();
  readonly #received = new Map<string, JobBatcher<string, IngestJob>>();
  readonly #fulfil = new Map<string, Queue<{ orderId: string }>>();
  readonly #listings = new Map<string, Queue<{ storeId: string }>>();
  #requeue: Promise<void> | undefined;
  #requeueAgain = false;

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
      queueRetry: (store, ingestId, attempts) =>
        this.#ingest
          .get(store.platform)!
          .add({ kind: 'retry', storeId: store.id, ingestId }, { jobId: `retry-${ingestId}-${attempts}` }),
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
      queueSync: (store, seq, delayMs) =>
        this.#listings
          .get(store.platform)!
          .add({ storeId: store.id }, { jobId: `listings-${store.id}-${seq}`, delayMs }),
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
      queuePoll: (store, suffix) => this.#queuePoll(store, suffix),
      listings: this.listings,
    });
    this.fulfilments = new FulfilmentPusher({
      ...ctx,
      connections,
      orders: deps.orders,
      calls: this.calls,
      queuePush: (platform, orderId) => this.#fulfil.get(platform)!.add({ orderId }, { jobId: `fulfil-${orderId}` }),
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
      stored: (platform, eventId) => this.#received.get(platform)!.add(eventId),
    });
    for (const connector of ctx.connectors.all()) this.#defineQueues(deps.queue, connector);
  }

  /** The platform's queues: ingestion (webhooks in batches, one webhook, a poll), fulfilment and listings. */
  #defineQueues(jobs: JobQueue, connector: Connector<any>): void {
    const { platform, displayName } = connector.manifest;
    const slug = platformSlug(platform);
    // The job's outcome follows the connector's typed failure: wait, give up or retry.
    const guarded = async (work: () => Promise<void>): Promise<void> => {
      try {
        await work();
      } catch (err) {
        throw jobErrorFor(displayName, err);
      }
    };
    const ingest: Queue<IngestJob> = jobs.define<IngestJob>(`ingest-${slug}`, {
      concurrency: INGEST_CONCURRENCY,
      attempts: 12,
      backoff: { type: 'exponential', delayMs: 2000 },
      process: (job): Promise<void> => {
        const data = job.data;
        if (data.kind === 'events')
          return this.events.processBatch(data.eventIds, (eventId, delayMs) =>
            ingest.add({ kind: 'event', eventId }, { jobId: `event-${eventId}`, delayMs }),
          );
        if (data.kind === 'retry') return guarded(() => this.retrier.retryQueued(data.storeId, data.ingestId));
        return guarded(() =>
          data.kind === 'event' ? this.events.process(data.eventId) : this.poller.poll(data.storeId),
        );
      },
    });
    this.#ingest.set(platform, ingest);
    this.#received.set(
      platform,
      new JobBatcher(ingest, {
        windowMs: EVENTS_WINDOW_MS,
        max: EVENTS_BATCH,
        toJob: (eventIds) => ({ data: { kind: 'events', eventIds }, options: { jobId: `events-${eventIds[0]}` } }),
        onError: (err, eventIds) =>
          this.#ctx.logger.warn('stored webhooks not queued; the sweeper will queue them', {
            platform,
            events: eventIds.length,
            error: err.message,
          }),
      }),
    );
    this.#fulfil.set(
      platform,
      jobs.define<{ orderId: string }>(`fulfil-${slug}`, {
        concurrency: 4,
        attempts: 15,
        backoff: { type: 'exponential', delayMs: 5000 },
        process: (job) => guarded(() => this.fulfilments.push(job.data.orderId)),
      }),
    );
    if (connector.listListings) {
      this.#listings.set(
        platform,
        jobs.define<{ storeId: string }>(`listings-${slug}`, {
          concurrency: 2,
          attempts: 12,
          backoff: { type: 'exponential', delayMs: 5000 },
          process: (job) => guarded(() => this.listings.sync(job.data.storeId)),
        }),
      );
    }
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
      await this.#queuePoll(store).catch((err: Error) =>
        this.#ctx.logger.warn('first poll of a store not queued; the polling sweep will queue it', {
          storeId: store.id,
          error: err.message,
        }),
      );
    }
    await this.listings.requestSyncQuietly(store);
  }

  #queuePoll(store: StoreRow, suffix?: string): Promise<void> {
    return this.#ingest
      .get(store.platform)!
      .add({ kind: 'poll', storeId: store.id }, { jobId: `poll-${store.id}${suffix ? `-${suffix}` : ''}` });
  }

  /** Re-queues stored webhooks that were never processed (a crash between store and queue), the oldest first. */
  async sweepEvents(olderThanMs = SWEEP_EVENTS_AFTER_MS): Promise<number> {
    return (await this.#queueUnprocessed(new Date(Date.now() - olderThanMs), undefined)).length;
  }

  /**
   * Redis is back after an outage (this process's queue connection is ready again): every
   * stored webhook not yet processed is queued now, however young, not by the sweep a minute
   * later. Those stored while Redis was away were never queued, and a Redis that restarted
   * empty lost the jobs of the others. Each process does this when its own connection returns,
   * so whatever it stored while it could not queue is covered; a webhook queued twice is
   * harmless (a job skips what is processed, and a store order is placed once by its
   * idempotency key). Past REQUEUE_MAX_PAGES pages, the sweeps take the rest.
   */
  async requeueUnprocessed(): Promise<number> {
    let queued = 0;
    let after: { at: Date; id: string } | undefined;
    for (let page = 0; page < REQUEUE_MAX_PAGES; page++) {
      const rows = await this.#queueUnprocessed(undefined, after);
      queued += rows.length;
      if (rows.length < SWEEP_PAGE) break;
      after = { at: rows.at(-1)!.received_at, id: rows.at(-1)!.id };
    }
    return queued;
  }

  /**
   * requeueUnprocessed for the queue's reconnection listener: logged, never thrown; a return while one runs runs it
   * once more after.
   */
  onQueueBack(): void {
    if (this.#requeue) {
      this.#requeueAgain = true;
      return;
    }
    this.#requeue = this.requeueUnprocessed()
      .then(
        (n) =>
          void (n > 0 && this.#ctx.logger.info('stored webhooks queued again after a queue outage', { events: n })),
        (err: Error) =>
          void this.#ctx.logger.warn(
            'stored webhooks not queued again after a queue outage; the sweeper will queue them',
            { error: err.message },
          ),
      )
      .finally(() => {
        this.#requeue = undefined;
        if (this.#requeueAgain) {
          this.#requeueAgain = false;
          this.onQueueBack();
        }
      });
  }

  /**
   * One page of stored webhooks not yet processed (received before `before`; after `after` in received order), queued
   * in batches.
   */
  async #queueUnprocessed(before: Date | undefined, after: { at: Date; id: string } | undefined) {
    let pending = this.#ctx.db
      .selectFrom('store_webhook_events')
      .select(['id', 'platform', 'received_at'])
      .where('processed_at', 'is', null);
    if (before) pending = pending.where('received_at', '<', before);
    if (after)
      pending = pending.where((eb) =>
        eb.or([eb('received_at', '>', after.at), eb.and([eb('received_at', '=', after.at), eb('id', '>', after.id)])]),
      );
    const rows = await pending.orderBy('received_at').orderBy('id').limit(SWEEP_PAGE).execute();
    for (const [platform, events] of Map.groupBy(rows, (r) => r.platform)) {
      for (let i = 0; i < events.length; i += EVENTS_BATCH) {
        const eventIds = events.slice(i, i + EVENTS_BATCH).map((e) => e.id);
        await this.#ingest.get(platform)?.add({ kind: 'events', eventIds }, { jobId: `events-${eventIds[0]}` });
      }
    }
    return rows;
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
  async flush(): Promise<void> {
    await Promise.all([...this.#received.values()].map((b) => b.flush()));
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
