import pg from 'pg';
import type { KeyRecord, LoadReseller } from './order-load.ts';
import type { ProcessSupervisor } from './process-supervisor.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/**
 * The guarantees that must hold after any fault, each check returning what it found wrong
 * (empty: it holds) so that one run reports every broken guarantee at once. They read the
 * database directly: what the service says of itself is not the evidence.
 */

const SAMPLES = 5;

function sample<T>(items: T[], show: (t: T) => string): string {
  return `${items.slice(0, SAMPLES).map(show).join('; ')}${items.length > SAMPLES ? `; … (${items.length} in all)` : ''}`;
}

/**
 * Runs `query` on a short-lived connection (the database may just have restarted: no pooled connection to go stale).
 */
export async function query<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Every acknowledged order exists exactly once: each key the load generator saw acknowledged
 * names one order (every repeat the same), the database holds that order under that key, no
 * order of these resellers exists that no key names (a doubled placement), and each paid
 * order was charged exactly once, for its total.
 */
export async function checkOrders(url: string, keys: KeyRecord[], resellers: LoadReseller[]): Promise<string[]> {
  const problems: string[] = [];
  const ids = resellers.map((r) => r.id);
  const unanswered = keys.filter((k) => k.gaveUp !== undefined);
  if (unanswered.length > 0)
    problems.push(
      `requests never acknowledged (the load retried each until its deadline): ${sample(unanswered, (k) => `${k.key}${k.acknowledged ? ' (a repeat)' : ''}: ${k.gaveUp}`)}`,
    );
  const split = keys.filter((k) => new Set(k.orderIds).size > 1);
  if (split.length > 0)
    problems.push(
      `one Idempotency-Key answered with different orders: ${sample(split, (k) => `${k.key} -> ${[...new Set(k.orderIds)].join(', ')}`)}`,
    );

  const stored = await query<{ reseller_id: string; key: string; order_id: string }>(
    url,
    'select reseller_id, key, order_id from idempotency_keys where reseller_id = any($1)',
    [ids],
  );
  const orders = await query<{
    id: string;
    reseller_id: string;
    state: string;
    payment_method: string | null;
    payment_status: string;
    total_cents: string;
  }>(
    url,
    'select id, reseller_id, state, payment_method, payment_status, total_cents from orders where reseller_id = any($1)',
    [ids],
  );
  const payments = await query<{ order_id: string; n: number; amount: string }>(
    url,
    `select order_id, count(*)::int as n, sum(amount_cents)::text as amount from wallet_ledger where reseller_id = any($1) and kind = 'order_payment' group by order_id`,
    [ids],
  );
  const keyOf = new Map(stored.map((s) => [`${s.reseller_id}/${s.key}`, s.order_id]));
  const orderById = new Map(orders.map((o) => [o.id, o]));

  const missing = keys.filter((k) => k.acknowledged && !orderById.has(k.orderIds[0]!));
  if (missing.length > 0)
    problems.push(
      `acknowledged orders missing from the database: ${sample(missing, (k) => `${k.orderIds[0]} (key ${k.key})`)}`,
    );
  const misfiled = keys.filter((k) => k.acknowledged && keyOf.get(`${k.reseller.id}/${k.key}`) !== k.orderIds[0]);
  if (misfiled.length > 0)
    problems.push(
      `Idempotency-Keys stored with another order than the one acknowledged: ${sample(misfiled, (k) => `${k.key}: acknowledged ${k.orderIds[0]}, stored ${keyOf.get(`${k.reseller.id}/${k.key}`) ?? 'nothing'}`)}`,
    );

  const named = new Set(stored.map((s) => s.order_id));
  const orphans = orders.filter((o) => !named.has(o.id));
  if (orphans.length > 0)
    problems.push(`orders no Idempotency-Key names (placed twice?): ${sample(orphans, (o) => o.id)}`);
  const sent = new Set(keys.map((k) => `${k.reseller.id}/${k.key}`));
  const strangers = stored.filter((s) => !sent.has(`${s.reseller_id}/${s.key}`));
  if (strangers.length > 0)
    problems.push(`orders under keys the load never sent: ${sample(strangers, (s) => `${s.order_id} (key ${s.key})`)}`);

  const paymentOf = new Map(payments.map((p) => [p.order_id, p]));
  const wrongCharge = orders.filter((o) => {
    const p = paymentOf.get(o.id);
    if (o.payment_method === 'wallet' && o.payment_status === 'paid')
      return p?.n !== 1 || Number(p.amount) !== -Number(o.total_cents);
    return p !== undefined;
  });
  if (wrongCharge.length > 0) {
    problems.push(
      `orders not charged exactly once for their total: ${sample(wrongCharge, (o) => `${o.id} (${o.state}/${o.payment_status}, total ${o.total_cents}, payments ${paymentOf.get(o.id)?.n ?? 0} = ${paymentOf.get(o.id)?.amount ?? 0})`)}`,
    );
  }
  return problems;
}

