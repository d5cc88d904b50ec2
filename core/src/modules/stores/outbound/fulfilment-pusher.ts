import { ConnectorError } from '@print-api/connector-kit';
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
 * How often the safety sweep looks for shipped store orders whose order.shipped was lost (a crash after the commit).
 */
export const SHIPMENTS_SWEEP_MS = 10 * 60_000;
/** A tracking push queued this long ago and never tried has lost its job: queued again (queueShipments). */
const SHIPMENT_REQUEUE_AFTER_MS = 60_000;

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
  /** When the sweep last read the shipped store orders (0: never, so the first sweep does). */
  #sweptOrdersAt = 0;

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
    return this.#queue(shipped);
  }

  /**
   * The safety sweep (a maintenance task). Queues again the pushes queued over
   * SHIPMENT_REQUEUE_AFTER_MS ago and never tried (the job was lost: Redis away when it was
   * added, or a crash in between), and every SHIPMENTS_SWEEP_MS the shipped store orders of the
   * last 30 days without a push (their order.shipped was committed and never told: a crash).
   * Adding a job again while it still waits is harmless (one job per id).
   */
  async queueShipments(): Promise<number> {
    const requeueBefore = new Date(Date.now() - SHIPMENT_REQUEUE_AFTER_MS);
    const lost = await this.#deps.db
      .selectFrom('store_fulfilments')
      .innerJoin('stores', 'stores.id', 'store_fulfilments.store_id')
      .select(['store_fulfilments.order_id', 'store_fulfilments.store_id'])
      .where('store_fulfilments.status', '=', 'pending')
      .where('store_fulfilments.attempts', '=', 0)
      .where('store_fulfilments.updated_at', '<', requeueBefore)
      .where('stores.status', '=', 'connected')
      .limit(SHIPMENTS_PER_PAGE)
      .execute();
    const queued = await this.#queue(lost.map((r) => ({ orderId: r.order_id, storeId: r.store_id })));
    if (Date.now() - this.#sweptOrdersAt < SHIPMENTS_SWEEP_MS) return queued;
    this.#sweptOrdersAt = Date.now();
    try {
      return queued + (await this.#queueUnpushed());
    } catch (err) {
      this.#sweptOrdersAt = 0; // the next maintenance round tries again
      throw err;
    }
  }

  /** The shipped store orders of the last 30 days without a push, page by page (the orders module's read), queued. */
  async #queueUnpushed(): Promise<number> {
    let queued = 0;
    const updatedAfter = new Date(Date.now() - SHIPMENTS_LOOKBACK_MS);
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
   * Records each shipment's push as pending (one statement; a push queued again is marked so:
   * not again before SHIPMENT_REQUEUE_AFTER_MS) and queues it, for stores whose connector pushes
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
