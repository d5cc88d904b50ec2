import type { StoreOrder } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { sql } from 'kysely';
import { wrongState, rejected } from '../../../kernel/refusal.ts';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import type { ListingSyncer } from '../catalogue/listing-syncer.ts';
import type { OrderIngester } from './order-ingester.ts';
import { PollBudgetWait, type StoreCalls } from '../outbound/store-calls.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';

/** Pages of orders one poll reads at most (the next poll goes on from the cursor). */
const MAX_PAGES = 50;
/** Orders of one page ingested side by side (each is placed on its own, idempotently). */
const PAGE_PARALLEL = 8;
/** How often a polling store is polled when its connector names no interval. */
const DEFAULT_POLL_INTERVAL_MS = 5 * 60_000;

/**
 * How long a poll holds the store's sync lease without renewing it (every page renews it). A
 * process that dies mid-poll leaves a lease that runs out by itself.
 */
export const SYNC_LEASE_MS = 2 * 60_000;

/** When a sync was asked for (POST /stores/{id}/sync). */
export interface SyncRequest {
  storeId: string;
  requestedAt: string;
  /**
   * When the poll may call the platform: now, or later where the platform meters its order search (pollBudget) and the
   * store's budget is spent.
   */
  pollsAt: string;
}

export interface StorePollerDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context'> {
  connections: StoreConnections;
  calls: StoreCalls;
  ingester: OrderIngester;
  /** Queues the store's poll job (one per store at a time). */
  /** Queues a poll of the store (one job per store; `suffix` makes it a job of its own). */
  queuePoll: (store: StoreRow, suffix?: string) => Promise<void>;
  /** A sync also reads the store's listings again. */
  listings?: ListingSyncer;
}

/**
 * Polling: a store's orders changed since its cursor, for platforms that are polled and to
 * catch up after missed webhooks (on connect, on schedule, and on demand through
 * `POST /stores/{id}/sync`).
 *
 * A poll holds a lease on the store row (`poll_lease_until`) while it runs, and a sync request
 * takes it when it is free: a second request while one runs is refused (409 sync_in_progress)
 * whichever process answers it. The queue runs one poll job per store at a time (job id
 * `poll-<store>`).
 */
export class StorePoller {
  readonly #deps: StorePollerDeps;

  constructor(deps: StorePollerDeps) {
    this.#deps = deps;
  }

  /** Whether the store's platform lists orders (every such platform can be polled and synced). */
  canPoll(store: StoreRow): boolean {
    return this.#deps.connectors.get(store.platform)?.listOrders !== undefined;
  }

