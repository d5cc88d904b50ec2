import { sql } from 'kysely';
import { newId } from '../../infra/ids.ts';
import type { Logger } from '../../infra/logger.ts';
import { claimUndispatchedEvents } from '../events/event-fragments.ts';
import type { Db } from '../tables.ts';
import { WebhookDbLane } from './webhook-db-lane.ts';
import type { WebhookDeliverer } from './webhook-deliverer.ts';
import { PING_EVENT } from './webhook-event-types.ts';
import type { WebhooksOptions } from './webhooks-options.ts';

const FAN_OUT_BATCH = 200;
const SWEEP_BATCH = 1000;

/** What one sweep did (for logs and tests). */
export interface SweepReport {
  fannedOut: number;
  requeued: number;
  disabled: number;
  purged: number;
}

/**
 * Turns outbox events into deliveries and keeps the schedule honest. Fan-out marks each event
 * dispatched in the same transaction that creates its deliveries, so an event is fanned out
 * once; the queue is told after the commit, and whatever it was not told (a crash in between,
 * a Redis blip) the sweep finds in the database as a due delivery.
 */
export class WebhookDispatcher {
  readonly #db: Db;
  /** The fan-out transaction: on a connection of its own while busy, not behind API queries in the pool. */
  readonly #lane: WebhookDbLane;
  readonly #deliverer: WebhookDeliverer;
  readonly #logger: Logger;
  readonly #options: WebhooksOptions;
  readonly #clock: () => Date;
  #running: Promise<number> | undefined;
  #again = false;

  constructor(deps: {
    db: Db;
    lane?: WebhookDbLane;
    deliverer: WebhookDeliverer;
    logger: Logger;
    options: WebhooksOptions;
    clock?: () => Date;
  }) {
    this.#db = deps.db;
    this.#lane = deps.lane ?? new WebhookDbLane(deps.db, { pooled: false });
    this.#deliverer = deps.deliverer;
    this.#logger = deps.logger;
    this.#options = deps.options;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** Fans out every undispatched event. Calls while one runs make it go round once more instead of running twice. */
  dispatch(): Promise<number> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      let total = 0;
      try {
        do {
          this.#again = false;
          let n: number;
          do {
            n = await this.#fanOutBatch();
            total += n;
          } while (n === FAN_OUT_BATCH);
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
      return total;
    })();
    return this.#running;
  }

  /** The maintenance task: fan-out, lost attempts back on the queue, failing endpoints disabled, old history purged. */
  async sweep(): Promise<SweepReport> {
    const fannedOut = await this.dispatch();
    const requeued = await this.#requeueDue();
    const disabled = await this.#disableFailing();
    const purged = await this.#purgeOld();
    return { fannedOut, requeued, disabled, purged };
  }

