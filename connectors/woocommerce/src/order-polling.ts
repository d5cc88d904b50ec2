import type { StoreOrder } from '@print-api/connector-kit';
import { FIRST_POLL_LOOKBACK_MS, POLL_PAGE_SIZE } from './config.ts';
import { isoToGmt, mapWooOrder } from './order-mapper.ts';
import type { WooCommerceClient } from './woocommerce-client.ts';

/**
 * Where polling stands: the run's `modified_after` (GMT, as WooCommerce takes it), the page
 * to read next, and the newest modification seen in this run (the next run's start).
 */
export interface PollCursor {
  after: string;
  page: number;
  newest: string;
}

export function encodeCursor(cursor: PollCursor): string {
  return JSON.stringify(cursor);
}

/** Reads a stored cursor; anything unreadable starts over from the default look-back. */
export function decodeCursor(raw: string | null, now: Date): PollCursor {
  const start = isoToGmt(new Date(now.getTime() - FIRST_POLL_LOOKBACK_MS).toISOString());
  if (!raw) return { after: start, page: 1, newest: start };
  try {
    const c = JSON.parse(raw) as Partial<PollCursor>;
    if (typeof c.after === 'string' && typeof c.newest === 'string' && Number.isInteger(c.page) && (c.page ?? 0) >= 1) return { after: c.after, page: c.page!, newest: c.newest };
  } catch {
    // fall through: start over
  }
  return { after: start, page: 1, newest: start };
}

/**
 * One page of orders changed since the cursor. A run keeps its `modified_after` fixed and
 * walks the pages WooCommerce announces in `X-WP-TotalPages` (oldest change first); after
 * the last page the next run starts from the newest change seen. WooCommerce does not retry
 * webhooks, so this is what catches up an order whose delivery was lost.
 */
export async function pollOrders(client: WooCommerceClient, rawCursor: string | null, now: Date): Promise<{ orders: StoreOrder[]; nextCursor: string | null }> {
  const cursor = decodeCursor(rawCursor, now);
  const { orders: raw, totalPages } = await client.listOrders(cursor.after, cursor.page, POLL_PAGE_SIZE);
  const orders = raw.map(mapWooOrder);
  let newest = cursor.newest;
  for (const o of orders) {
    const modified = isoToGmt(o.updatedAt);
    if (modified > newest) newest = modified;
  }
  const next: PollCursor = cursor.page < totalPages && orders.length > 0 ? { after: cursor.after, page: cursor.page + 1, newest } : { after: newest, page: 1, newest };
  return { orders, nextCursor: encodeCursor(next) };
}
