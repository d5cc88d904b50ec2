import { ConnectorError, type ConnectorContext } from '@print-api/connector-kit';
import { RetryLaterError } from '../../infra/queue/job-queue.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import type { Db } from '../tables.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import type { StoreCalls } from './store-calls.ts';
import type { StoresService } from './stores-service.ts';

/** How long order writes are gathered before one look for shipments to push (queueSoon). */
const SHIPMENTS_COALESCE_MS = 100;
/** Shipped store orders looked at per run, and how far back. */
const SHIPMENTS_PER_RUN = 500;
const SHIPMENTS_LOOKBACK_MS = 30 * 24 * 3600 * 1000;
/** A tracking push queued this long ago and never tried has lost its job: queued again (queueShipments). */
const SHIPMENT_REQUEUE_AFTER_MS = 60_000;

/**
 * Fulfilment push: when a store's order ships, its tracking goes back to the store (one
 * store_fulfilments row per shipped store order, pushed by the platform's fulfil queue with
 * retries and the platform's rate limit).
 */
export class FulfilmentPusher {
  readonly #db: Db;
  readonly #stores: StoresService;
  readonly #connectors: ConnectorRegistry;
  readonly #orders: OrdersService;
  readonly #context: (platform: string) => ConnectorContext;
  readonly #calls: StoreCalls;
  readonly #queuePush: (platform: string, orderId: string) => Promise<void>;
  #state: 'idle' | 'scheduled' | 'running' | 'again' = 'idle';

  constructor(deps: {
    db: Db;
    stores: StoresService;
    connectors: ConnectorRegistry;
    orders: OrdersService;
    context: (platform: string) => ConnectorContext;
    calls: StoreCalls;
    /** Queues the push of one order's tracking (one job per order). */
    queuePush: (platform: string, orderId: string) => Promise<void>;
  }) {
    this.#db = deps.db;
    this.#stores = deps.stores;
    this.#connectors = deps.connectors;
    this.#orders = deps.orders;
    this.#context = deps.context;
    this.#calls = deps.calls;
    this.#queuePush = deps.queuePush;
  }

  /**
   * Asks for a queueShipments run soon: the calls of many order writes close together (every
   * write with events calls this) share one run, and one made while a run is under way gets
   * another run after it, so no shipment written meanwhile waits for the sweeper.
   */
  queueSoon(onError: (err: Error) => void): void {
    if (this.#state === 'running') this.#state = 'again';
    if (this.#state !== 'idle') return;
    this.#state = 'scheduled';
    const run = () => {
      this.#state = 'running';
      this.queueShipments()
        .catch(onError)
        .finally(() => {
          const again = this.#state === 'again';
          this.#state = 'idle';
          if (again) this.queueSoon(onError);
        });
    };
    setTimeout(run, SHIPMENTS_COALESCE_MS).unref();
  }

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
      .where('orders.updated_at', '>', new Date(Date.now() - SHIPMENTS_LOOKBACK_MS))
      .limit(SHIPMENTS_PER_RUN)
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
      await this.#queuePush(r.platform, r.id);
    }
    return rows.length;
  }

  /** Pushes one order's tracking to its store (the fulfil job); every attempt is recorded, a wait for a call slot is not one. */
  async push(orderId: string): Promise<void> {
    const fulfilment = await this.#db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
    if (!fulfilment || fulfilment.status === 'pushed') return;
    const store = await this.#stores.findById(fulfilment.store_id);
    if (!store || store.status !== 'connected') return;
    const connector = this.#connectors.get(store.platform);
    const order = await this.#orders.get({ resellerId: store.reseller_id, mode: store.mode }, orderId);
    if (!connector?.pushShipment || !order.tracking || !order.externalOrderId) return;
    try {
      await connector.pushShipment(this.#context(store.platform), await this.#calls.connection(store), {
        externalOrderId: order.externalOrderId,
        carrier: order.tracking.carrier,
        trackingNumber: order.tracking.trackingNumber,
        trackingUrl: order.tracking.trackingUrl,
        lines: order.lines.map((l) => ({ externalLineId: null, sku: l.resellerSku, quantity: l.quantity })),
      });
      await this.#db.updateTable('store_fulfilments').set({ status: 'pushed', attempts: fulfilment.attempts + 1, last_error: null, updated_at: new Date() }).where('order_id', '=', orderId).execute();
    } catch (err) {
      // A wait for the store's call budget or the platform's rate limit is not an attempt: the job
      // comes back when a call is allowed, and nothing was tried.
      if (err instanceof RetryLaterError || (err instanceof ConnectorError && err.kind === 'rate_limited')) throw err;
      await this.#db
        .updateTable('store_fulfilments')
        .set({ attempts: fulfilment.attempts + 1, last_error: (err as Error).message, updated_at: new Date() })
        .where('order_id', '=', orderId)
        .execute();
      throw err;
    }
  }
}
