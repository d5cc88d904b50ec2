import type { AuthContext } from '../../http/auth-context.ts';
import type { StoresService } from '../stores/stores-service.ts';
import type { Db } from '../tables.ts';

export interface OrderEventView {
  id: string;
  type: string;
  createdAt: string;
  detail: string | null;
}

/**
 * What the dashboard shows that the API has no route for, read-only and always within the
 * caller's reseller and mode: an order's events (the webhooks' outbox) and the stores selling
 * a product.
 */
export class DashboardViews {
  readonly #db: Db;
  readonly #stores: StoresService;

  constructor(deps: { db: Db; stores: StoresService }) {
    this.#db = deps.db;
    this.#stores = deps.stores;
  }

  /** The order's events, oldest first (the caller has read the order through the API first). */
  async orderEvents(caller: AuthContext, orderId: string): Promise<OrderEventView[]> {
    const rows = await this.#db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'payload'])
      .where('order_id', '=', orderId)
      .where('reseller_id', '=', caller.resellerId)
      .where('mode', '=', caller.mode)
      .orderBy('created_at')
      .orderBy('id')
      .limit(200)
      .execute();
    return rows.map((r) => ({ id: r.id, type: r.type, createdAt: r.created_at.toISOString(), detail: eventDetail(r.payload) }));
  }

  /** The connected stores selling a product of the caller's (by a link or a listing with its SKU). */
  async storesSelling(caller: AuthContext, resellerProductId: string) {
    const owned = await this.#db
      .selectFrom('reseller_products')
      .select('id')
      .where('id', '=', resellerProductId)
      .where('reseller_id', '=', caller.resellerId)
      .where('mode', '=', caller.mode)
      .executeTakeFirst();
    return owned ? this.#stores.connectedStoresLinkedTo(owned.id) : [];
  }
}

/** A line about an event (its envelope's `data`): the order's state and status then, a problem it reports, the tracking. */
function eventDetail(payload: Record<string, unknown>): string | null {
  const data = (payload.data ?? {}) as Record<string, unknown>;
  const order = (data.order ?? {}) as Record<string, unknown>;
  const parts = [order.state, order.status].filter((v): v is string => typeof v === 'string');
  const payment = order.payment as Record<string, unknown> | undefined;
  const problem = data.reason ?? data.error ?? payment?.error;
  if (typeof problem === 'string') parts.push(problem);
  const tracking = (data.tracking ?? order.tracking) as Record<string, unknown> | null | undefined;
  if (tracking && typeof tracking.trackingNumber === 'string') parts.push(`${String(tracking.carrier ?? '')} ${tracking.trackingNumber}`.trim());
  return parts.length ? parts.join(' · ') : null;
}
