import type { Db } from '../tables.ts';

/** A shipped order placed from a store (what the stores module pushes tracking back for). */
export interface ShippedStoreOrder {
  id: string;
  storeId: string;
  updatedAt: Date;
}

/** How long an idempotency key is kept (docs: 30 days). */
const IDEMPOTENCY_KEYS_KEPT_MS = 30 * 24 * 3600 * 1000;

/**
 * The orders module's slow, internal reads and purges that other modules and the maintenance
 * loop ask for (no tenant check): they reach the orders' tables only through this.
 */
export class OrderUpkeep {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Shipped (or delivered) store orders with tracking, updated after `updatedAfter`, in
   * (updatedAt, id) order from after `after`: one page of `limit`. Reads store_orders_shipped_idx.
   */
  async shippedStoreOrders(query: {
    updatedAfter: Date;
    after?: { updatedAt: Date; id: string } | undefined;
    limit: number;
  }): Promise<ShippedStoreOrder[]> {
    let q = this.#db
      .selectFrom('orders')
      .select(['id', 'store_id', 'updated_at'])
      // The conditions of store_orders_shipped_idx, so the lookup uses it.
      .where('store_id', 'is not', null)
      .where('tracking', 'is not', null)
      .where('status', 'in', ['SHIPPED', 'DELIVERED'])
      .where('updated_at', '>', query.updatedAfter);
    const after = query.after;
    if (after) q = q.where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.updatedAt, after.id)));
    const rows = await q.orderBy('updated_at').orderBy('id').limit(query.limit).execute();
    return rows.map((r) => ({ id: r.id, storeId: r.store_id!, updatedAt: r.updated_at }));
  }

  /** Deletes idempotency keys older than they are kept (the maintenance task); the count deleted. */
  async purgeExpiredIdempotencyKeys(now: Date = new Date()): Promise<number> {
    const result = await this.#db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_KEYS_KEPT_MS))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
