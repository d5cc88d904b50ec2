import type { AuthContext } from '../../kernel/auth-context.ts';
import type { EventLog } from '../events/event-log.ts';
import type { ResellerProductsService } from '../reseller-products/reseller-products-service.ts';
import type { StorePublishing } from '../stores/catalogue/store-publishing.ts';
import type { ListingMargin, ListingMargins } from '../stores/catalogue/listing-margins.ts';
import { inWords, ORDER_STATE_WORDS, ORDER_STATUS_WORDS } from '../code-words.ts';

export interface OrderEventView {
  id: string;
  type: string;
  createdAt: string;
  detail: string | null;
}

/**
 * What the dashboard shows that the API has no route for, read-only and always within the
 * caller's reseller and mode: an order's events (the events module's log) and the stores selling
 * a product (the reseller products' service, which asks the stores).
 */
export class DashboardViews {
  readonly #events: EventLog;
  readonly #resellerProducts: ResellerProductsService;
  readonly #publishing: Pick<StorePublishing, 'publishedOf'> | undefined;
  readonly #margins: Pick<ListingMargins, 'of'> | undefined;

  /** `publishing`: the stores' published listings (none shown without it); `margins`: a retail price's margin. */
  constructor(deps: {
    events: EventLog;
    resellerProducts: ResellerProductsService;
    publishing?: Pick<StorePublishing, 'publishedOf'>;
    margins?: Pick<ListingMargins, 'of'>;
  }) {
    this.#events = deps.events;
    this.#resellerProducts = deps.resellerProducts;
    this.#publishing = deps.publishing;
    this.#margins = deps.margins;
  }

  /**
   * What a retail price in a store's currency leaves per piece: our quote for `country` converted at the ECB's rate
   * (null without the stores).
   */
  async margin(
    caller: AuthContext,
    listing: { sku: string; priceCents: number; currency: string; country: string },
  ): Promise<ListingMargin | null> {
    return this.#margins ? this.#margins.of(caller, listing) : null;
  }

  /** The order's events, oldest first (the caller has read the order through the API first). */
  async orderEvents(caller: AuthContext, orderId: string): Promise<OrderEventView[]> {
    const rows = await this.#events.orderEvents(caller, orderId, 200);
    return rows.map((r) => ({
      id: r.id,
      type: r.type,
      createdAt: r.createdAt.toISOString(),
      detail: eventDetail(r.payload),
    }));
  }

  /** The connected stores selling a product of the caller's (by a link or a listing with its SKU). */
  async storesSelling(caller: AuthContext, resellerProductId: string) {
    return this.#resellerProducts.storesSelling(caller, resellerProductId);
  }

  /** The stores the caller's product is published to (POST /stores/{id}/listings), with each listing. */
  async publishedTo(caller: AuthContext, resellerProductId: string) {
    return this.#publishing ? this.#publishing.publishedOf(caller, resellerProductId) : [];
  }
}

/**
 * A line about an event (its envelope's `data`): the order's state and status then (in words), a problem it reports, the tracking.
 */
function eventDetail(payload: Record<string, unknown>): string | null {
  const data = (payload.data ?? {}) as Record<string, unknown>;
  const order = (data.order ?? {}) as Record<string, unknown>;
  const parts = [
    typeof order.state === 'string' ? inWords(ORDER_STATE_WORDS, order.state) : undefined,
    typeof order.status === 'string' ? inWords(ORDER_STATUS_WORDS, order.status) : undefined,
  ].filter((v): v is string => v !== undefined);
  const payment = order.payment as Record<string, unknown> | undefined;
  const problem = data.reason ?? data.error ?? payment?.error;
  if (typeof problem === 'string') parts.push(problem);
  const tracking = (data.tracking ?? order.tracking) as Record<string, unknown> | null | undefined;
  if (tracking && typeof tracking.trackingNumber === 'string')
    parts.push(`${String(tracking.carrier ?? '')} ${tracking.trackingNumber}`.trim());
  return parts.length ? parts.join(' · ') : null;
}
