import type { ConnectorContext } from '@print-api/connector-kit';
import type { Db } from '../tables.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import type { OrderIngester } from './order-ingester.ts';
import type { StoreCalls } from './store-calls.ts';
import type { StoreRow, StoresService } from './stores-service.ts';

/** Pages of orders one poll reads at most (the next poll goes on from the cursor). */
const MAX_PAGES = 50;
/** How often a polling store is polled when its connector names no interval. */
const DEFAULT_POLL_INTERVAL_MS = 5 * 60_000;

/**
 * Polling: a store's orders changed since its cursor, for platforms that are polled and to
 * catch up after missed webhooks (on connect and on schedule). The queue runs one poll job per
 * store at a time (job id `poll-<store>`).
 */
export class StorePoller {
  readonly #db: Db;
  readonly #stores: StoresService;
  readonly #connectors: ConnectorRegistry;
  readonly #context: (platform: string) => ConnectorContext;
  readonly #calls: StoreCalls;
  readonly #ingester: OrderIngester;
  readonly #queuePoll: (store: StoreRow) => Promise<void>;

  constructor(deps: {
    db: Db;
    stores: StoresService;
    connectors: ConnectorRegistry;
    context: (platform: string) => ConnectorContext;
    calls: StoreCalls;
    ingester: OrderIngester;
    /** Queues the store's poll job (one per store at a time). */
    queuePoll: (store: StoreRow) => Promise<void>;
  }) {
    this.#db = deps.db;
    this.#stores = deps.stores;
    this.#connectors = deps.connectors;
    this.#context = deps.context;
    this.#calls = deps.calls;
    this.#ingester = deps.ingester;
    this.#queuePoll = deps.queuePoll;
  }

  /** Whether the store's platform lists orders (every such platform can be polled and synced). */
  canPoll(store: StoreRow): boolean {
    return this.#connectors.get(store.platform)?.listOrders !== undefined;
  }

  /** Polls one store for orders changed since its cursor (the poll job). */
  async poll(storeId: string): Promise<void> {
    const store = await this.#stores.findById(storeId);
    if (!store || store.status !== 'connected' || !this.canPoll(store)) return;
    const connector = this.#connectors.get(store.platform)!;
    const ctx = this.#context(store.platform);
    const connection = await this.#calls.connection(store);
    let cursor = store.poll_cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      if (page > 0) await this.#calls.slot(store);
      const result = await connector.listOrders!(ctx, connection, cursor);
      for (const order of result.orders) await this.#ingester.ingest(store, order);
      if (result.nextCursor) cursor = result.nextCursor;
      await this.#db.updateTable('stores').set({ poll_cursor: cursor, last_polled_at: new Date() }).where('id', '=', store.id).execute();
      if (result.orders.length === 0 || !result.nextCursor || result.nextCursor === store.poll_cursor) break;
    }
  }

  /** Queues a poll of every connected polling store whose interval has passed (the maintenance loop calls this). */
  async schedulePolls(): Promise<number> {
    let n = 0;
    for (const store of await this.#stores.connectedStores()) {
      const connector = this.#connectors.get(store.platform);
      if (!connector?.manifest.capabilities.polling) continue;
      const interval = connector.manifest.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
      if (store.last_polled_at && Date.now() - store.last_polled_at.getTime() < interval) continue;
      await this.#queuePoll(store);
      n++;
    }
    return n;
  }
}
