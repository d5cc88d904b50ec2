import { ConnectorError, parsePayload, TimeWindowCursor, type StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';
import { FIRST_POLL_LOOKBACK_MS, PAGE_SIZE, POLL_OVERLAP_MS } from './config.ts';
import type { EtsyClient } from './etsy-client.ts';
import { etsyId, parseReceipt, receiptsPage, receiptTime, toStoreOrder } from './order-mapper.ts';

/**
 * Receipts paid, not shipped, not cancelled and changed since the cursor, oldest change first,
 * 100 a page. Offset paging over a moving `updated` sort skips rows: each page starts again at
 * the newest change read (TimeWindowCursor), and each run POLL_OVERLAP_MS before it.
 */
export const receiptsCursor = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS, overlapMs: POLL_OVERLAP_MS });

export async function pollReceipts(
  client: EtsyClient,
  shopId: string,
  cursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = receiptsCursor.read(cursor, now);
  // Whole seconds, inclusive: `since` rounded down keeps the row at the boundary (read again, harmless).
  const minLastModified = Math.max(946684800, Math.floor(at.since.getTime() / 1000));
  const page = parsePayload(
    receiptsPage,
    await client.call({
      method: 'GET',
      path: `/shops/${shopId}/receipts`,
      query: {
        was_paid: true,
        was_shipped: false,
        was_canceled: false,
        min_last_modified: minLastModified,
        sort_on: 'updated',
        sort_order: 'asc',
        limit: PAGE_SIZE,
        offset: at.offset,
      },
      operation: 'getShopReceipts',
    }),
    'Etsy receipts',
  );
  // Once a run: the receipts cancelled in the window, which the query above leaves out (Etsy
  // documents no cancellation webhook): ours is cancelled while that is possible.
  const cancelled = at.firstPage && at.offset === 0 ? await cancelledSince(client, shopId, minLastModified) : [];
  return {
    orders: [...page.results.map(toStoreOrder), ...cancelled],
    nextCursor: receiptsCursor.next(at, {
      updatedAt: page.results.map((r) => receiptTime(r, 'update')),
      more: page.results.length === PAGE_SIZE,
    }),
  };
}

async function cancelledSince(client: EtsyClient, shopId: string, minLastModified: number): Promise<StoreOrder[]> {
  const page = parsePayload(
    receiptsPage,
    await client.call({
      method: 'GET',
      path: `/shops/${shopId}/receipts`,
      query: {
        was_canceled: true,
        min_last_modified: minLastModified,
        sort_on: 'updated',
        sort_order: 'desc',
        limit: PAGE_SIZE,
      },
      operation: 'getShopReceipts',
    }),
    'Etsy receipts',
  );
  return page.results.map(toStoreOrder).filter((o) => o.cancelled);
}

/** A page of receipts read for a few of them: only the ids are checked before one is wanted. */
const receiptIdsPage = z.object({ results: z.array(z.looseObject({ receipt_id: etsyId })) });

/** The most pages one fetch reads before it reads the receipts still missing one by one. */
const MAX_PAGES = 6;

/**
 * A jump down the pages lands this share short of where the page density says, so that it lands above the receipts
 * asked for rather than past them.
 */
const JUMP_SHORT = 0.1;

/**
 * Receipts by id (a thin webhook names one), in the order asked: a receipt the shop no longer
 * has is left out. Etsy has no call that reads receipts by ids; it lists a shop's receipts
 * sorted by `receipt_id`, 100 a page (any state: a receipt cancelled or shipped since is read
 * as it is now), and receipt ids grow as receipts are made. So several asked receipts are
 * looked for among the shop's receipts by id, newest first, between the highest and the lowest
 * id asked for: a page above them tells how densely the shop's ids run, and the next read
 * jumps down to where the highest should be (a backlog of thousands costs a jump, not a page
 * per hundred). Reading stops once a page reaches below the lowest asked id, when at most one
 * is missing, or after MAX_PAGES; the ones still missing are read one by one.
 */
export async function fetchReceipts(client: EtsyClient, shopId: string, receiptIds: string[]): Promise<StoreOrder[]> {
  const wanted = [...new Set(receiptIds.filter((r) => /^\d+$/.test(r)))];
  const found = new Map<string, StoreOrder>();
  if (wanted.length > 1) await findInPages(client, shopId, wanted, found);
  const orders: StoreOrder[] = [];
  for (const receiptId of wanted) {
    const order = found.get(receiptId) ?? (await fetchReceipt(client, shopId, receiptId));
    if (order) orders.push(order);
  }
  return orders;
}

async function findInPages(
  client: EtsyClient,
  shopId: string,
  wanted: string[],
  found: Map<string, StoreOrder>,
): Promise<void> {
  const asked = new Set(wanted);
  const ids = wanted.map(BigInt);
  const highest = ids.reduce((a, b) => (b > a ? b : a));
  const lowest = ids.reduce((a, b) => (b < a ? b : a));
  let offset = 0;
  for (let read = 0; read < MAX_PAGES && wanted.length - found.size > 1; read++) {
    const results = parsePayload(
      receiptIdsPage,
      await client.call({
        method: 'GET',
        path: `/shops/${shopId}/receipts`,
        query: { sort_on: 'receipt_id', sort_order: 'desc', limit: PAGE_SIZE, offset },
        operation: 'getShopReceipts',
      }),
      'Etsy receipts',
    ).results;
    for (const r of results)
      if (asked.has(r.receipt_id) && !found.has(r.receipt_id)) found.set(r.receipt_id, toStoreOrder(parseReceipt(r)));
    if (results.length < PAGE_SIZE) return;
    const first = BigInt(results[0]!.receipt_id);
    const last = BigInt(results.at(-1)!.receipt_id);
    if (last <= lowest) return;
    offset += results.length;
    // Still above every asked id: jump down by the page's density of the shop's ids.
    if (last > highest && first > last)
      offset += Math.floor(((Number(last - highest) * (results.length - 1)) / Number(first - last)) * (1 - JUMP_SHORT));
  }
}

async function fetchReceipt(client: EtsyClient, shopId: string, receiptId: string): Promise<StoreOrder | null> {
  try {
    return toStoreOrder(
      parseReceipt(
        await client.call({
          method: 'GET',
          path: `/shops/${shopId}/receipts/${receiptId}`,
          operation: 'getShopReceipt',
        }),
      ),
    );
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return null;
    throw err;
  }
}