/** Every wallet of these resellers holds exactly the sum of its ledger entries. */
export async function checkWallets(url: string, resellers: LoadReseller[]): Promise<string[]> {
  const rows = await query<{ reseller_id: string; mode: string; balance: string | null; ledger: string | null }>(
    url,
    `select coalesce(w.reseller_id, l.reseller_id) as reseller_id, coalesce(w.mode, l.mode) as mode, w.balance_cents::text as balance, l.total::text as ledger
     from (select * from wallets where reseller_id = any($1)) w
     full join (select reseller_id, mode, sum(amount_cents) as total from wallet_ledger where reseller_id = any($1) group by reseller_id, mode) l
       on l.reseller_id = w.reseller_id and l.mode = w.mode`,
    [resellers.map((r) => r.id)],
  );
  const off = rows.filter((r) => Number(r.balance ?? 0) !== Number(r.ledger ?? 0));
  return off.length > 0
    ? [
        `wallets that differ from their ledger: ${sample(off, (r) => `${r.reseller_id}/${r.mode}: balance ${r.balance ?? 'none'}, ledger sum ${r.ledger ?? 'none'}`)}`,
      ]
    : [];
}

/**
 * Every event of these resellers was delivered to their endpoint (a delivery marked delivered)
 * and reached the receiver correctly signed, each order's `order.created` exists once, and no
 * request reached a receiver unsigned or wrongly signed. Polls until that holds or the deadline.
 */
