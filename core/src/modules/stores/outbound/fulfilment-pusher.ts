import { ConnectorError } from '@print-api/connector-kit';
import { sql } from 'kysely';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import type { EventEnvelope } from '../../events/outbox.ts';
import type { OrdersService } from '../../orders/orders-service.ts';
import type { StoreCalls } from './store-calls.ts';
import type { StoreConnections } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';

/** Shipped store orders the safety sweep reads per page, and how far back. */
const SHIPMENTS_PER_PAGE = 500;
const SHIPMENTS_LOOKBACK_MS = 30 * 24 * 3600 * 1000;
/**
 * How often the safety sweep reads the last 30 days for shipped store orders whose order.shipped was never told (the
 * process that committed it died first). A process's first round reads them too, so a crash is covered once its
 * process is back; a shipment that could not be queued by a process that lives on is queued again the next round.
 */
export const SHIPMENTS_SWEEP_MS = 10 * 60_000;
/** Shipments whose queueing failed kept for the next round (past this, the 30-day read finds them). */
const UNQUEUED_KEPT = 10_000;
/** Attempts at one push (its job's), and the wait after the first failure (doubling after each). */
export const PUSH_ATTEMPTS = 15;
export const PUSH_BACKOFF_MS = 5000;
/**
 * A push whose next attempt is this much overdue has lost its job (Redis away when it was added, Redis restarted
 * empty, a crash in between): queued again (queueShipments).
 */
const PUSH_OVERDUE_MS = 60_000;
/** Pending pushes queued again at most when the queue is back after an outage (10,000); the sweeps take any more. */
const REQUEUE_MAX_PAGES = 20;

/** An order that shipped: from its order.shipped event, or found by the safety sweep. */
interface Shipped {
  orderId: string;
  storeId: string;
}

export interface FulfilmentPusherDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context'> {
  connections: StoreConnections;
  orders: OrdersService;
  calls: StoreCalls;
  /** Queues the push of one order's tracking (one job per order). */
  queuePush: (platform: string, orderId: string) => Promise<void>;
}

/**
 * Fulfilment push: when a store's order ships, its tracking goes back to the store (one
 * store_fulfilments row per shipped store order, pushed by the platform's fulfil queue with
 * retries and the platform's rate limit). It starts from the order.shipped event (queueShipped,
 * subscribed to the outbox); the maintenance sweep (queueShipments) queues again a push whose
 * job was lost and, every SHIPMENTS_SWEEP_MS, the shipped store orders an event never reached.
 */
export class FulfilmentPusher {
  readonly #deps: FulfilmentPusherDeps;
  /** When the sweep last read 30 days of shipped store orders (0: never, so the first round does). */
  #sweptOrdersAt = 0;
  /** Shipments told by order.shipped whose queueing failed (the database or queue away): the next round's. */
  #unqueued: Shipped[] = [];

  constructor(deps: FulfilmentPusherDeps) {
    this.#deps = deps;
  }

  /**
   * order.shipped events (committed): the store orders among them get their push queued, with no read of the orders.
   */
  async queueShipped(events: EventEnvelope[]): Promise<number> {
    const shipped = events.flatMap((e) => {
      const order = e.data.order as { id?: unknown; storeId?: unknown } | undefined;
      return e.data.tracking && typeof order?.id === 'string' && typeof order.storeId === 'string'
        ? [{ orderId: order.id, storeId: order.storeId }]
        : [];
    });
    try {
      return await this.#queue(shipped);
    } catch (err) {
      this.#keepForNextRound(shipped);
      throw err;
    }
  }

