import { sql } from 'kysely';
import type { JobQueue, Queue } from '../../infra/queue/job-queue.ts';
import type { PlatformHealth, StoreHealth } from '../stores/health/store-health.ts';
import type { Db } from '../tables.ts';
import type { AlertThresholds } from './alert-thresholds.ts';

/** The console's charts cover the last 24 hours in hourly buckets (bucket 0 is the oldest hour, 23 the last one). */
export const HOURS = 24;

/** One platform's last 24 hours, per hour, and now. */
export interface PlatformOverview {
  platform: string;
  /** Store orders received per minute (the hour's average). */
  ordersPerMinute: number[];
  /** The longest a store webhook received in the hour waited to be processed (or has waited, if it still waits). */
  ingestLagSeconds: number[];
  /** Stores with a webhook of the hour that waited longer than the ingest lag threshold. */
  storesBehind: number[];
  /** Now, as the store health page and /metrics read it. */
  now: PlatformHealth | undefined;
}

/** One queue's dead jobs: null when the queue did not answer. */
export interface DeadJobs {
  queue: string;
  /** Dead jobs now (older ones included). */
  failed: number | null;
  /** Per hour, the dead jobs that failed in that hour (those since retried or removed are gone). */
  perHour: number[] | null;
}

/**
 * The most failure times read per queue for the dead jobs' chart: a queue that piled up more in
 * 24 hours charts its newest ones (its alert fired long before).
 */
export const DEAD_JOBS_READ = 1000;

export interface Overview {
  at: Date;
  platforms: PlatformOverview[];
  /** Failed and all attempts to resellers' webhook endpoints, per hour. */
  deliveries: { failed: number[]; all: number[] };
  /** Dead jobs (failed for good) per queue: how many now, and per hour of the window how many of them failed then. */
  deadJobs: DeadJobs[];
  thresholds: AlertThresholds;
}

/**
 * What the console's home page charts: per platform and hour of the last 24, from the tables
 * that already hold the times (store ingests, stored store webhooks, webhook attempts), in one
 * grouped query each, bounded by the 24-hour window; the dead jobs from each queue's failure
 * times (a bounded read); and now, from the store health reading and the queues' counts.
 */
export class ConsoleOverview {
  readonly #deps: { db: Db; health: StoreHealth; queue: JobQueue; platforms: readonly string[] };
  readonly thresholds: AlertThresholds;

  constructor(deps: {
    db: Db;
    health: StoreHealth;
    queue: JobQueue;
    platforms: readonly string[];
    thresholds: AlertThresholds;
  }) {
    this.#deps = deps;
    this.thresholds = deps.thresholds;
  }

  async read(at: Date = new Date()): Promise<Overview> {
    const { db, health, queue } = this.#deps;
    const since = new Date(at.getTime() - HOURS * 3600_000);
    const q = windowQueries(db, at, this.thresholds.ingestLagSeconds);
    const [orders, lags, attempts, now, dead] = await Promise.all([
      q.storeOrders.execute(),
      q.storeWebhooks.execute(),
      q.attempts.execute(),
      health.perPlatform(),
      Promise.all(queue.queues().map((one) => deadJobsOf(one, since, at))),
    ]);
    const series = () => Array.from({ length: HOURS }, () => 0);
    const platforms = this.#deps.platforms.map((platform) => {
      const p: PlatformOverview = {
        platform,
        ordersPerMinute: series(),
        ingestLagSeconds: series(),
        storesBehind: series(),
        now: now.find((h) => h.platform === platform),
      };
      for (const r of orders) if (r.platform === platform && inRange(r.b)) p.ordersPerMinute[r.b] = r.n / 60;
      for (const r of lags) {
        if (r.platform !== platform || !inRange(r.b)) continue;
        p.ingestLagSeconds[r.b] = Math.max(0, r.lag);
        p.storesBehind[r.b] = r.behind;
      }
      // The last hour also counts what waits now (a webhook of an earlier hour still unprocessed).
      if (p.now) {
        p.ingestLagSeconds[HOURS - 1] = Math.max(p.ingestLagSeconds[HOURS - 1]!, p.now.maxIngestLagSeconds);
        const flagged = Object.values(p.now.flagged).reduce((a, b) => a + b, 0);
        p.storesBehind[HOURS - 1] = Math.max(p.storesBehind[HOURS - 1]!, flagged);
      }
      return p;
    });
    const deliveries = { failed: series(), all: series() };
    for (const r of attempts) {
      if (!inRange(r.b)) continue;
      deliveries.failed[r.b] = r.failed;
      deliveries.all[r.b] = r.all;
    }
    return { at, platforms, deliveries, deadJobs: dead, thresholds: this.thresholds };
  }
}