export async function checkEventsDelivered(
  url: string,
  resellers: LoadReseller[],
  keys: KeyRecord[],
  receiver: WebhookReceiver,
  deadlineMs: number,
): Promise<string[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const problems = await eventProblems(url, resellers, keys, receiver);
    if (problems.length === 0 || Date.now() > until) return problems;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function eventProblems(
  url: string,
  resellers: LoadReseller[],
  keys: KeyRecord[],
  receiver: WebhookReceiver,
): Promise<string[]> {
  const problems: string[] = [];
  const byId = new Map(resellers.map((r) => [r.id, r]));
  const events = await query<{
    id: string;
    reseller_id: string;
    type: string;
    order_id: string | null;
    dispatched: boolean;
  }>(
    url,
    'select id, reseller_id, type, order_id, dispatched_at is not null as dispatched from events where reseller_id = any($1)',
    [resellers.map((r) => r.id)],
  );
  const deliveries = await query<{
    event_id: string;
    endpoint_id: string;
    status: string;
    attempts: number;
    last_error: string | null;
    next_attempt_at: Date | null;
  }>(
    url,
    'select event_id, endpoint_id, status, attempts, last_error, next_attempt_at from webhook_deliveries where endpoint_id = any($1)',
    [resellers.map((r) => r.endpointId)],
  );
  const deliveryOf = new Map(deliveries.map((d) => [`${d.event_id}/${d.endpoint_id}`, d]));
  const undelivered = events.filter(
    (e) => deliveryOf.get(`${e.id}/${byId.get(e.reseller_id)!.endpointId}`)?.status !== 'delivered',
  );
  if (undelivered.length > 0) {
    problems.push(
      `events without a successful delivery to their endpoint: ${sample(undelivered, (e) => {
        const d = deliveryOf.get(`${e.id}/${byId.get(e.reseller_id)!.endpointId}`);
        return `${e.id} ${e.type} (${e.dispatched ? 'fanned out' : 'not fanned out'}; delivery ${d ? `${d.status}, ${d.attempts} attempts, next ${d.next_attempt_at?.toISOString() ?? '-'}, last error ${d.last_error ?? '-'}` : 'none'})`;
      })}`,
    );
  }
  const unseen = events.filter((e) => !receiver.saw(byId.get(e.reseller_id)!.name, e.id));
  if (unseen.length > 0)
    problems.push(`events the receiver never got (correctly signed): ${sample(unseen, (e) => `${e.id} ${e.type}`)}`);

  const created = new Map<string, number>();
  for (const e of events)
    if (e.type === 'order.created' && e.order_id) created.set(e.order_id, (created.get(e.order_id) ?? 0) + 1);
  const acknowledged = [...new Set(keys.flatMap((k) => (k.acknowledged ? [k.orderIds[0]!] : [])))];
  const wrongCount = acknowledged.filter((id) => created.get(id) !== 1);
  if (wrongCount.length > 0)
    problems.push(
      `acknowledged orders without exactly one order.created event: ${sample(wrongCount, (id) => `${id} (${created.get(id) ?? 0})`)}`,
    );
  const bad = receiver.badSignatures();
  if (bad.length > 0) problems.push(`webhook requests with a missing or wrong signature: ${sample(bad, (b) => b)}`);
  return problems;
}

/**
 * No process exited on its own, and every process is up and serving: each API answers
 * /healthz and /readyz and places an order, the worker runs. Crashed processes are started
 * again first (as a supervisor would), so the other guarantees can still be checked; the
 * crash itself stays a failure.
 */
export async function checkProcesses(
  supervisor: ProcessSupervisor,
  probe: (api: string) => Promise<KeyRecord>,
  deadlineMs: number,
): Promise<string[]> {
  const problems = supervisor
    .crashes()
    .map(
      (c) =>
        `${c.name} (pid ${c.pid}) exited on its own with ${c.signal ?? `code ${c.code}`}; the end of its output (all of it in ${c.logFile}; FAULTS_KEEP_DIR=1 keeps it):\n${crashExcerpt(c.tail)}`,
    );
  const revived = await supervisor.reviveCrashed().catch((err: Error) => {
    problems.push(`a crashed process could not be started again: ${err.message}`);
    return [];
  });
  if (revived.length > 0) problems.push(`restarted by the harness after a crash: ${revived.join(', ')}`);
  for (const p of supervisor.processes()) {
    if (!p.alive) {
      problems.push(`${p.name} is not running`);
      continue;
    }
    if (!p.url) continue;
    for (const path of ['/healthz', '/readyz']) {
      const status = await pollStatus(`${p.url}${path}`, deadlineMs);
      if (status !== 200) problems.push(`${p.name} ${path} answered ${status} (not 200 within ${deadlineMs} ms)`);
    }
    const placed = await probe(p.url);
    if (!placed.acknowledged)
      problems.push(`${p.name} placed no order within ${deadlineMs} ms: ${placed.gaveUp ?? ''}`);
  }
  return problems;
}

async function pollStatus(url: string, deadlineMs: number): Promise<number | string> {
  const until = Date.now() + deadlineMs;
  let last: number | string = 'no answer';
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      last = res.status;
      if (res.status === 200) return 200;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > until) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** What a crash printed, without log lines, stack frames or empty error fields: the error and where it was emitted. */
function crashExcerpt(tail: string): string {
  // The tail's first line may be cut anywhere.
  const lines = tail.trimEnd().split('\n').slice(1);
  const isLogLine = (l: string) => l.startsWith('{"') || (l.endsWith('}') && l.includes('","'));
  const printed = lines.filter((l) => !isLogLine(l) && !/^\s+at /.test(l) && !/^\s+\w+: undefined,?$/.test(l));
  return (printed.length > 0 ? printed : lines)
    .slice(-20)
    .map((l) => `    ${l.slice(0, 300)}`)
    .join('\n');
}
