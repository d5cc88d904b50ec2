import { parsePayload, TimeWindowCursor, type StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';
import { FIRST_POLL_LOOKBACK_MS, POLL_OVERLAP_MS, POLL_PAGE_SIZE } from './config.ts';
import { ORDER_ASSOCIATIONS, toStoreOrder } from './order-mapper.ts';
import type { ShopwareClient } from './shopware-client.ts';

export const pollWindow = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS, overlapMs: POLL_OVERLAP_MS });

/**
 * What a poll reads, one after the other, each with its own time window: orders created since (Shopware leaves
 * `updatedAt` null until an order row is first updated), orders updated since (a cancellation moves the order's
 * state), and payments updated since (marking an order paid moves its transaction's state, not the order row).
 */
const STREAMS = [
  { entity: 'order', field: 'createdAt' },
  { entity: 'order', field: 'updatedAt' },
  { entity: 'order-transaction', field: 'updatedAt' },
] as const;

const cursorSchema = z.object({
  v: z.literal('sw1'),
  i: z
    .number()
    .int()
    .min(0)
    .max(STREAMS.length - 1),
  c: z.array(z.string().nullable()).length(STREAMS.length),
});
type Cursor = z.infer<typeof cursorSchema>;

function readCursor(raw: string | null): Cursor {
  try {
    if (raw) return cursorSchema.parse(JSON.parse(raw));
  } catch {
    // Unreadable: start again with the look-back.
  }
  return { v: 'sw1', i: 0, c: STREAMS.map(() => null) };
}

const row = z.object({ id: z.string(), createdAt: z.string(), updatedAt: z.string().nullish() });
const transactionRow = row.extend({ order: z.unknown() });

/**
 * Shopware stores times in UTC as `Y-m-d H:i:s.v` (`Defaults::STORAGE_DATE_TIME_FORMAT`): a range filter compares
 * with that text.
 */
export const storageTime = (d: Date): string => d.toISOString().replace('T', ' ').replace('Z', '');

/**
 * One page of a stream (`POST /api/search/order` or `/search/order-transaction` with the order as an association),
 * oldest change first; an empty stream goes on to the next within the same call. `done` once the last stream's run
 * is read: the next poll starts again with the first.
 */
export async function pollOrders(
  client: ShopwareClient,
  rawCursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string; done: boolean }> {
  const cursor = readCursor(rawCursor);
  for (let i = cursor.i; i < STREAMS.length; i++) {
    const { entity, field } = STREAMS[i]!;
    const at = pollWindow.read(cursor.c[i] ?? null, now);
    const page = Math.floor(at.offset / POLL_PAGE_SIZE) + 1;
    const rows = await client.search(
      entity,
      {
        page,
        limit: POLL_PAGE_SIZE,
        filter: [{ type: 'range', field, parameters: { gte: storageTime(at.since) } }],
        sort: [
          { field, order: 'ASC' },
          { field: 'id', order: 'ASC' },
        ],
        associations: entity === 'order' ? ORDER_ASSOCIATIONS : { order: { associations: ORDER_ASSOCIATIONS } },
        'total-count-mode': 'none',
      },
      entity === 'order' ? 'searchOrders' : 'searchTransactions',
    );
    const fresh = rows.slice(at.offset % POLL_PAGE_SIZE);
    const orders = new Map<string, StoreOrder>();
    const seen: string[] = [];
    for (const raw of fresh) {
      const r = parsePayload(entity === 'order' ? row : transactionRow, raw, `Shopware ${entity}`);
      seen.push(field === 'createdAt' ? r.createdAt : (r.updatedAt ?? r.createdAt));
      const order = toStoreOrder('order' in r ? r.order : raw);
      orders.set(order.externalId, order);
    }
    const next = pollWindow.next(at, { updatedAt: seen, more: rows.length >= POLL_PAGE_SIZE });
    cursor.c[i] = next;
    const finished = pollWindow.read(next, now).firstPage;
    if (orders.size > 0 || !finished) {
      const last = finished && i === STREAMS.length - 1;
      cursor.i = finished ? (last ? 0 : i + 1) : i;
      return { orders: [...orders.values()], nextCursor: JSON.stringify(cursor), done: last };
    }
  }
  cursor.i = 0;
  return { orders: [], nextCursor: JSON.stringify(cursor), done: true };
}
