import { TimeWindowCursor, type PollPosition, type StoreOrder } from '@print-api/connector-kit';
import { FIRST_POLL_LOOKBACK_MS, POLL_PAGE_SIZE } from './config.ts';
import { isoToGmt, mapWooOrder } from './order-mapper.ts';
import type { WooCommerceClient } from './woocommerce-client.ts';

/**
 * Polling follows `date_modified_gmt` with offset paging (the kit's cursor: each page starts at
 * the newest modification read, so an order modified while a run pages cannot push another
 * past a page boundary unread). WooCommerce does not retry webhooks, so this is what catches up
 * an order whose delivery was lost.
 */
export const pollWindow = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS });

/**
 * `modified_after` for "modified at or after `since`": WooCommerce's bound is exclusive and
 * counts whole seconds, so it is the second before `since` rounded up.
 */
export function modifiedAfter(since: Date): string {
  const ceiled = Math.ceil(since.getTime() / 1000) * 1000;
  return isoToGmt(new Date(ceiled - 1000).toISOString());
}

/** Where polling stands; a cursor of the earlier format (`{after, page, newest}`) starts a run after its `after`. */
export function readCursor(raw: string | null, now: Date): PollPosition {
  const earlier = raw ? earlierFormatAfter(raw) : null;
  return pollWindow.read(earlier ? pollWindow.startingAt(earlier) : raw, now);
}

/** One page of orders modified since the cursor, oldest change first, and the cursor after it. */
export async function pollOrders(
  client: WooCommerceClient,
  rawCursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = readCursor(rawCursor, now);
  const raw = await client.listOrders(modifiedAfter(at.since), at.offset, POLL_PAGE_SIZE);
  const orders = raw.map(mapWooOrder);
  return {
    orders,
    nextCursor: pollWindow.next(at, { updatedAt: orders.map((o) => o.updatedAt), more: raw.length >= POLL_PAGE_SIZE }),
  };
}

/** The exclusive `after` (GMT, whole seconds) of a cursor stored before the kit's, as the inclusive time after it. */
function earlierFormatAfter(raw: string): Date | null {
  try {
    const c = JSON.parse(raw) as { v?: unknown; after?: unknown };
    if (c.v !== undefined || typeof c.after !== 'string') return null;
    const after = Date.parse(`${c.after}Z`);
    return Number.isNaN(after) ? null : new Date(after + 1000);
  } catch {
    return null;
  }
}
