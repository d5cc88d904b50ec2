import type { StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';
import type { AmazonContext, SpApi } from './amazon-client.ts';
import {
  FIRST_POLL_LOOKBACK_MS,
  INCLUDED_DATA,
  ORDERS_PAGE_SIZE,
  POLL_OVERLAP_MS,
  SEARCH_LAG_MS,
  SEARCH_STATUSES,
} from './config.ts';
import { amazonOrderSchema, isMerchantFulfilled, toStoreOrder, type AmazonOrder } from './order-mapper.ts';

const searchSchema = z.object({
  orders: z.array(amazonOrderSchema).default([]),
  pagination: z.object({ nextToken: z.string().optional() }).optional(),
  lastUpdatedBefore: z.string().optional(),
  createdBefore: z.string().optional(),
});

/**
 * Where a store's polling stands: a checkpoint between runs, or a run's next page (its parameters kept as they were).
 */
type Cursor = { v: 1; checkpoint: string } | { v: 1; after: string; token: string };

function readCursor(cursor: string | null, now: Date): Cursor {
  if (cursor) {
    try {
      const c = JSON.parse(cursor) as Cursor;
      if (
        c.v === 1 &&
        ('checkpoint' in c
          ? typeof c.checkpoint === 'string'
          : typeof c.after === 'string' && typeof c.token === 'string')
      )
        return c;
    } catch {
      // an unreadable cursor: start again from the look-back (orders are stored once)
    }
  }
  return { v: 1, checkpoint: new Date(now.getTime() - FIRST_POLL_LOOKBACK_MS + POLL_OVERLAP_MS).toISOString() };
}

/** Amazon's ISO-8601 without milliseconds. */
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The searchOrders query of a run: the same on every page (only the pagination token is added). */
export function searchQuery(lastUpdatedAfter: string, marketplaceIds: string[]): Record<string, string> {
  return {
    lastUpdatedAfter,
    fulfillmentStatuses: SEARCH_STATUSES.join(','),
    fulfilledBy: 'MERCHANT',
    marketplaceIds: marketplaceIds.join(','),
    includedData: INCLUDED_DATA.join(','),
    maxResultsPerPage: String(ORDERS_PAGE_SIZE),
  };
}

/**
 * One page of `searchOrders` (`GET /orders/2026-01-01/orders`): a run asks for orders updated
 * since its checkpoint minus an overlap, follows `pagination.nextToken` with the very same
 * parameters, and after its last page moves the checkpoint to the answer's `lastUpdatedBefore`
 * (Amazon's own clock). The model makes that field optional: a last page without it (or with one
 * that is not a date) moves the checkpoint to the time we asked minus Amazon's two-minute lag
 * instead, so one page's missing field never stops the store's polling. Each page is one call of
 * the seller's scarce search budget, so the last page ends the run (`done`) rather than asking again.
 */
export async function searchOrdersPage(
  ctx: AmazonContext,
  api: SpApi,
  marketplaceIds: string[],
  cursor: string | null,
): Promise<{ orders: StoreOrder[]; nextCursor: string; done: boolean }> {
  const at = readCursor(cursor, ctx.clock());
  const after = 'token' in at ? at.after : iso(new Date(Date.parse(at.checkpoint) - POLL_OVERLAP_MS));
  const query = { ...searchQuery(after, marketplaceIds), ...('token' in at ? { paginationToken: at.token } : {}) };
  const askedAt = ctx.clock().getTime();
  const page = await api.json(searchSchema, {
    method: 'GET',
    path: '/orders/2026-01-01/orders',
    query,
    operation: 'searchOrders',
  });
  const orders: StoreOrder[] = [];
  for (const o of page.orders) {
    if (!isMerchantFulfilled(o)) {
      ctx.logger.info('Amazon order fulfilled by Amazon: not ours to print', { orderId: o.orderId });
      continue;
    }
    orders.push(toStoreOrder(o));
  }
  const next = page.pagination?.nextToken;
  if (next) return { orders, nextCursor: JSON.stringify({ v: 1, after, token: next } satisfies Cursor), done: false };
  let before =
    page.lastUpdatedBefore && Number.isFinite(Date.parse(page.lastUpdatedBefore)) ? page.lastUpdatedBefore : null;
  if (!before) {
    before = iso(new Date(askedAt - SEARCH_LAG_MS));
    ctx.logger.info(
      'Amazon answered searchOrders without lastUpdatedBefore: the checkpoint moves to the time asked minus its lag',
      { checkpoint: before },
    );
  }
  return { orders, nextCursor: JSON.stringify({ v: 1, checkpoint: before } satisfies Cursor), done: true };
}

const getOrderSchema = z.object({ order: amazonOrderSchema });

/** `getOrder` (v2026-01-01), with what placing and confirming need. */
export async function getOrder(
  api: SpApi,
  orderId: string,
  included: readonly string[] = [...INCLUDED_DATA, 'PACKAGES'],
): Promise<AmazonOrder> {
  const { order } = await api.json(getOrderSchema, {
    method: 'GET',
    path: `/orders/2026-01-01/orders/${encodeURIComponent(orderId)}`,
    query: { includedData: included.join(',') },
    operation: 'getOrder',
  });
  return order;
}
