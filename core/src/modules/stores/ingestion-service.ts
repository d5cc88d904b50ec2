import type { Connector, ConnectorContext, InboundWebhook, StoreConnection, StoreOrder, WebhookContent } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { sql, type Selectable } from 'kysely';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../../http/api-error.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { Logger } from '../../infra/logger.ts';
import { RELAXED_COMMIT } from '../../infra/db/relaxed-commit.ts';
import { JobBatcher } from '../../infra/queue/job-batcher.ts';
import { PermanentJobError, RetryLaterError, type JobQueue, type Queue } from '../../infra/queue/job-queue.ts';
import type { RateLimiter } from '../../infra/rate-limit.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { ResellerProductsService } from '../reseller-products/reseller-products-service.ts';
import type { Db } from '../tables.ts';
import { platformSlug, type ConnectorRegistry } from './connector-registry.ts';
import type { StoreRow, StoresService } from './stores-service.ts';
import type { StoreIngestsTable, StoreWebhookEventsTable } from './stores-tables.ts';

/** An ingest job: stored webhooks received close together (`events`), one of them (`event`: a retry, the sweeper's), or a store to poll. */
type IngestJob = { kind: 'events'; eventIds: string[] } | { kind: 'event'; eventId: string } | { kind: 'poll'; storeId: string };
type StoredEvent = Selectable<StoreWebhookEventsTable>;
type StoreIngest = Selectable<StoreIngestsTable>;

/**
 * The one pipeline through which every platform's orders become print orders: inbound
 * webhooks are verified on the raw body, stored and queued; the ingest worker maps lines
 * through the reseller's SKUs and places the order with `source` = the platform and the
 * idempotency key `<platform>:<store>:<order>`, so an order is never placed twice; shipments
 * are pushed back to the store.
 */

/** How long order writes are gathered before one look for shipments to push (queueShipmentsSoon). */
const SHIPMENTS_COALESCE_MS = 100;
/** A tracking push queued this long ago and never tried has lost its job: queued again (queueShipments). */
const SHIPMENT_REQUEUE_AFTER_MS = 60_000;
/** Webhooks stored close together are ingested by one job: how long the first waits for others, and the most a job takes. */
const EVENTS_WINDOW_MS = 10;
const EVENTS_BATCH = 50;
/** Events of one batch ingested side by side. */
const EVENTS_PARALLEL = 4;
/** How long a store read for a webhook's signature check is reused (a check that fails on it reads the store again). */
const STORE_FOR_WEBHOOK_MS = 10_000;
export class IngestionService {
  readonly #db: Db;
  readonly #stores: StoresService;
  readonly #connectors: ConnectorRegistry;
  readonly #products: ResellerProductsService;
  readonly #orders: OrdersService;
  readonly #logger: Logger;
  readonly #context: (platform: string) => ConnectorContext;
  readonly #ingest = new Map<string, Queue<IngestJob>>();
  readonly #received = new Map<string, JobBatcher<string, IngestJob>>();
  readonly #storesForWebhooks = new LRUCache<string, StoreRow>({ max: 10_000, ttl: STORE_FOR_WEBHOOK_MS });
  readonly #fulfil = new Map<string, Queue<{ orderId: string }>>();
  readonly #onPlaced: (platform: string, storeCreatedAt: string) => void;
  readonly #renewals = new Map<string, Promise<unknown>>();
  readonly #callLimiters = new Map<string, RateLimiter>();

