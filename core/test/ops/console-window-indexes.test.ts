import { expect } from 'chai';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../../src/infra/db/database.ts';
import { QueueJobStore } from '../../src/infra/queue/queue-job-store.ts';
import { migrations } from '../../src/modules/migrations.ts';
import { windowQueries } from '../../src/modules/console/console-overview.ts';
import type { Tables } from '../../src/modules/tables.ts';
import { createTestPostgresDatabase, needService, SETUP_TIMEOUT_MS } from '../helpers/services.ts';

/** Every index a plan (EXPLAIN's JSON) reads, at any depth. */
function indexesOf(plan: unknown): string[] {
  if (Array.isArray(plan)) return plan.flatMap(indexesOf);
  if (!plan || typeof plan !== 'object') return [];
  const node = plan as Record<string, unknown>;
  const own = typeof node['Index Name'] === 'string' ? [node['Index Name']] : [];
  return [...own, ...Object.values(node).flatMap(indexesOf)];
}

/**
 * Issue 37: the console's home page asks for the last 24 hours of tables that grow for ever
 * (store orders, store webhooks, webhook attempts; dead jobs of the in-process queue). On
 * PostgreSQL, with 60 days of rows and fresh statistics, each of its window queries reads its
 * time column's index (migration 0030), not the whole table.
 */
describe("the console's 24-hour queries read by index [postgres]", function () {
  this.timeout(SETUP_TIMEOUT_MS);
  let handle: DatabaseHandle<Tables> | undefined;
  let drop: (() => Promise<void>) | undefined;
  const at = new Date();

  before(async function () {
    await needService(this, 'postgres');
    const created = await createTestPostgresDatabase();
    drop = created.drop;
    handle = await openDatabase<Tables>({ url: created.url });
    await migrateToLatest(handle.db, migrations);
    // 60 days of rows, one every ~86 s: a day is a sixtieth of each table. Only the plans matter here,
    // so the rows' foreign keys are not checked (replica mode, for this transaction only).
    await handle.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`insert into stores (id, reseller_id, mode, platform, external_id, name, credentials_sealed, status, created_at, updated_at)
        select 'sto_' || g, 'rsl_x', 'test', case when g % 2 = 0 then 'SANDBOX' else 'SHOPIFY' end, 'shop-' || g, 'Shop ' || g, '', 'connected', now(), now()
        from generate_series(1, 200) g`.execute(trx);
      await sql`insert into store_ingests (id, store_id, external_order_id, status, skipped_lines, created_at, updated_at)
        select 'sti_' || g, 'sto_' || (1 + g % 200), 'ext-' || g, 'placed', '[]', ${at}::timestamptz - g * interval '86 seconds', now()
        from generate_series(1, 60000) g`.execute(trx);
      await sql`insert into store_webhook_events (id, platform, store_id, event_key, topic, headers, raw_body, path, received_at, processed_at)
        select 'swe_' || g, 'SANDBOX', 'sto_' || (1 + g % 200), 'key-' || g, 'orders/create', '{}', '', 'p',
          ${at}::timestamptz - g * interval '86 seconds', ${at}::timestamptz - g * interval '86 seconds' + interval '2 seconds'
        from generate_series(1, 60000) g`.execute(trx);
      await sql`insert into webhook_attempts (delivery_id, attempt, trigger, started_at, status_code, latency_ms, succeeded)
        select 'whd_' || g, 1, 'scheduled', ${at}::timestamptz - g * interval '86 seconds', 200, 40, g % 7 <> 0
        from generate_series(1, 60000) g`.execute(trx);
      await sql`insert into queue_jobs (queue, job_id, data, attempt, max_attempts, run_at, state, last_error)
        select 'q' || (g % 20), 'job-' || g, '{}', 1, 1, ${at}::timestamptz - g * interval '86 seconds', 'failed', 'dead'
        from generate_series(1, 60000) g`.execute(trx);
    });
    await sql`analyze`.execute(handle.db);
  });
  after(async () => {
    await handle?.close();
    await drop?.();
  });

  async function planIndexes(query: Compilable<unknown>): Promise<string[]> {
    const compiled = query.compile();
    const result = await handle!.db.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
    );
    return indexesOf(result.rows[0]!['QUERY PLAN']);
  }

  it('store orders per platform and hour: store_ingests by created_at', async () => {
    const q = windowQueries(handle!.db, at, 600);
    expect(await planIndexes(q.storeOrders)).to.include('store_ingests_created_idx');
  });

  it('ingest lag and stores behind: store_webhook_events by received_at', async () => {
    const q = windowQueries(handle!.db, at, 600);
    expect(await planIndexes(q.storeWebhooks)).to.include('store_webhook_events_received_idx');
  });

  it('failed deliveries per hour: webhook_attempts by started_at', async () => {
    const q = windowQueries(handle!.db, at, 600);
    expect(await planIndexes(q.attempts)).to.include('webhook_attempts_started_idx');
  });

  it("dead jobs per hour: the in-process queue's failed jobs by queue, state and when they failed", async () => {
    const store = new QueueJobStore({ db: handle!.db, queue: 'q3' });
    const since = new Date(at.getTime() - 24 * 3600_000);
    expect(await planIndexes(store.failedSinceQuery(since, 1000))).to.include('queue_jobs_due_idx');
    const times = await store.failedSince(since, 1000);
    // 24 h of one job every 86 s, one queue in 20: about 50 of them, newest first, all in the window.
    expect(times.length).to.be.within(45, 55);
    expect(times.every((t, i) => t >= since && (i === 0 || t <= times[i - 1]!))).to.equal(true);
  });
});
