import { query } from './guarantees.ts';
import type { StoreOrderRecord } from './store-load.ts';
import type { ChosenShipment } from './store-shipper.ts';

/**
 * The store orders' guarantees after any fault, read from the database and the fakes (what
 * the service says of itself is not the evidence); each returns what it found wrong.
 */

const SAMPLES = 5;
const sample = <T>(items: T[], show: (t: T) => string) =>
  `${items.slice(0, SAMPLES).map(show).join('; ')}${items.length > SAMPLES ? `; … (${items.length} in all)` : ''}`;

interface PlacedRow {
  id: string;
  store_id: string;
  external_order_id: string;
  state: string;
  status: string;
}

/** The print orders of these stores. */
export function placedStoreOrders(url: string, storeIds: string[]): Promise<PlacedRow[]> {
  return query<PlacedRow>(
    url,
    'select id, store_id, external_order_id, state, status from orders where store_id = any($1)',
    [storeIds],
  );
}

/** Paid platform orders that have no print order yet. */
export async function unplacedPaid(
  url: string,
  orders: StoreOrderRecord[],
  storeIds: string[],
): Promise<StoreOrderRecord[]> {
  const placed = new Set((await placedStoreOrders(url, storeIds)).map((o) => `${o.store_id}/${o.external_order_id}`));
  return orders.filter((o) => o.paid && !placed.has(`${o.storeId}/${o.order.id}`));
}

/**
 * Every paid platform order is placed exactly once (late-paid ones included), no unpaid one is
 * placed, no print order exists for an order the platforms never had, and every order placed
 * was charged to the wallet exactly once for its total.
 */
export async function checkStoreOrders(url: string, orders: StoreOrderRecord[], storeIds: string[]): Promise<string[]> {
  const problems: string[] = [];
  const rows = await placedStoreOrders(url, storeIds);
  const count = new Map<string, number>();
  for (const r of rows)
    count.set(`${r.store_id}/${r.external_order_id}`, (count.get(`${r.store_id}/${r.external_order_id}`) ?? 0) + 1);
  const key = (o: StoreOrderRecord) => `${o.storeId}/${o.order.id}`;
  const missing = orders.filter((o) => o.paid && !count.has(key(o)));
  if (missing.length > 0)
    problems.push(
      `paid store orders never placed: ${sample(missing, (o) => `${o.order.platform} ${o.order.id} (${o.fate})`)}`,
    );
  const doubled = orders.filter((o) => (count.get(key(o)) ?? 0) > 1);
  if (doubled.length > 0)
    problems.push(
      `store orders placed more than once: ${sample(doubled, (o) => `${o.order.platform} ${o.order.id} x${count.get(key(o))}`)}`,
    );
  const unpaid = orders.filter((o) => !o.paid && count.has(key(o)));
  if (unpaid.length > 0)
    problems.push(`unpaid store orders placed: ${sample(unpaid, (o) => `${o.order.platform} ${o.order.id}`)}`);
  const known = new Set(orders.map(key));
  const strangers = rows.filter((r) => !known.has(`${r.store_id}/${r.external_order_id}`));
  if (strangers.length > 0)
    problems.push(
      `print orders of store orders the platforms never had: ${sample(strangers, (r) => `${r.id} (${r.external_order_id})`)}`,
    );

  const charges = await query<{ id: string; total: string; n: number; amount: string | null }>(
    url,
    `select o.id, o.total_cents::text as total, count(l.*)::int as n, sum(l.amount_cents)::text as amount
     from orders o left join wallet_ledger l on l.order_id = o.id and l.kind = 'order_payment'
     where o.store_id = any($1) and o.payment_status = 'paid' group by o.id, o.total_cents`,
    [storeIds],
  );
  const wrong = charges.filter((c) => c.n !== 1 || Number(c.amount) !== -Number(c.total));
  if (wrong.length > 0)
    problems.push(
      `store orders not charged exactly once for their total: ${sample(wrong, (c) => `${c.id} (total ${c.total}, ${c.n} payments = ${c.amount ?? 0})`)}`,
    );
  return problems;
}

/**
 * Each chosen order was shipped, and the platform applied its tracking exactly once; no other order got a push. A
 * miss is told with its push as the database holds it (status, attempts, last error), what to look into first.
 */