  /**
   * The safety sweep (a maintenance task). Queues the shipments whose queueing failed since the last
   * round, and again the pending pushes whose next attempt is over PUSH_OVERDUE_MS late (by the
   * job's backoff after the attempts recorded): their job was lost, whether it had been tried or
   * not. Every SHIPMENTS_SWEEP_MS (and on the first round), the shipped store orders of the last 30
   * days without a push: their order.shipped was committed and never told. Adding a job again while
   * it still waits is harmless (one job per id).
   */
  async queueShipments(now: Date = new Date()): Promise<number> {
    const unqueued = this.#unqueued;
    this.#unqueued = [];
    let queued: number;
    try {
      queued = await this.#queue(unqueued);
    } catch (err) {
      this.#keepForNextRound(unqueued);
      throw err;
    }
    queued += await this.#queue(await this.#pendingPushes({ overdueAt: now, limit: SHIPMENTS_PER_PAGE }));
    if (now.getTime() - this.#sweptOrdersAt < SHIPMENTS_SWEEP_MS) return queued;
    queued += await this.#queueUnpushed(new Date(now.getTime() - SHIPMENTS_LOOKBACK_MS));
    // Only once the read succeeded: a failed one is read again the next round.
    this.#sweptOrdersAt = now.getTime();
    return queued;
  }

  /** Shipments whose queueing failed, for the next round (the most recent UNQUEUED_KEPT). */
  #keepForNextRound(shipped: Shipped[]): void {
    this.#unqueued = [...this.#unqueued, ...shipped].slice(-UNQUEUED_KEPT);
  }

  /**
   * Every pending push queued again (the queue is back after an outage, perhaps empty: the jobs
   * it held are lost), up to REQUEUE_MAX_PAGES pages; the sweeps take any more.
   */
  async requeuePending(): Promise<number> {
    let queued = 0;
    let after: string | undefined;
    for (let page = 0; page < REQUEUE_MAX_PAGES; page++) {
      const rows = await this.#pendingPushes({ after, limit: SHIPMENTS_PER_PAGE });
      queued += await this.#queue(rows);
      if (rows.length < SHIPMENTS_PER_PAGE) break;
      after = rows.at(-1)!.orderId;
    }
    return queued;
  }

  /**
   * A push that will not be tried again (its attempts ran out, or the platform refused it for
   * good): marked failed, so that no sweep queues it again and the store's health counts it.
   */
  async giveUp(orderId: string): Promise<void> {
    await this.#deps.db
      .updateTable('store_fulfilments')
      .set({ status: 'failed', updated_at: new Date() })
      .where('order_id', '=', orderId)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Pending pushes of connected stores, by order id: all of them, or (`overdueAt`) those whose next
   * attempt is over PUSH_OVERDUE_MS late at that time (the first is due at once, the next
   * PUSH_BACKOFF_MS after the first failure, doubling after each).
   */
  async #pendingPushes(query: { overdueAt?: Date; after?: string | undefined; limit: number }): Promise<Shipped[]> {
    let q = this.#deps.db
      .selectFrom('store_fulfilments')
      .innerJoin('stores', 'stores.id', 'store_fulfilments.store_id')
      .select(['store_fulfilments.order_id', 'store_fulfilments.store_id'])
      .where('store_fulfilments.status', '=', 'pending')
      .where('store_fulfilments.attempts', '<', PUSH_ATTEMPTS)
      .where('stores.status', '=', 'connected');
    const { overdueAt, after } = query;
    if (overdueAt) {
      const backoffSeconds = sql<number>`case when store_fulfilments.attempts = 0 then 0
        else ${PUSH_BACKOFF_MS / 1000} * power(2, store_fulfilments.attempts - 1) end`;
      const lateBefore = new Date(overdueAt.getTime() - PUSH_OVERDUE_MS);
      q = q.where(
        sql<boolean>`store_fulfilments.updated_at + make_interval(secs => ${backoffSeconds}) < ${lateBefore}`,
      );
    }
    if (after) q = q.where('store_fulfilments.order_id', '>', after);
    const rows = await q.orderBy('store_fulfilments.order_id').limit(query.limit).execute();
    return rows.map((r) => ({ orderId: r.order_id, storeId: r.store_id }));
  }