/**
 * The grouped queries of the 24 hours before `at`, one per table that holds the times, each
 * bounded by the window on a time column with an index of its own (migration 0030): store orders
 * per platform and hour, the store webhooks' lag and the stores behind per platform and hour,
 * and the webhook attempts to resellers per hour.
 */
export function windowQueries(db: Db, at: Date, lagThreshold: number) {
  const since = new Date(at.getTime() - HOURS * 3600_000);
  // The hour bucket of a time: 23 for the last hour, 0 for the oldest.
  const bucket = (col: string) =>
    sql<number>`${HOURS - 1} - floor(extract(epoch from (${at}::timestamptz - ${sql.ref(col)})) / 3600)::int`;
  return {
    storeOrders: db
      .selectFrom('store_ingests as i')
      .innerJoin('stores as s', 's.id', 'i.store_id')
      .select(['s.platform', bucket('i.created_at').as('b'), sql<number>`count(*)::int`.as('n')])
      .where('i.created_at', '>', since)
      .where('i.created_at', '<=', at)
      .groupBy(['s.platform', 'b']),
    storeWebhooks: db
      .selectFrom('store_webhook_events')
      .select([
        'platform',
        bucket('received_at').as('b'),
        sql<number>`max(extract(epoch from (coalesce(processed_at, ${at}::timestamptz) - received_at)))::int`.as('lag'),
        sql<number>`count(distinct store_id) filter (where extract(epoch from (coalesce(processed_at, ${at}::timestamptz) - received_at)) > ${lagThreshold})::int`.as(
          'behind',
        ),
      ])
      .where('received_at', '>', since)
      .where('received_at', '<=', at)
      .groupBy(['platform', 'b']),
    attempts: db
      .selectFrom('webhook_attempts')
      .select([
        bucket('started_at').as('b'),
        sql<number>`count(*) filter (where not succeeded)::int`.as('failed'),
        sql<number>`count(*)::int`.as('all'),
      ])
      .where('started_at', '>', since)
      .where('started_at', '<=', at)
      .where('latency_ms', 'is not', null)
      .groupBy('b'),
  };
}

/** A queue's dead jobs now and per hour since `since` (bucketed as the SQL's `bucket`); nulls when it did not answer. */
async function deadJobsOf(q: Queue<unknown>, since: Date, at: Date): Promise<DeadJobs> {
  const [counts, times] = await Promise.all([
    q.counts().catch(() => null),
    q.failedSince(since, DEAD_JOBS_READ).catch(() => null),
  ]);
  let perHour: number[] | null = null;
  if (times) {
    perHour = Array.from({ length: HOURS }, () => 0);
    for (const t of times) {
      const b = HOURS - 1 - Math.floor((at.getTime() - t.getTime()) / 3600_000);
      if (inRange(b)) perHour[b] = perHour[b]! + 1;
    }
  }
  return { queue: q.name, failed: counts?.failed ?? null, perHour };
}

function inRange(b: number): boolean {
  return Number.isInteger(b) && b >= 0 && b < HOURS;
}

/** Whether a platform is in trouble now or was in the last hour, by the alerts' thresholds: the reasons, in words. */
export function troubleOf(p: PlatformOverview, t: AlertThresholds): string[] {
  const out: string[] = [];
  const lag = p.ingestLagSeconds[HOURS - 1]!;
  if (lag > t.ingestLagSeconds) out.push(`store webhooks wait ${Math.round(lag / 60)} min to be processed`);
  const behind = p.storesBehind[HOURS - 1]!;
  if (behind > t.storesBehind) out.push(`${behind} store${behind === 1 ? '' : 's'} falling behind`);
  const day = p.now?.last24h;
  if (day) {
    const total = day.placed + day.skipped + day.failed;
    if (day.failed >= t.failedOrdersAtLeast && day.failed / Math.max(total, 1) > t.failedOrderShare)
      out.push(`${day.failed} of ${total} store orders failed in 24 h`);
  }
  return out;
}