  /**
   * `POST /stores/{id}/sync`: takes the store's sync lease and queues a poll now (and a listings
   * sync, where the platform lists them). Where the platform meters its order search and the
   * store's budget is spent, the poll waits for it: the answer says when (`pollsAt`), and the
   * lease is left free meanwhile (nothing runs), so a sync asked for again answers the same.
   */
  async requestSync(tenant: Tenant, storeId: string): Promise<SyncRequest> {
    const store = await this.#deps.connections.row(tenant, storeId);
    if (store.status !== 'connected')
      throw wrongState('store_disconnected', `Store ${storeId} is disconnected: connect it again to sync it.`);
    if (!this.canPoll(store))
      throw rejected(
        'sync_not_supported',
        `${this.#deps.connectors.get(store.platform)?.manifest.displayName ?? store.platform} stores cannot be asked for their orders.`,
      );
    const taken = await this.#deps.db
      .updateTable('stores')
      .set({ poll_lease_until: this.#leaseEnd() })
      .where('id', '=', storeId)
      .where((eb) => eb.or([eb('poll_lease_until', 'is', null), eb('poll_lease_until', '<', sql<Date>`now()`)]))
      .returning(sql<Date>`now()`.as('now'))
      .executeTakeFirst();
    if (!taken)
      throw wrongState(
        'sync_in_progress',
        `A sync of store ${storeId} is under way: its orders show in GET /stores/${storeId}/ingests as they come, and lastPolledAt says when it ended.`,
      );
    try {
      // A job of its own: the poll that just released the store may still be finishing as a
      // job, and a job of the same id still running is not added again (the sync would be lost).
      await this.#deps.queuePoll(store, `sync-${new Date(taken.now).getTime()}`);
    } catch (err) {
      await this.#release(storeId);
      throw err;
    }
    await this.#deps.listings?.requestSyncQuietly(store);
    const waitMs = await this.#deps.calls.pollWaitMs(store);
    if (waitMs > 0) await this.#release(storeId);
    return {
      storeId,
      requestedAt: new Date(taken.now).toISOString(),
      pollsAt: new Date(new Date(taken.now).getTime() + waitMs).toISOString(),
    };
  }

  /** Polls one store for orders changed since its cursor (the poll job). */
  async poll(storeId: string): Promise<void> {
    const store = await this.#deps.connections.findById(storeId);
    if (!store || store.status !== 'connected' || !this.canPoll(store)) {
      if (store?.poll_lease_until) await this.#release(storeId);
      return;
    }
    await this.#deps.db
      .updateTable('stores')
      .set({ poll_lease_until: this.#leaseEnd() })
      .where('id', '=', storeId)
      .execute();
    try {
      await this.#pages(store);
    } catch (err) {
      // A poll that waits for the platform's budget comes back without spending an attempt: it
      // keeps the lease, but for the order-search budget (it runs nothing until then: a sync
      // asked for meanwhile answers when it will).
      if (
        err instanceof PollBudgetWait ||
        (!(err instanceof RetryLaterError) && !(err instanceof ConnectorError && err.kind === 'rate_limited'))
      )
        await this.#release(storeId);
      await this.#deps.calls.disconnectIfRevoked(storeId, err);
      throw err;
    }
    await this.#release(storeId);
  }

  async #pages(store: StoreRow): Promise<void> {
    const connector = this.#deps.connectors.get(store.platform)!;
    const ctx = this.#deps.context(store.platform);
    // A platform that meters its order search on its own (pollBudget: Amazon's searchOrders, a
    // budget per operation) holds the pages to that budget; its rateLimit is for its other calls.
    const metered = this.#deps.calls.searchMetered(store.platform);
    // The scarce order-search budget is taken last, once nothing else can hold the call back.
    const connection = await this.#deps.calls.connection(store, { slot: !metered });
    await this.#deps.calls.pollSlot(store);
    let cursor = store.poll_cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      if (page > 0) {
        if (!metered) await this.#deps.calls.slot(store);
        await this.#deps.calls.pollSlot(store);
      }
      const asked = cursor;
      const result = await connector.listOrders!(ctx, connection, asked);
      await this.#ingestPage(store, result.orders);
      if (result.notice)
        await this.#deps.db
          .updateTable('stores')
          .set({ poll_notice: result.notice, poll_notice_at: new Date() })
          .where('id', '=', store.id)
          .execute();
      if (result.nextCursor) cursor = result.nextCursor;
      await this.#deps.db
        .updateTable('stores')
        .set({ poll_cursor: cursor, last_polled_at: new Date(), poll_lease_until: this.#leaseEnd() })
        .where('id', '=', store.id)
        .execute();
      // Done when a page is empty or the cursor stops moving: a cursor with an overlap window
      // hands back the page it was given while nothing newer came (reading it again finds no more).
      if (result.done || result.orders.length === 0 || !result.nextCursor || result.nextCursor === asked) break;
    }
  }

  /**
   * A page's orders, PAGE_PARALLEL at a time (a platform that is only polled brings every order
   * this way). One that fails fails the page once the others are done: its cursor is not
   * stored, and the retry reads the page again (what was placed is not placed twice).
   */
  async #ingestPage(store: StoreRow, orders: StoreOrder[]): Promise<void> {
    let next = 0;
    let failure: { err: unknown } | undefined;
    const lane = async () => {
      while (next < orders.length) {
        const order = orders[next++]!;
        try {
          await this.#deps.ingester.ingest(store, order);
        } catch (err) {
          failure ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PAGE_PARALLEL, orders.length) }, lane));
    if (failure) throw failure.err;
  }

  /** Queues a poll of every connected polling store whose interval has passed (the maintenance loop calls this). */
  async schedulePolls(): Promise<number> {
    let n = 0;
    for (const store of await this.#deps.connections.connectedStores()) {
      const connector = this.#deps.connectors.get(store.platform);
      if (!connector?.manifest.capabilities.polling) continue;
      const interval = connector.manifest.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
      if (store.last_polled_at && Date.now() - store.last_polled_at.getTime() < interval) continue;
      await this.#deps.queuePoll(store);
      n++;
    }
    return n;
  }

  /** The database's clock decides leases: every process reads the same one. */
  #leaseEnd() {
    return sql<Date>`now() + ${`${SYNC_LEASE_MS} milliseconds`}::interval`;
  }

  async #release(storeId: string): Promise<void> {
    await this.#deps.db.updateTable('stores').set({ poll_lease_until: null }).where('id', '=', storeId).execute();
  }
}
