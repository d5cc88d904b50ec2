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

/** A line about an event: its state/status change, or the problem it reports. */
function eventDetail(payload: Record<string, unknown>): string | null {
  const data = (payload.data ?? payload) as Record<string, unknown>;
  const parts = [data.state, data.status].filter((v) => typeof v === 'string');
  const reason = data.reason ?? data.error ?? (data.payment as Record<string, unknown> | undefined)?.error;
  if (typeof reason === 'string') parts.push(reason);
  return parts.length ? parts.join(' · ') : null;
}
