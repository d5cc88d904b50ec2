import { parsePayload, TimeWindowCursor, type StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';
import { FIRST_POLL_LOOKBACK_MS, ORDERS_PAGE_SIZE, POLL_OVERLAP_MS } from './config.ts';
import { magentoTime, searchQuery, type MagentoClient } from './magento-client.ts';
import { orderSchema, toStoreOrder } from './order-mapper.ts';

/** `sales-data-order-search-result-interface`: a page of orders and how many match in all. */
const ordersPage = z.object({ items: z.array(z.unknown()).nullish(), total_count: z.number().int() });

/**
 * Polling follows `updated_at` with the kit's time-window cursor (offset paging re-anchored at the newest change read,
 * an overlap of POLL_OVERLAP_MS between runs). Magento pages by `currentPage`: the cursor's offset is a whole number
 * of pages here (it only grows by a full page of orders changed in the same second).
 */
export const ordersCursor = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS, overlapMs: POLL_OVERLAP_MS });

/**
 * One page of `GET /V1/orders`: `updated_at >= since` (`gteq`, whole seconds, so `since` rounded up to its second),
 * oldest change first and ties by `entity_id`. Another page follows while a full page leaves orders of `total_count`
 * unread (Magento answers a page past the last with the last one again, so an empty page is never the signal).
 */
export async function pollOrders(
  client: MagentoClient,
  cursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string; done: boolean }> {
  const at = ordersCursor.read(cursor, now);
  const currentPage = Math.floor(at.offset / ORDERS_PAGE_SIZE) + 1;
  const since = new Date(Math.ceil(at.since.getTime() / 1000) * 1000);
  const page = (await client.json(ordersPage, {
    method: 'GET',
    path: '/orders',
    query: searchQuery({
      filters: [{ field: 'updated_at', value: magentoTime(since), conditionType: 'gteq' }],
      sortOrders: [
        ['updated_at', 'ASC'],
        ['entity_id', 'ASC'],
      ],
      pageSize: ORDERS_PAGE_SIZE,
      currentPage,
    }),
    operation: 'searchOrders',
  }))!;
  const items = page.items ?? [];
  const orders = items.map((raw, i) => toStoreOrder(parsePayload(orderSchema, raw, `Magento orders[${i}]`)));
  const more = items.length === ORDERS_PAGE_SIZE && currentPage * ORDERS_PAGE_SIZE < page.total_count;
  // A run's last page ends the poll: the next run reads the overlap again, which the next poll does.
  return {
    orders,
    nextCursor: ordersCursor.next(at, { updatedAt: orders.map((o) => o.updatedAt), more }),
    done: !more,
  };
}
