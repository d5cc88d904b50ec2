import { ConnectorError, TimeWindowCursor, parsePayload, type StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';
import { FIRST_POLL_LOOKBACK_MS, POLL_PAGE_SIZE } from './config.ts';
import { mapWixOrder } from './order-mapper.ts';
import type { WixClient } from './wix-client.ts';

/**
 * Polling follows `updatedDate` with Wix's cursor pages (the kit's cursor, token paging): a run
 * keeps its lower bound and follows `metadata.cursors.next`; after the last page the next run
 * asks for changes after the newest one seen.
 */
export const pollWindow = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS });

const searchAnswer = z.object({
  orders: z.array(z.unknown()).default([]),
  metadata: z
    .object({ cursors: z.object({ next: z.string().nullish() }).nullish(), hasNext: z.boolean().nullish() })
    .nullish(),
});

/**
 * One page of the site's orders changed since the cursor, oldest change first:
 * `POST /ecom/v1/orders/search` with `filter {updatedDate: {$gte}}` and `sort updatedDate ASC`
 * on a run's first page, then only `cursorPaging.cursor` (Wix keeps the query in the cursor).
 * Every status but INITIALIZED (a checkout not completed; Wix's default filter, kept since ours
 * replaces it) is read: unpaid orders wait, cancelled ones cancel ours. This is how a site whose webhooks were missed
 * catches up.
 */
export async function pollOrders(
  client: WixClient,
  rawCursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = pollWindow.read(rawCursor, now);
  const search = at.pageToken
    ? { cursorPaging: { limit: POLL_PAGE_SIZE, cursor: at.pageToken } }
    : {
        filter: { status: { $ne: 'INITIALIZED' }, updatedDate: { $gte: at.since.toISOString() } },
        sort: [{ fieldName: 'updatedDate', order: 'ASC' }],
        cursorPaging: { limit: POLL_PAGE_SIZE },
      };
  const page = parsePayload(
    searchAnswer,
    await client.call<unknown>('searchOrders', 'POST', '/ecom/v1/orders/search', { search }),
    'Wix order search',
  );
  const orders = page.orders.map(mapWixOrder);
  const next = page.metadata?.hasNext !== false ? page.metadata?.cursors?.next : null;
  return {
    orders,
    nextCursor: pollWindow.next(at, { updatedAt: orders.map((o) => o.updatedAt), nextPageToken: next ?? null }),
  };
}

/** Orders by id (`GET /ecom/v1/orders/{id}`), as the site has them now; an id Wix does not know is left out. */
export async function fetchOrdersById(client: WixClient, ids: string[]): Promise<StoreOrder[]> {
  const orders: StoreOrder[] = [];
  for (const id of ids) {
    try {
      const answer = await client.call<{ order?: unknown }>(
        'getOrder',
        'GET',
        `/ecom/v1/orders/${encodeURIComponent(id)}`,
      );
      if (answer.order) orders.push(mapWixOrder(answer.order));
    } catch (err) {
      if (err instanceof ConnectorError && err.status === 404) continue;
      throw err;
    }
  }
  return orders;
}