  /**
   * One batch in ONE statement (no BEGIN, COMMIT or rows sent back and forth): up to
   * FAN_OUT_BATCH undispatched events are claimed (SKIP LOCKED: several processes fan out side
   * by side, each taking other events) and marked dispatched, and their deliveries are created
   * in the same statement, so an event is fanned out exactly once. A delivery goes to every
   * endpoint of the event's account and mode (a test endpoint never sees a live event) that is
   * live, registered before the event happened, and subscribed (`isSubscribed`, in SQL). Its id
   * is the usual time-ordered one, its random part taken from the (event, endpoint) pair.
   */
  async #fanOutBatch(): Promise<number> {
    const now = this.#clock();
    const idPrefix = newId('whd', now.getTime()).slice(0, 'whd_'.length + 10);
    const { rows } = await this.#lane.run((db) =>
      sql<{ events: number; created: string[] }>`
        with ev as (${claimUndispatchedEvents(now, FAN_OUT_BATCH)}),
        created as (
          insert into webhook_deliveries (id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at)
          select ${idPrefix}::text || upper(substr(md5(ev.id || ':' || ep.id), 1, 16)), ep.id, ev.id, ev.type, 'pending', 0, ${now}::timestamptz, ${now}::timestamptz
          from ev
          join webhook_endpoints ep on ep.reseller_id = ev.reseller_id and ep.mode = ev.mode and ep.created_at <= ev.created_at
          where ep.deleted_at is null and ep.disabled_at is null and ev.type <> ${PING_EVENT} and (ep.events ? '*' or ep.events ? ev.type)
          on conflict (event_id, endpoint_id) do nothing
          returning id
        )
        select (select count(*) from ev)::int as events, coalesce((select array_agg(id order by id) from created), '{}') as created`.execute(
        db,
      ),
    );
    const { events, created } = rows[0]!;
    if (created.length > 0) {
      await this.#deliverer.enqueueFirst(created).catch((err: Error) =>
        this.#logger.warn('webhook deliveries not queued; the sweeper will queue them', {
          deliveries: created.length,
          error: err.message,
        }),
      );
    }
    return events;
  }

  /**
   * Due deliveries whose job was lost (a crash before the enqueue, the expired lease of a dead
   * worker, a Redis that lost data) go back on the queue. While jobs wait to run, a due row is
   * more likely backlog than loss, so only rows overdue for long are taken then: re-adding a
   * whole backlog every sweep would slow the queue it waits for. The endpoints take turns in a
   * sweep (each one's oldest first, then each one's second…): one endpoint's long backlog never
   * fills the batch ahead of everyone else's.
   */
  async #requeueDue(): Promise<number> {
    const now = this.#clock();
    const busy = (await this.#deliverer.waitingJobs()) > 0;
    const dueBefore = busy ? new Date(now.getTime() - this.#options.requeueStaleAfterMs) : now;
    const { rows: due } = await sql<{
      id: string;
      attempts: number;
      last_attempt_at: Date | null;
      recorded: number | null;
    }>`
      with turns as (
        select id, attempts, last_attempt_at, next_attempt_at, row_number() over (partition by endpoint_id order by next_attempt_at, id) as turn
        from webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${dueBefore}
      ),
      picked as (
        select * from turns order by turn, next_attempt_at limit ${SWEEP_BATCH}
      )
      select p.id, p.attempts, p.last_attempt_at, a.attempt as recorded
      from picked as p
      left join webhook_attempts as a on a.delivery_id = p.id and a.attempt = p.attempts
      order by p.turn, p.next_attempt_at`.execute(this.#db);
    // A claimed attempt without an outcome whose lease ran out: its process stopped mid-send. Say so in the log.
    const interrupted = due.filter((d) => d.attempts > 0 && d.recorded === null);
    if (interrupted.length > 0) {
      await this.#db
        .insertInto('webhook_attempts')
        .values(
          interrupted.map((d) => ({
            delivery_id: d.id,
            attempt: d.attempts,
            trigger: 'scheduled' as const,
            started_at: d.last_attempt_at ?? this.#clock(),
            status_code: null,
            latency_ms: null,
            error: 'interrupted: the sending process stopped before an outcome was recorded',
            succeeded: false,
          })),
        )
        .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
        .execute();
    }
    // Same job id as the normal path: a job that still waits is not added twice.
    for (const d of due) await this.#deliverer.enqueue(d.id, d.attempts + 1);
    return due.length;
  }

  async #disableFailing(): Promise<number> {
    const now = this.#clock();
    const disabled = await this.#db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: now, disabled_reason: 'failing_continuously' })
      .where('failing_since', '<=', new Date(now.getTime() - this.#options.disableAfterMs))
      .where('disabled_at', 'is', null)
      .where('deleted_at', 'is', null)
      .returning(['id', 'reseller_id', 'mode', 'url', 'failing_since'])
      .execute();
    for (const e of disabled) {
      this.#logger.warn('webhook endpoint disabled: every delivery failed for too long', {
        endpointId: e.id,
        resellerId: e.reseller_id,
        mode: e.mode,
        url: e.url,
        failingSince: e.failing_since?.toISOString(),
      });
    }
    return disabled.length;
  }

  async #purgeOld(): Promise<number> {
    const cutoff = new Date(this.#clock().getTime() - this.#options.retentionMs);
    const purged = await this.#db
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('created_at', '<', cutoff)
          .where('status', '<>', 'pending')
          .limit(SWEEP_BATCH),
      )
      .executeTakeFirst();
    return Number(purged.numDeletedRows);
  }
}