  constructor(deps: {
    db: Db;
    queue: JobQueue;
    stores: StoresService;
    connectors: ConnectorRegistry;
    resellerProducts: ResellerProductsService;
    orders: OrdersService;
    logger: Logger;
    context: (platform: string) => ConnectorContext;
    /** A limiter per platform (shared by every process on Redis); its key is the store. */
    callLimiter: (platform: string, rate: { max: number; durationMs: number }) => RateLimiter;
    onPlaced?: (platform: string, storeCreatedAt: string) => void;
  }) {
    this.#db = deps.db;
    this.#stores = deps.stores;
    this.#connectors = deps.connectors;
    this.#products = deps.resellerProducts;
    this.#orders = deps.orders;
    this.#logger = deps.logger;
    this.#context = deps.context;
    this.#onPlaced = deps.onPlaced ?? (() => undefined);
    // The platform's rate limit is per store: it is taken before each call to the platform
    // (#callSlot), not on the queues, so one busy store never slows another and a webhook that
    // carries its order (no call at all) is never held back.
    for (const connector of deps.connectors.all()) {
      const { platform, rateLimit } = connector.manifest;
      const slug = platformSlug(platform);
      this.#callLimiters.set(platform, deps.callLimiter(platform, rateLimit));
      const ingest: Queue<IngestJob> = deps.queue.define<IngestJob>(`ingest-${slug}`, {
        concurrency: 8,
        attempts: 12,
        backoff: { type: 'exponential', delayMs: 2000 },
        process: (job): Promise<void> => {
          const data = job.data;
          if (data.kind === 'events') return this.#processEvents(ingest, data.eventIds);
          return this.#guard(connector, () => (data.kind === 'event' ? this.processEvent(data.eventId) : this.poll(data.storeId)));
        },
      });
      this.#ingest.set(platform, ingest);
      this.#received.set(
        platform,
        new JobBatcher(ingest, {
          windowMs: EVENTS_WINDOW_MS,
          max: EVENTS_BATCH,
          toJob: (eventIds) => ({ data: { kind: 'events', eventIds }, options: { jobId: `events-${eventIds[0]}` } }),
          onError: (err, eventIds) => this.#logger.warn('stored webhooks not queued; the sweeper will queue them', { platform, events: eventIds.length, error: err.message }),
        }),
      );
      this.#fulfil.set(
        platform,
        deps.queue.define<{ orderId: string }>(`fulfil-${slug}`, {
          concurrency: 4,
          attempts: 15,
          backoff: { type: 'exponential', delayMs: 5000 },
          process: (job) => this.#guard(connector, () => this.pushShipment(job.data.orderId)),
        }),
      );
    }
  }

  /** Maps a connector's typed failure to retry, wait or give up. */
  async #guard(connector: Connector<any>, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (err instanceof ConnectorError) {
        if (err.kind === 'rate_limited') throw new RetryLaterError(err.message, err.retryAfterMs ?? 2000);
        if (err.kind === 'auth' || err.kind === 'invalid_payload') throw new PermanentJobError(`${connector.manifest.displayName}: ${err.message}`);
      }
      throw err;
    }
  }

  /**
   * `POST /connectors/<platform>/webhooks/...`: verify, store, queue, answer. Forged or stale
   * requests get 401 and nothing is stored; duplicates are stored once.
   */
  async receiveWebhook(slug: string, req: InboundWebhook): Promise<{ status: number; body: unknown }> {
    const connector = this.#connectors.bySlug(slug);
    if (!connector) return { status: 404, body: { error: { code: 'not_found', message: `No connector '${slug}' is enabled.` } } };
    const platform = connector.manifest.platform;
    const pathStoreId = req.path.split('/').find((p) => p.startsWith('sto_'));
    let store: StoreRow | undefined;
    let reused = false;
    if (pathStoreId) {
      store = this.#storesForWebhooks.get(pathStoreId);
      reused = store !== undefined;
      store ??= await this.#storeForWebhooks(pathStoreId);
    } else {
      const external = connector.identifyStore?.(req);
      // A disconnected store still receives privacy requests (Shopify's shop/redact comes 48 h after uninstall).
      if (external) store = (await this.#stores.findConnected(platform, external)) ?? (await this.#latestStore(platform, external));
    }
    const verify = (row: StoreRow | undefined) => connector.verifyWebhook(req, { storeSecret: row ? this.#stores.webhookSecret(row) : undefined, settings: this.#connectors.settings(platform) });
    let verdict = await verify(store);
    // The store's secret may have changed since it was read (a reconnect registers new webhooks): read it again.
    if (!verdict.ok && reused) verdict = await verify((store = await this.#storeForWebhooks(pathStoreId!)));
    if (!verdict.ok) return { status: 401, body: { error: { code: 'invalid_signature', message: verdict.reason } } };
    if (verdict.acknowledgeOnly) return { status: 200, body: { received: true } };
    if (!store || store.platform !== platform) return { status: 200, body: { received: true, ignored: 'unknown store' } };
    const eventKey = verdict.eventId ?? sha256Hex(req.rawBody.toString('latin1'));
    const id = newId('whe');
    const inserted = await this.#db
      .insertInto('store_webhook_events')
      .values({
        id,
        platform,
        store_id: store.id,
        event_key: eventKey,
        topic: verdict.topic,
        headers: JSON.stringify(req.headers),
        raw_body: req.rawBody.toString('base64'),
        path: req.path,
        received_at: new Date(),
        processed_at: null,
      })
      .onConflict((oc) => oc.columns(['platform', 'event_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    // Stored is what the platform is told: the job follows within EVENTS_WINDOW_MS, and one lost is the sweeper's.
    if (inserted) this.#received.get(platform)!.add(id);
    return { status: 200, body: { received: true, duplicate: !inserted } };
  }

  async #storeForWebhooks(id: string): Promise<StoreRow | undefined> {
    const store = await this.#stores.findById(id);
    if (store) this.#storesForWebhooks.set(id, store);
    return store;
  }

  /** Queues the stored webhooks still waiting for their batch (at shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.#received.values()].map((b) => b.flush()));
  }

  async #latestStore(platform: string, externalId: string): Promise<StoreRow | undefined> {
    return this.#db.selectFrom('stores').selectAll().where('platform', '=', platform).where('external_id', '=', externalId).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  }

  /**
   * Takes one of the store's calls under the platform's rate limit, or has the job wait (no
   * attempt spent) until the window allows one.
   */
  async #callSlot(store: StoreRow): Promise<void> {
    const decision = await this.#callLimiters.get(store.platform)?.consume(store.id);
    if (decision && !decision.allowed) throw new RetryLaterError(`${store.platform} allows ${decision.limit} calls per window for a store`, Math.max(50, decision.msBeforeNext));
  }

  /**
   * The store's connection for a call to its platform (after taking a call slot), with expiring credentials renewed first
   * when the connector says they are due (and stored: some platforms rotate the refresh token).
   * Reads the stored credentials afresh (another job may have renewed them); one renewal at a
   * time per store in this process.
   */
  async #freshConnection(row: StoreRow): Promise<StoreConnection<unknown>> {
    await this.#callSlot(row);
    const store = (await this.#stores.findById(row.id)) ?? row;
    const connection = this.#stores.connection(store);
    const connector = this.#connectors.get(store.platform);
    if (!connector?.refreshCredentials) return connection;
    let renewal = this.#renewals.get(store.id);
    if (!renewal) {
      renewal = (async () => {
        const renewed = await connector.refreshCredentials!(this.#context(store.platform), connection);
        if (renewed) await this.#stores.updateCredentials(store.id, renewed);
        return renewed;
      })().finally(() => this.#renewals.delete(store.id));
      this.#renewals.set(store.id, renewal);
    }
    const renewed = await renewal;
    return renewed ? { ...connection, credentials: renewed } : connection;
  }

  /** A store was connected (or reconnected): register its webhooks and catch up by polling. */
  async onStoreConnected(store: StoreRow): Promise<void> {
    const connector = this.#connectors.get(store.platform);
    if (!connector) return;
    if (connector.registerWebhooks) {
      const ctx = this.#context(store.platform);
      const callbackUrl = `${ctx.publicUrl}/connectors/${platformSlug(store.platform)}/webhooks/${store.id}`;
      const { webhookSecret } = await connector.registerWebhooks(ctx, await this.#freshConnection(store), callbackUrl);
      if (webhookSecret) await this.#stores.setWebhookSecret(store.id, webhookSecret);
    }
    if (connector.listOrders) {
      // Not a failure of the connection: a store never polled is queued by the polling sweep (schedulePolls).
      await this.#ingest
        .get(store.platform)!
        .add({ kind: 'poll', storeId: store.id }, { jobId: `poll-${store.id}` })
        .catch((err: Error) => this.#logger.warn('first poll of a store not queued; the polling sweep will queue it', { storeId: store.id, error: err.message }));
    }
  }

  /** Re-queues stored webhooks that were never processed (a crash between store and queue). */
  async sweepEvents(olderThanMs = 60_000): Promise<number> {
    const rows = await this.#db
      .selectFrom('store_webhook_events')
      .select(['id', 'platform'])
      .where('processed_at', 'is', null)
      .where('received_at', '<', new Date(Date.now() - olderThanMs))
      .limit(500)
      .execute();
    const byPlatform = Map.groupBy(rows, (r) => r.platform);
    for (const [platform, events] of byPlatform) {
      for (let i = 0; i < events.length; i += EVENTS_BATCH) {
        const eventIds = events.slice(i, i + EVENTS_BATCH).map((e) => e.id);
        await this.#ingest.get(platform)?.add({ kind: 'events', eventIds }, { jobId: `events-${eventIds[0]}` });
      }
    }
    return rows.length;
  }

  /**
   * A batch of stored webhooks, read in two queries and ingested EVENTS_PARALLEL at a time. One
   * that fails goes back on the queue as a job of its own (with the usual retries and waits)
   * while the rest go on; the batch itself fails only when that cannot be queued, and its retry
   * skips what was processed.
   */
  async #processEvents(queue: Queue<IngestJob>, eventIds: string[]): Promise<void> {
    const loaded = await this.#loadEvents(eventIds);
    let next = 0;
    const lane = async () => {
      while (next < eventIds.length) {
        const eventId = eventIds[next++]!;
        const found = loaded.get(eventId);
        if (!found) continue;
        try {
          await this.#process(found.event, found.store);
        } catch (err) {
          const waitMs = err instanceof ConnectorError && err.kind === 'rate_limited' ? (err.retryAfterMs ?? 2000) : err instanceof RetryLaterError ? err.retryAfterMs : 1000;
          this.#logger.warn('stored webhook not ingested; retried on its own', { eventId, error: (err as Error).message });
          await queue.add({ kind: 'event', eventId }, { jobId: `event-${eventId}`, delayMs: waitMs });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(EVENTS_PARALLEL, eventIds.length) }, lane));
  }

  /** Stored webhooks not yet processed, with their stores. */
  async #loadEvents(eventIds: string[]): Promise<Map<string, { event: StoredEvent; store: StoreRow | undefined }>> {
    const events = await this.#db.selectFrom('store_webhook_events').selectAll().where('id', 'in', eventIds).where('processed_at', 'is', null).execute();
    const storeIds = [...new Set(events.flatMap((e) => (e.store_id ? [e.store_id] : [])))];
    const stores = new Map((storeIds.length ? await this.#db.selectFrom('stores').selectAll().where('id', 'in', storeIds).execute() : []).map((s) => [s.id, s]));
    return new Map(events.map((event) => [event.id, { event, store: event.store_id ? stores.get(event.store_id) : undefined }]));
  }

  async processEvent(eventId: string): Promise<void> {
    const found = (await this.#loadEvents([eventId])).get(eventId);
    if (found) await this.#process(found.event, found.store);
  }

  async #process(event: StoredEvent, store: StoreRow | undefined): Promise<void> {
    const eventId = event.id;
    const connector = this.#connectors.get(event.platform);
    // The last order of a delivery records its outcome and marks the delivery processed in one statement.
    let marked = false;
    if (store && connector) {
      const ctx = this.#context(store.platform);
      const connection = this.#stores.connection(store);
      const req: InboundWebhook = { headers: event.headers, rawBody: Buffer.from(event.raw_body, 'base64'), path: event.path, query: {} };
      let content: WebhookContent;
      if (store.status === 'connected') content = await connector.parseWebhook(ctx, connection, req);
      else {
        // A disconnected store's deliveries change nothing, except privacy requests, which are always honoured.
        const parsed = await connector.parseWebhook(ctx, connection, req).catch((err: Error) => {
          this.#logger.warn('delivery to a disconnected store not understood', { storeId: store.id, error: err.message });
          return null;
        });
        content = parsed?.kind === 'redact' ? parsed : { kind: 'ignored', reason: 'the store is disconnected' };
      }
      switch (content.kind) {
        case 'orders':
          for (const [i, order] of content.orders.entries()) marked = await this.ingestOrder(store, order, i === content.orders.length - 1 ? eventId : undefined);
          break;
        case 'fetch':
          if (connector.fetchOrders) for (const order of await connector.fetchOrders(ctx, await this.#freshConnection(store), content.externalOrderIds)) await this.ingestOrder(store, order);
          break;
        case 'uninstalled':
          await this.#stores.markDisconnected(store.id, 'The app was uninstalled from the store.');
          break;
        case 'redact':
          await this.redact(store.id, content.externalOrderIds);
          // The request itself names the customer: keep only that it happened.
          await this.#db.updateTable('store_webhook_events').set({ raw_body: '', headers: '{}' }).where('id', '=', eventId).execute();
          break;
        case 'ignored':
          break;
      }
    }
    if (!marked) await this.#markProcessed(eventId).execute();
  }

  #markProcessed(eventId: string) {
    return this.#db.updateTable('store_webhook_events').set({ processed_at: new Date() }).where('id', '=', eventId);
  }

  /**
   * One store order: place it when paid and it has print lines, cancel ours when it is
   * cancelled, record every outcome. An older copy of the order never overrides a newer one.
   * `fromEvent`: the stored webhook the order came in, marked processed by the statement that
   * records the outcome (the answer says whether it was: an order that changes nothing records nothing).
   */
  async ingestOrder(store: StoreRow, order: StoreOrder, fromEvent?: string): Promise<boolean> {
    const now = new Date();
    const upsert = this.#db
      .insertInto('store_ingests')
      .values({
        id: newId('ing', now.getTime()),
        store_id: store.id,
        external_order_id: order.externalId,
        external_name: order.name ?? null,
        // Until its outcome is recorded a moment later (a reader never sees a guess at it).
        status: 'received',
        order_id: null,
        skipped_lines: '[]',
        error: null,
        store_updated_at: null,
        store_created_at: new Date(order.createdAt),
        attempts: 0,
        created_at: now,
        updated_at: now,
      })
      // A no-op update on conflict, so the one statement returns the row, new or existing.
      .onConflict((oc) => oc.columns(['store_id', 'external_order_id']).doUpdateSet((eb) => ({ store_id: eb.ref('store_ingests.store_id') })))
      .returningAll();
    // Relaxed: lost in a crash, it is written again when the webhook is processed again (see record).
    const { rows } = await sql<StoreIngest & { relaxed: string }>`with ing as (${upsert}) select ing.*, ${RELAXED_COMMIT} as relaxed from ing`.execute(this.#db);
    const { relaxed: _, ...ingest } = rows[0]!;
    const updatedAt = new Date(order.updatedAt);
    const stale = ingest.store_updated_at !== null && updatedAt < ingest.store_updated_at;
    if (stale && !order.cancelled) return false;

    const record = async (patch: { status: typeof ingest.status; order_id?: string | null; skipped?: Array<{ sku: string | null; quantity: number; reason: string }>; error?: string | null }): Promise<boolean> => {
      const update = this.#db
        .updateTable('store_ingests')
        .set({
          status: patch.status,
          ...(patch.order_id !== undefined ? { order_id: patch.order_id } : {}),
          ...(patch.skipped ? { skipped_lines: JSON.stringify(patch.skipped) } : {}),
          error: patch.error ?? null,
          store_updated_at: stale ? ingest.store_updated_at : updatedAt,
          external_name: order.name ?? ingest.external_name,
          attempts: ingest.attempts + 1,
          updated_at: new Date(),
        })
        .where('id', '=', ingest.id);
      // Relaxed (RELAXED_COMMIT): the print order is committed as usual; losing this record and
      // the processed mark in a crash only has the sweeper queue the webhook again, and its
      // second run finds the order by its idempotency key and records it.
      if (fromEvent) await sql`with processed as (${this.#markProcessed(fromEvent)}), recorded as (${update}) select ${RELAXED_COMMIT} as relaxed`.execute(this.#db);
      else await sql`with recorded as (${update}) select ${RELAXED_COMMIT} as relaxed`.execute(this.#db);
      return fromEvent !== undefined;
    };
    const tenant = { resellerId: store.reseller_id, mode: store.mode };

    if (order.cancelled) {
      if (ingest.order_id) {
        try {
          await this.#orders.cancel(tenant, ingest.order_id);
          return await record({ status: 'cancelled' });
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 409) throw err;
          return record({ status: ingest.status, error: `The store cancelled the order, but ours could not be: ${err.message}` });
        }
      }
      return record({ status: 'cancelled' });
    }
    if (ingest.order_id) return false; // placed already: nothing an update can change

    const skipped: Array<{ sku: string | null; quantity: number; reason: string }> = [];
    const lines: Array<{ resellerSku: string; quantity: number }> = [];
    // Every SKU of the order in one query; the order placement below uses the same lookups.
    const products = await this.#products.findBySkus(tenant, order.lines.flatMap((l) => (l.sku?.trim() ? [l.sku.trim()] : [])));
    for (const line of order.lines) {
      const sku = line.sku?.trim() || null;
      if (!sku) {
        skipped.push({ sku, quantity: line.quantity, reason: 'no SKU: not a print item' });
        continue;
      }
      const product = products.get(sku.toLowerCase());
      if (!product) {
        skipped.push({ sku, quantity: line.quantity, reason: 'not one of your SKUs: not a print item' });
        continue;
      }
      if (!product.active) {
        skipped.push({ sku, quantity: line.quantity, reason: 'your product with this SKU is inactive' });
        continue;
      }
      lines.push({ resellerSku: product.sku, quantity: line.quantity });
      if (line.externalProductId || line.externalVariantId) await this.#stores.discoverLink(store, product.id, product.sku, line.externalProductId ?? null, line.externalVariantId ?? null);
    }
    if (lines.length === 0) return record({ status: 'no_print_lines', skipped });
    if (!order.paid) return record({ status: 'waiting_payment', skipped });
    if (!order.recipient) return record({ status: 'failed', skipped, error: 'The store order has no shipping address.' });
    try {
      const result = await this.#orders.place(
        tenant,
        {
          externalOrderId: order.externalId,
          lines,
          recipient: { ...order.recipient, country: order.recipient.country.toUpperCase() },
        },
        { idempotencyKey: `${store.platform.toLowerCase()}:${store.id}:${order.externalId}`, source: store.platform, storeId: store.id, knownSkus: products },
      );
      if (!result.duplicate) this.#onPlaced(store.platform, order.createdAt);
      return await record({ status: 'placed', order_id: result.order.id, skipped });
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) return record({ status: 'failed', skipped, error: `${err.code}: ${err.message}` });
      throw err;
    }
  }

  /** Polls one store for orders changed since its cursor (polling platforms, and catch-up after missed webhooks). */
  async poll(storeId: string): Promise<void> {
    const store = await this.#stores.findById(storeId);
    if (!store || store.status !== 'connected') return;
    const connector = this.#connectors.get(store.platform);
    if (!connector?.listOrders) return;
    const ctx = this.#context(store.platform);
    const connection = await this.#freshConnection(store);
    let cursor = store.poll_cursor;
    for (let page = 0; page < 50; page++) {
      if (page > 0) await this.#callSlot(store);
      const result = await connector.listOrders(ctx, connection, cursor);
      for (const order of result.orders) await this.ingestOrder(store, order);
      if (result.nextCursor) cursor = result.nextCursor;
      await this.#db.updateTable('stores').set({ poll_cursor: cursor, last_polled_at: new Date() }).where('id', '=', store.id).execute();
      if (result.orders.length === 0 || !result.nextCursor || result.nextCursor === store.poll_cursor) break;
    }
  }

  /** Queues a poll of every connected polling store (the maintenance loop calls this). */
  async schedulePolls(): Promise<number> {
    let n = 0;
    for (const store of await this.#stores.connectedStores()) {
      const connector = this.#connectors.get(store.platform);
      if (!connector?.manifest.capabilities.polling) continue;
      const interval = connector.manifest.pollIntervalMs ?? 5 * 60_000;
      if (store.last_polled_at && Date.now() - store.last_polled_at.getTime() < interval) continue;
      await this.#ingest.get(store.platform)!.add({ kind: 'poll', storeId: store.id }, { jobId: `poll-${store.id}` });
      n++;
    }
    return n;
  }

  /**
   * Asks for a queueShipments run soon: the calls of many order writes close together (every
   * write with events calls this) share one run, and one made while a run is under way gets
   * another run after it, so no shipment written meanwhile waits for the sweeper.
   */
  queueShipmentsSoon(onError: (err: Error) => void): void {
    if (this.#shipments === 'running') this.#shipments = 'again';
    if (this.#shipments !== 'idle') return;
    this.#shipments = 'scheduled';
    const run = () => {
      this.#shipments = 'running';
      this.queueShipments()
        .catch(onError)
        .finally(() => {
          const again = this.#shipments === 'again';
          this.#shipments = 'idle';
          if (again) this.queueShipmentsSoon(onError);
        });
    };
    setTimeout(run, SHIPMENTS_COALESCE_MS).unref();
  }

  #shipments: 'idle' | 'scheduled' | 'running' | 'again' = 'idle';

  /**
   * Finds shipped store orders whose tracking has not been pushed and queues the push: those
   * without a fulfilment yet, and those whose push was queued over SHIPMENT_REQUEUE_AFTER_MS ago
   * and never tried (its job was lost: Redis away when it was added, or a crash in between).
   * Adding a job again while it still waits is harmless (one job per id).
   */
  async queueShipments(): Promise<number> {
    const requeueBefore = new Date(Date.now() - SHIPMENT_REQUEUE_AFTER_MS);
    const rows = await this.#db
      .selectFrom('orders')
      .innerJoin('stores', 'stores.id', 'orders.store_id')
      .leftJoin('store_fulfilments', 'store_fulfilments.order_id', 'orders.id')
      .select(['orders.id', 'orders.store_id', 'stores.platform'])
      // The conditions of store_orders_shipped_idx, so the lookup uses it.
      .where('orders.store_id', 'is not', null)
      .where('orders.tracking', 'is not', null)
      .where('orders.status', 'in', ['SHIPPED', 'DELIVERED'])
      .where((eb) =>
        eb.or([
          eb('store_fulfilments.order_id', 'is', null),
          eb.and([
            eb('store_fulfilments.status', '=', 'pending'),
            eb('store_fulfilments.attempts', '=', 0),
            eb('store_fulfilments.updated_at', '<', requeueBefore),
            eb('stores.status', '=', 'connected'),
          ]),
        ]),
      )
      .where('orders.updated_at', '>', new Date(Date.now() - 30 * 24 * 3600 * 1000))
      .limit(500)
      .execute();
    for (const r of rows) {
      const connector = this.#connectors.get(r.platform);
      if (!connector?.manifest.capabilities.fulfilment) continue;
      const now = new Date();
      // A fulfilment queued again is marked so: not again before SHIPMENT_REQUEUE_AFTER_MS.
      await this.#db
        .insertInto('store_fulfilments')
        .values({ order_id: r.id, store_id: r.store_id!, status: 'pending', attempts: 0, last_error: null, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('order_id').doUpdateSet({ updated_at: now }).where('store_fulfilments.status', '=', 'pending'))
        .execute();
      await this.#fulfil.get(r.platform)!.add({ orderId: r.id }, { jobId: `fulfil-${r.id}` });
    }
    return rows.length;
  }

  async pushShipment(orderId: string): Promise<void> {
    const fulfilment = await this.#db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
    if (!fulfilment || fulfilment.status === 'pushed') return;
    const store = await this.#stores.findById(fulfilment.store_id);
    if (!store || store.status !== 'connected') return;
    const connector = this.#connectors.get(store.platform);
    const order = await this.#orders.get({ resellerId: store.reseller_id, mode: store.mode }, orderId);
    if (!connector?.pushShipment || !order.tracking || !order.externalOrderId) return;
    try {
      await connector.pushShipment(this.#context(store.platform), await this.#freshConnection(store), {
        externalOrderId: order.externalOrderId,
        carrier: order.tracking.carrier,
        trackingNumber: order.tracking.trackingNumber,
        trackingUrl: order.tracking.trackingUrl,
        lines: order.lines.map((l) => ({ externalLineId: null, sku: l.resellerSku, quantity: l.quantity })),
      });
      await this.#db.updateTable('store_fulfilments').set({ status: 'pushed', attempts: fulfilment.attempts + 1, last_error: null, updated_at: new Date() }).where('order_id', '=', orderId).execute();
    } catch (err) {
      await this.#db
        .updateTable('store_fulfilments')
        .set({ attempts: fulfilment.attempts + 1, last_error: (err as Error).message, updated_at: new Date() })
        .where('order_id', '=', orderId)
        .execute();
      throw err;
    }
  }

  /** Privacy: erases the personal data we hold for these store orders (or the whole store). */
  async redact(storeId: string, externalOrderIds: string[] | 'all'): Promise<void> {
    // Every connection we ever had to this store (reconnects make new rows) holds its data.
    const store = await this.#stores.findById(storeId);
    const storeIds = store ? (await this.#db.selectFrom('stores').select('id').where('platform', '=', store.platform).where('external_id', '=', store.external_id).execute()).map((r) => r.id) : [storeId];
    let q = this.#db.updateTable('store_ingests').set({ external_name: null, skipped_lines: '[]', error: null, updated_at: new Date() }).where('store_id', 'in', storeIds);
    if (externalOrderIds !== 'all') q = q.where('external_order_id', 'in', externalOrderIds.length ? externalOrderIds : ['']);
    await q.execute();
    await this.#db.updateTable('store_webhook_events').set({ raw_body: '', headers: '{}' }).where('store_id', 'in', storeIds).where('processed_at', 'is not', null).execute();
    this.#logger.info('store data redacted', { storeId, orders: externalOrderIds === 'all' ? 'all' : externalOrderIds.length });
  }

  ingestQueue(platform: string): Queue<IngestJob> | undefined {
    return this.#ingest.get(platform);
  }
}
