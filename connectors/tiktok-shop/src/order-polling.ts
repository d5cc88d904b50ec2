import { TimeWindowCursor, type StoreOrder } from '@print-api/connector-kit';
import { API_VERSION, DETAIL_BATCH, FIRST_POLL_LOOKBACK_MS, POLL_OVERLAP_MS, POLL_PAGE_SIZE } from './config.ts';
import { parseTikTokOrder, toStoreOrder, type TikTokOrder } from './order-mapper.ts';
import type { TikTokClient } from './tiktok-client.ts';

export const ordersCursor = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS, overlapMs: POLL_OVERLAP_MS });

/** `GET /order/202309/orders?ids=…` (at most 50 ids a call): the orders as TikTok holds them now. */
export async function getOrders(client: TikTokClient, ids: string[]): Promise<TikTokOrder[]> {
  const orders: TikTokOrder[] = [];
  for (let i = 0; i < ids.length; i += DETAIL_BATCH) {
    const data = await client.call<{ orders?: unknown[] }>({
      method: 'GET',
      path: `/order/${API_VERSION}/orders`,
      query: { ids: ids.slice(i, i + DETAIL_BATCH).join(',') },
      operation: 'getOrderDetail',
    });
    orders.push(...(data.orders ?? []).map(parseTikTokOrder));
  }
  return orders;
}

export async function fetchStoreOrders(client: TikTokClient, ids: string[]): Promise<StoreOrder[]> {
  return (await getOrders(client, ids)).map(toStoreOrder);
}

/**
 * One page of the incremental feed: `POST /order/202309/orders/search` sorted by update time
 * (ascending) with `update_time_ge` (whole seconds, rounded down: the overlap re-reads anyway)
 * and TikTok's page tokens; every status, so payments, holds and cancellations are seen.
 */
export async function pollOrders(
  client: TikTokClient,
  cursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = ordersCursor.read(cursor, now);
  const query: Record<string, string> = {
    page_size: String(POLL_PAGE_SIZE),
    sort_field: 'update_time',
    sort_order: 'ASC',
    ...(at.pageToken ? { page_token: at.pageToken } : {}),
  };
  const data = await client.call<{ orders?: unknown[]; next_page_token?: string | null }>({
    method: 'POST',
    path: `/order/${API_VERSION}/orders/search`,
    query,
    body: { update_time_ge: Math.floor(at.since.getTime() / 1000) },
    operation: 'searchOrders',
  });
  const orders = (data.orders ?? []).map(parseTikTokOrder);
  return {
    orders: orders.map(toStoreOrder),
    nextCursor: ordersCursor.next(at, {
      updatedAt: orders.map((o) => Number(o.update_time ?? o.create_time) * 1000),
      nextPageToken: data.next_page_token || null,
    }),
  };
}
