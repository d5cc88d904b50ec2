import type { StoreOrder } from '@print-api/connector-kit';
import type { BolApi, BolContext } from './bol-client.ts';
import { BOL_TIME_ZONE, ORDERS_PAGE_SIZE, POLL_OVERLAP_MS } from './config.ts';
import { orderSchema, reducedOrdersSchema, toStoreOrder, type BolOrder, type ReducedOrder } from './order-mapper.ts';

/**
 * Where a store's polling stands. A run reads every page of the seller's open FBR orders (`open`), then, from the
 * second run on, the orders changed since the previous run began that are no longer open (`closed`, day by day of
 * bol's calendar): an order bol or the seller cancelled leaves the open list, and would otherwise never cancel ours.
 * `since`: when the previous run began (null on the first); `startedAt`: when this one did.
 */
type Cursor =
  | { v: 1; since: string | null }
  | { v: 1; since: string | null; startedAt: string; phase: 'open'; page: number }
  | { v: 1; since: string; startedAt: string; phase: 'closed'; day: string; page: number };

function readCursor(cursor: string | null): Cursor {
  if (cursor) {
    try {
      const c = JSON.parse(cursor) as Cursor;
      if (c && c.v === 1 && (c.since === null || typeof c.since === 'string')) return c;
    } catch {
      // unreadable: start as a first run (orders are stored once)
    }
  }
  return { v: 1, since: null };
}

/** A day of bol's calendar (`latest-change-date` takes a date): YYYY-MM-DD in Amsterdam. */
export function bolDay(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: BOL_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T12:00:00Z`) + 24 * 3600_000).toISOString().slice(0, 10);

/** `GET /retailer/orders/{order-id}`: the order with its items, offers and shipment details. */
export function getOrder(api: BolApi, orderId: string): Promise<BolOrder> {
  return api.json(orderSchema, {
    method: 'GET',
    path: `/retailer/orders/${encodeURIComponent(orderId)}`,
    operation: 'getOrder',
  });
}

/** Whether an item of the listed order changed at or after `after` (ms). */
const changedSince = (o: ReducedOrder, after: number) =>
  o.orderItems.some((i) => !(Date.parse(i.latestChangedDateTime) < after));

/** One listing call: the orders read (changed ones in detail), and where the run goes next (null: it is over). */
async function step(
  ctx: BolContext,
  api: BolApi,
  run: Extract<Cursor, { phase: string }>,
): Promise<{ orders: StoreOrder[]; next: Cursor; over: boolean }> {
  const after = run.since ? Date.parse(run.since) - POLL_OVERLAP_MS : Number.NEGATIVE_INFINITY;
  const open = run.phase === 'open';
  const { orders: listed } = await api.json(reducedOrdersSchema, {
    method: 'GET',
    path: '/retailer/orders',
    query: {
      page: String(run.page),
      'fulfilment-method': 'FBR',
      status: open ? 'OPEN' : 'ALL',
      ...(run.phase === 'closed' ? { 'latest-change-date': run.day } : {}),
    },
    operation: 'listOrders',
  });
  const wanted = listed.filter((o) =>
    open
      ? changedSince(o, after)
      : o.orderItems.every((i) => i.fulfilmentStatus !== 'OPEN') &&
        o.orderItems.some((i) => i.quantityCancelled > 0 && !(Date.parse(i.latestChangedDateTime) < after)),
  );
  const orders: StoreOrder[] = [];
  for (const o of wanted) orders.push(toStoreOrder(await getOrder(api, o.orderId)));
  if (listed.length >= ORDERS_PAGE_SIZE) return { orders, next: { ...run, page: run.page + 1 }, over: false };
  if (run.since !== null) {
    const day = run.phase === 'open' ? bolDay(new Date(after)) : nextDay(run.day);
    if (day <= bolDay(ctx.clock()))
      return {
        orders,
        next: { v: 1, since: run.since, startedAt: run.startedAt, phase: 'closed', day, page: 1 },
        over: false,
      };
  }
  return { orders, next: { v: 1, since: run.startedAt }, over: true };
}

/** At most this many listing calls in one `listOrders` while they find nothing (the run goes on at the next poll). */
const EMPTY_STEPS = 10;

/**
 * One page of the poll, as core asks for it. Open phase:
 * `GET /retailer/orders?fulfilment-method=FBR&status=OPEN&page=N` (50 a page), and the detail of each order changed since the previous run (every one on the first run). Closed
 * phase: `status=ALL` with `latest-change-date` for each day since the previous run, and the detail of each order that
 * has a cancelled item changed since then and nothing open any more. Listing calls that find nothing go straight on
 * (core ends a run at an empty page); the run ends (`done`) after its last one, and the next looks back from when
 * this one began, minus an overlap.
 */
export async function pollPage(
  ctx: BolContext,
  api: BolApi,
  cursor: string | null,
): Promise<{ orders: StoreOrder[]; nextCursor: string; done: boolean }> {
  const at = readCursor(cursor);
  let run: Cursor =
    'phase' in at ? at : { v: 1, since: at.since, startedAt: ctx.clock().toISOString(), phase: 'open', page: 1 };
  for (let steps = 0; ; steps++) {
    const { orders, next, over } = await step(ctx, api, run as Extract<Cursor, { phase: string }>);
    if (over || orders.length > 0 || steps + 1 >= EMPTY_STEPS)
      return { orders, nextCursor: JSON.stringify(next), done: over || orders.length === 0 };
    run = next;
  }
}