export async function checkPushes(
  url: string,
  chosen: ChosenShipment[],
  orders: StoreOrderRecord[],
): Promise<string[]> {
  const problems: string[] = [];
  const unshipped = chosen.filter((c) => c.status !== 'SHIPPED');
  if (unshipped.length > 0)
    problems.push(`orders the facility could not ship: ${sample(unshipped, (c) => `${c.orderId} (${c.status})`)}`);
  const byExternal = new Map(orders.map((o) => [`${o.storeId}/${o.order.id}`, o]));
  const wrong = chosen.flatMap((c) => {
    const o = byExternal.get(`${c.storeId}/${c.externalOrderId}`);
    const n = o ? o.stores.pushesApplied(o.order) : -1;
    return n === 1 ? [] : [{ orderId: c.orderId, externalOrderId: c.externalOrderId, n }];
  });
  if (wrong.length > 0) {
    const pushes = await query<{ order_id: string; status: string; attempts: number; last_error: string | null }>(
      url,
      'select order_id, status, attempts, last_error from store_fulfilments where order_id = any($1)',
      [wrong.map((w) => w.orderId)],
    );
    const push = new Map(pushes.map((p) => [p.order_id, p]));
    problems.push(
      `shipped orders whose tracking the platform did not apply exactly once: ${sample(wrong, (w) => {
        const p = push.get(w.orderId);
        return `${w.externalOrderId}: ${w.n} (push ${p ? `${p.status}, ${p.attempts} attempt(s)${p.last_error ? `, last error: ${p.last_error}` : ''}` : 'never recorded'})`;
      })}`,
    );
  }
  const shipped = new Set(chosen.map((c) => `${c.storeId}/${c.externalOrderId}`));
  const stray = orders.filter((o) => !shipped.has(`${o.storeId}/${o.order.id}`) && o.stores.pushesApplied(o.order) > 0);
  if (stray.length > 0) problems.push(`tracking pushed for orders never shipped: ${sample(stray, (o) => o.order.id)}`);
  return problems;
}

/** Shipped orders whose tracking the platform has not applied yet. */
export function pushesOutstanding(chosen: ChosenShipment[], orders: StoreOrderRecord[]): number {
  const byExternal = new Map(orders.map((o) => [`${o.storeId}/${o.order.id}`, o]));
  return chosen.filter((c) => {
    const o = byExternal.get(`${c.storeId}/${c.externalOrderId}`);
    return c.status !== 'SHIPPED' || !o || o.stores.pushesApplied(o.order) < 1;
  }).length;
}

/**
 * Each store order has exactly one order.created event, each shipped one exactly one order.shipped; every stored
 * webhook was processed.
 */
export async function checkStoreEvents(url: string, storeIds: string[], chosen: ChosenShipment[]): Promise<string[]> {
  const problems: string[] = [];
  const rows = await query<{ id: string; created: number; shipped: number }>(
    url,
    `select o.id, count(e.*) filter (where e.type = 'order.created')::int as created, count(e.*) filter (where e.type = 'order.shipped')::int as shipped
     from orders o left join events e on e.order_id = o.id where o.store_id = any($1) group by o.id`,
    [storeIds],
  );
  const shipped = new Set(chosen.map((c) => c.orderId));
  const wrong = rows.filter((r) => r.created !== 1 || r.shipped !== (shipped.has(r.id) ? 1 : 0));
  if (wrong.length > 0)
    problems.push(
      `store orders without exactly one order.created (and one order.shipped when shipped): ${sample(wrong, (r) => `${r.id} (created ${r.created}, shipped ${r.shipped})`)}`,
    );
  const waiting = await query<{ n: number }>(
    url,
    'select count(*)::int as n from store_webhook_events where processed_at is null and store_id = any($1)',
    [storeIds],
  );
  if (waiting[0]!.n > 0) problems.push(`${waiting[0]!.n} stored webhooks never processed`);
  return problems;
}

/** Stored webhooks received up to `at` and not processed yet. */
export async function unprocessedSince(url: string, at: Date): Promise<number> {
  return (
    await query<{ n: number }>(
      url,
      'select count(*)::int as n from store_webhook_events where processed_at is null and received_at <= $1',
      [at],
    )
  )[0]!.n;
}

/** Stored webhooks received between `from` and `to`. */
export async function receivedBetween(url: string, from: Date, to: Date): Promise<number> {
  return (
    await query<{ n: number }>(
      url,
      'select count(*)::int as n from store_webhook_events where received_at between $1 and $2',
      [from, to],
    )
  )[0]!.n;
}