  /** The store orders shipped after `updatedAfter` without a push, page by page (the orders module's read), queued. */
  async #queueUnpushed(updatedAfter: Date): Promise<number> {
    let queued = 0;
    let after: { updatedAt: Date; id: string } | undefined;
    for (;;) {
      const page = await this.#deps.orders.upkeep.shippedStoreOrders({
        updatedAfter,
        after,
        limit: SHIPMENTS_PER_PAGE,
      });
      if (page.length === 0) return queued;
      const known = await this.#deps.db
        .selectFrom('store_fulfilments')
        .select('order_id')
        .where(
          'order_id',
          'in',
          page.map((o) => o.id),
        )
        .execute();
      const seen = new Set(known.map((k) => k.order_id));
      queued += await this.#queue(
        page.filter((o) => !seen.has(o.id)).map((o) => ({ orderId: o.id, storeId: o.storeId })),
      );
      if (page.length < SHIPMENTS_PER_PAGE) return queued;
      const last = page[page.length - 1]!;
      after = { updatedAt: last.updatedAt, id: last.id };
    }
  }

  /**
   * Records each shipment's push as pending (one statement; a push queued again is marked so: not
   * overdue again before PUSH_OVERDUE_MS) and queues it, for stores whose connector pushes
   * fulfilments.
   */
  async #queue(shipped: Shipped[]): Promise<number> {
    shipped = [...new Map(shipped.map((s) => [s.orderId, s])).values()];
    if (shipped.length === 0) return 0;
    const stores = await this.#deps.db
      .selectFrom('stores')
      .select(['id', 'platform'])
      .where('id', 'in', [...new Set(shipped.map((s) => s.storeId))])
      .execute();
    const platforms = new Map(stores.map((s) => [s.id, s.platform]));
    const pushed = shipped.filter(
      (s) => this.#deps.connectors.get(platforms.get(s.storeId) ?? '')?.manifest.capabilities.fulfilment,
    );
    if (pushed.length === 0) return 0;
    const now = new Date();
    await this.#deps.db
      .insertInto('store_fulfilments')
      .values(
        pushed.map((s) => ({
          order_id: s.orderId,
          store_id: s.storeId,
          status: 'pending' as const,
          attempts: 0,
          last_error: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc.column('order_id').doUpdateSet({ updated_at: now }).where('store_fulfilments.status', '=', 'pending'),
      )
      .execute();
    for (const s of pushed) await this.#deps.queuePush(platforms.get(s.storeId)!, s.orderId);
    return pushed.length;
  }

  /**
   * Pushes one order's tracking to its store (the fulfil job); every attempt is recorded, a wait for a call slot is not
   * one.
   */
  async push(orderId: string): Promise<void> {
    const fulfilment = await this.#deps.db
      .selectFrom('store_fulfilments')
      .selectAll()
      .where('order_id', '=', orderId)
      .executeTakeFirst();
    if (!fulfilment || fulfilment.status === 'pushed') return;
    const store = await this.#deps.connections.findById(fulfilment.store_id);
    if (!store || store.status !== 'connected') return;
    const connector = this.#deps.connectors.get(store.platform);
    const order = await this.#deps.orders.get({ resellerId: store.reseller_id, mode: store.mode }, orderId);
    if (!connector?.pushShipment || !order.tracking || !order.externalOrderId) return;
    try {
      await connector.pushShipment(this.#deps.context(store.platform), await this.#deps.calls.connection(store), {
        externalOrderId: order.externalOrderId,
        carrier: order.tracking.carrier,
        trackingNumber: order.tracking.trackingNumber,
        trackingUrl: order.tracking.trackingUrl,
        lines: order.lines.map((l) => ({ externalLineId: null, sku: l.resellerSku, quantity: l.quantity })),
      });
      await this.#deps.db
        .updateTable('store_fulfilments')
        .set({ status: 'pushed', attempts: fulfilment.attempts + 1, last_error: null, updated_at: new Date() })
        .where('order_id', '=', orderId)
        .execute();
    } catch (err) {
      // A wait for the store's call budget or the platform's rate limit is not an attempt: the job
      // comes back when a call is allowed, and nothing was tried.
      if (err instanceof RetryLaterError || (err instanceof ConnectorError && err.kind === 'rate_limited')) throw err;
      await this.#deps.db
        .updateTable('store_fulfilments')
        .set({ attempts: fulfilment.attempts + 1, last_error: (err as Error).message, updated_at: new Date() })
        .where('order_id', '=', orderId)
        .execute();
      throw err;
    }
  }
}
