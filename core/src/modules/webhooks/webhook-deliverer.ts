import { sql } from 'kysely';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Queue } from '../../infra/queue/job-queue.ts';
import { SafeFetchError, type SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';
import type { EventEnvelope } from '../events/outbox.ts';
import type { Db } from '../tables.ts';
import { WebhookDbLane } from './webhook-db-lane.ts';
import { PING_EVENT } from './webhook-event-types.ts';
import { nextRetryDelay } from './webhook-retry-schedule.ts';
import { SendScheduler, type ClaimCap, type SendReport } from './webhook-send-scheduler.ts';
import { signedHeaders } from './webhook-signer.ts';
import type { WebhooksOptions } from './webhooks-options.ts';
import { previousSecretSigns, type AttemptTrigger } from './webhooks-tables.ts';

/**
 * A queue job: "attempt number `attempt` of these deliveries is due". Fan-out queues one job
 * per batch of new deliveries (`deliveryIds`); a retry or the sweeper queues one job per
 * delivery (`deliveryId`, with a job id per attempt so it is added once).
 */
export type DeliveryJob = { deliveryId: string; attempt: number } | { deliveryIds: string[]; attempt: number };

/** One job id per (delivery, attempt): the sweeper and the normal path add the same job at most once. */
export const deliveryJobId = (deliveryId: string, attempt: number): string => `${deliveryId}-a${attempt}`;

/** A job may start this much before its attempt is due (clocks of two processes differ a little). */
const EARLY_SLACK_MS = 1000;

interface Outcome {
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  succeeded: boolean;
}

/** A claimed attempt: the delivery's counters and what sending needs. */
interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  /** `last_attempt_at` before the claim: put back if the attempt is returned unsent. */
  previous_attempt_at: Date | null;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  deleted_at: Date | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  payload: Record<string, unknown>;
}

/** A delivery put off by a claim, or returned unsent: queued again for `attempt` at `until`. */
interface PutOff {
  id: string;
  endpointId: string;
  attempt: number;
  until: Date;
}

/**
 * What one claimed attempt ended with: sent (an outcome), closed without sending, or returned
 * unsent to the schedule (its endpoint was busy or held): the claim is undone, the attempt
 * number given back, and the delivery is due again at `at`.
 */
type Result =
  | { claimed: Claimed; outcome: Outcome; close?: undefined; returned?: undefined }
  | { claimed: Claimed; close: { status: 'cancelled' | 'failed'; reason: string }; outcome?: undefined; returned?: undefined }
  | { claimed: Claimed; returned: { at: Date }; outcome?: undefined; close?: undefined };

/**
 * Sends attempts of deliveries. An attempt is first claimed in the database (the attempt
 * counter moves on and `next_attempt_at` becomes a lease), so two processes never send the
 * same attempt, and a process that dies mid-send leaves a lease that runs out: the sweeper
 * then re-enqueues the delivery and the next attempt carries the same event. A job claims
 * its batch in one statement, sends it at once, and records the outcomes in one statement: a
 * few round trips per batch instead of a few per delivery.
 *
 * Fair to every endpoint: the SendScheduler gives each send its turn (per endpoint, per host,
 * round robin, a circuit for failing endpoints). A claim takes of a busy or held endpoint only
 * what can start soon and puts the rest off; an attempt that gets no turn soon is returned to
 * the schedule unsent; and a job stops waiting for sends still running after `slowAfterMs`
 * (they are recorded when they end), so a slow endpoint holds neither other endpoints' places
 * nor the queue's job slots.
 */
export class WebhookDeliverer {
  readonly #db: Db;
  /** Batch claims and outcome writes: on a connection of their own while busy. */
  readonly #lane: WebhookDbLane;
  readonly #box: SecretBox;
  readonly #safeFetch: SafeFetch;
  readonly #logger: Logger;
  readonly #options: WebhooksOptions;
  readonly #clock: () => Date;
  /** Turns to send, across the jobs of this process. */
  readonly #scheduler: SendScheduler;
  /** Outcomes of sends a job stopped waiting for, still to be recorded. */
  readonly #late = new Set<Promise<void>>();
  #queue: Queue<DeliveryJob> | undefined;

  constructor(deps: { db: Db; lane?: WebhookDbLane; box: SecretBox; safeFetch: SafeFetch; logger: Logger; options: WebhooksOptions; clock?: () => Date }) {
    this.#db = deps.db;
    this.#lane = deps.lane ?? new WebhookDbLane(deps.db, { pooled: false });
    this.#box = deps.box;
    this.#safeFetch = deps.safeFetch;
    this.#logger = deps.logger;
    this.#options = deps.options;
    this.#clock = deps.clock ?? (() => new Date());
    const o = deps.options;
    this.#scheduler = new SendScheduler({
      perEndpoint: o.perEndpointConcurrency,
      perHost: o.perHostConcurrency,
      slowAfterMs: o.slowAfterMs,
      timeoutMs: o.timeoutMs,
      breakerFailures: o.breakerFailures,
      breakerHoldMs: o.breakerHoldMs,
      breakerMaxHoldMs: o.breakerMaxHoldMs,
      onHold: (endpointId, hold) =>
        this.#logger.warn('webhook endpoint failing: its deliveries are held, then one is tried', { endpointId, consecutiveFailures: hold.failures, holdMs: hold.holdMs }),
    });
  }

  /** The queue that carries attempts (defined by the module, whose processor calls `process`). */
  useQueue(queue: Queue<DeliveryJob>): void {
    this.#queue = queue;
  }

  /** Queues attempt `attempt` of one delivery after `delayMs`. */
  async enqueue(deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    if (!this.#queue) throw new Error('the webhook queue is not defined');
    await this.#queue.add({ deliveryId, attempt }, { jobId: deliveryJobId(deliveryId, attempt), ...(delayMs > 0 ? { delayMs } : {}) });
  }

  /**
   * Queues the first attempt of new deliveries, `batchSize` per job. No job id: a batch is
   * queued once by the fan-out that created its deliveries, and whatever it loses the sweeper
   * queues again one by one (a claim is exclusive, so a delivery in two jobs is sent once).
   */
  async enqueueFirst(deliveryIds: string[]): Promise<void> {
    await this.#enqueueBatches(deliveryIds, 1, 0);
  }

  async #enqueueBatches(deliveryIds: string[], attempt: number, delayMs: number): Promise<void> {
    if (!this.#queue) throw new Error('the webhook queue is not defined');
    const size = Math.max(1, this.#options.batchSize);
    const adds: Array<Promise<void>> = [];
    for (let i = 0; i < deliveryIds.length; i += size) {
      adds.push(this.#queue.add({ deliveryIds: deliveryIds.slice(i, i + size), attempt }, delayMs > 0 ? { delayMs } : {}));
    }
    const failed = (await Promise.allSettled(adds)).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /** Jobs waiting to start now (none: every due delivery without a running attempt has lost its job). */
  async waitingJobs(): Promise<number> {
    if (!this.#queue) return 0;
    return (await this.#queue.counts()).waiting;
  }

  async removeJob(deliveryId: string, attempt: number): Promise<void> {
    await this.#queue?.remove(deliveryJobId(deliveryId, attempt));
  }

  /**
   * Runs a job. Never throws: a job that finds nothing to do (already sent, cancelled, not yet
   * due) simply ends, and the database rows say what happens next. Returns once every attempt
   * it claimed is recorded; with `release`, which the queue's processor asks for, as soon as the
   * job need not hold its queue slot any more: its attempts have ended, or are sends running
   * for `slowAfterMs` already, or wait for a turn at an endpoint not known to be fast. Those
   * are recorded when they end (`drain` waits for that). A slow endpoint thus never holds the
   * job slots other endpoints' deliveries need.
   */
  async process(job: DeliveryJob, options: { release?: boolean } = {}): Promise<void> {
    const ids = 'deliveryIds' in job ? job.deliveryIds : [job.deliveryId];
    try {
      // Backpressure: no more claims while this process already has `concurrency` sends in flight.
      await this.#scheduler.whenBelow(this.#options.concurrency);
      const { claimed, deferred } = await this.#claimScheduled(ids, job.attempt, this.#clock());
      await this.#requeue(deferred);
      if (claimed.length > 0) await this.#attempt(claimed, 'scheduled', options.release === true);
    } catch (err) {
      // The rows are unchanged or hold a lease: the sweeper brings the deliveries back.
      this.#logger.warn('webhook attempt aborted', { deliveryIds: ids.slice(0, 10), deliveries: ids.length, attempt: job.attempt, error: (err as Error).message });
    }
  }

  /** Sends a delivery now, whatever its schedule or status (manual redelivery, the test ping). */
  async sendNow(deliveryId: string): Promise<void> {
    const claimed = await this.#claimManual(deliveryId, this.#clock());
    if (claimed) await this.#attempt([claimed], 'manual', false);
  }

  /** Waits until the outcomes of sends that jobs stopped waiting for are recorded (at shutdown, after the queue has stopped). */
  async drain(): Promise<void> {
    while (this.#late.size > 0) await Promise.all(this.#late);
  }

  /**
   * Takes scheduled attempt `attempt` of those deliveries that are still waiting for it (counter
   * up, lease set) and reads what sending needs, in one statement. SKIP LOCKED: a row another
   * claimer or a deletion holds is theirs; this job never waits for it (and never deadlocks).
   *
   * Of an endpoint the scheduler names busy or held (`claimCaps`), only the first `cap` (oldest
   * first) are claimed; the statement puts the others off (`next_attempt_at`) until the cap's
   * `until`, and they are queued again for then. A batch of one slow endpoint's deliveries thus
   * never waits in this process ahead of other endpoints' deliveries.
   */
  async #claimScheduled(ids: string[], attempt: number, now: Date): Promise<{ claimed: Claimed[]; deferred: PutOff[] }> {
    if (ids.length === 0) return { claimed: [], deferred: [] };
    const caps: Record<string, { cap: number; until: string }> = {};
    // Only caps that can bind: a cap as large as the batch changes nothing.
    for (const [endpointId, c] of this.#scheduler.claimCaps()) if (c.cap < ids.length) caps[endpointId] = capParam(c);
    const claim = sql<Claimed & { deferred: Array<[string, string, string]> }>`
      with caps as (
        select key as endpoint_id, (value ->> 'cap')::int as cap, (value ->> 'until')::timestamptz as until
        from jsonb_each(${JSON.stringify(caps)}::jsonb)
      ),
      due as (
        select id, endpoint_id, last_attempt_at from webhook_deliveries
        where id in (${sql.join(ids)})
          and status = 'pending'
          and attempts = ${attempt - 1}
          and next_attempt_at <= ${new Date(now.getTime() + EARLY_SLACK_MS)}
        for update skip locked
      ),
      ranked as (
        select due.id, due.last_attempt_at, caps.until,
               caps.cap is null or row_number() over (partition by due.endpoint_id order by due.id) <= caps.cap as fits
        from due left join caps on caps.endpoint_id = due.endpoint_id
      ),
      put_off as (
        update webhook_deliveries as d set next_attempt_at = r.until
        from ranked as r
        where d.id = r.id and not r.fits
        returning d.id, d.endpoint_id, d.next_attempt_at
      ),
      claimed as (
        update webhook_deliveries as d
        set attempts = ${attempt}, next_attempt_at = ${new Date(now.getTime() + this.#options.leaseMs)}, last_attempt_at = ${now}
        from ranked as r, webhook_endpoints as e, events as ev
        where d.id = r.id and r.fits and e.id = d.endpoint_id and ev.id = d.event_id
        returning d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, r.last_attempt_at as previous_attempt_at,
                  e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, e.deleted_at, e.disabled_at, e.failing_since, ev.payload
      )
      -- One row per claimed attempt (or one row of nulls), each carrying the list of those put off.
      select c.*, p.deferred
      from (select coalesce(jsonb_agg(jsonb_build_array(id, endpoint_id, next_attempt_at)), '[]'::jsonb) as deferred from put_off) as p
      left join claimed as c on true`;
    const { rows } = await this.#lane.run((db) => claim.execute(db));
    const deferred = (rows[0]?.deferred ?? []).map(([id, endpointId, until]) => ({ id, endpointId, attempt, until: new Date(until) }));
    return { claimed: rows.filter((r) => r.id !== null), deferred };
  }

  /** Manual: the next attempt at once, whatever the schedule; a pending job for an earlier number then finds nothing. */
  async #claimManual(deliveryId: string, now: Date): Promise<Claimed | undefined> {
    return this.#db
      .updateTable('webhook_deliveries as d')
      .from(['webhook_endpoints as e', 'events as ev'])
      .set({ next_attempt_at: new Date(now.getTime() + this.#options.leaseMs), last_attempt_at: now, status: 'pending', attempts: sql<number>`d.attempts + 1`, delivered_at: null })
      .whereRef('e.id', '=', 'd.endpoint_id')
      .whereRef('ev.id', '=', 'd.event_id')
      .where('d.id', '=', deliveryId)
      .where('d.status', '<>', 'cancelled')
      .returning([
        'd.id',
        'd.endpoint_id',
        'd.event_id',
        'd.event_type',
        'd.attempts',
        // Never returned unsent: a manual attempt waits for its turn.
        sql<Date | null>`null::timestamptz`.as('previous_attempt_at'),
        'e.url',
        'e.secret_sealed',
        'e.previous_secret_sealed',
        'e.previous_secret_expires_at',
        'e.deleted_at',
        'e.disabled_at',
        'e.failing_since',
        'ev.payload',
      ])
      .executeTakeFirst();
  }

  /**
   * Queues again deliveries put off or returned unsent, for the attempt they were waiting for:
   * a job per endpoint, due when the last of them is (their times differ by a little jitter).
   */
  async #requeue(putOff: PutOff[]): Promise<void> {
    if (putOff.length === 0) return;
    const groups = new Map<string, { attempt: number; at: number; ids: string[] }>();
    for (const p of putOff) {
      const key = `${p.attempt}:${p.endpointId}`;
      const g = groups.get(key) ?? { attempt: p.attempt, at: 0, ids: [] };
      g.at = Math.max(g.at, p.until.getTime());
      g.ids.push(p.id);
      groups.set(key, g);
    }
    const now = this.#clock().getTime();
    await Promise.all(
      [...groups.values()].map(({ attempt, at, ids }) =>
        this.#enqueueBatches(ids, attempt, Math.max(0, at - now)).catch((err: Error) =>
          this.#logger.warn('webhook deliveries put off but not queued; the sweeper will queue them', { deliveries: ids.length, error: err.message }),
        ),
      ),
    );
  }

  /** The secrets that sign an attempt started at `at`: the current one, and the previous one until it expires. */
  #secrets(c: Claimed, at: Date): string[] {
    const current = this.#box.openRemembered(c.secret_sealed);
    return previousSecretSigns(c, at) ? [current, this.#box.openRemembered(c.previous_secret_sealed)] : [current];
  }

  /**
   * Sends every claimed attempt as its turn comes, then records the outcomes together. With
   * `release`, what has ended is recorded once no attempt holds the job any more (see
   * `process`), and the rest in the background when it ends.
   */
  async #attempt(claimed: Claimed[], trigger: AttemptTrigger, release: boolean): Promise<void> {
    // The body of an event is the same for each of its endpoints: built once per batch.
    const bodies = new Map<string, { event: EventEnvelope; body: string }>();
    const runs = claimed.map((c) => {
      const run: { done?: Result } = {};
      let letGo: () => void = () => undefined;
      const letGone = new Promise<void>((resolve) => (letGo = resolve));
      const result = this.#sendOne(c, trigger, bodies, release ? () => letGo() : undefined).then((r) => (run.done = r));
      return { run, result, ready: Promise.race([result, letGone]) };
    });
    await Promise.all(runs.map((r) => r.ready));
    const ended = runs.flatMap((r) => (r.run.done ? [r.run.done] : []));
    const running = runs.filter((r) => !r.run.done).map((r) => r.result);
    if (running.length > 0) {
      const late: Promise<void> = Promise.all(running)
        .then((results) => this.#record(results, trigger))
        .catch((err: Error) => void this.#logger.warn('webhook outcomes not recorded; the sweeper will retry the attempts', { deliveries: running.length, error: err.message }))
        .finally(() => this.#late.delete(late));
      this.#late.add(late);
    }
    await this.#record(ended, trigger);
  }

  /**
   * One attempt: closed, returned unsent (no turn came), or sent in its turn. Calls `letGo`
   * when its job need not wait for it: it waits for a turn at an endpoint not known to be
   * fast, or its send has run for `slowAfterMs`.
   */
  async #sendOne(c: Claimed, trigger: AttemptTrigger, bodies: Map<string, { event: EventEnvelope; body: string }>, letGo?: () => void): Promise<Result> {
    if (c.deleted_at) return { claimed: c, close: { status: 'cancelled', reason: 'endpoint deleted' } };
    if (c.disabled_at && trigger === 'scheduled') return { claimed: c, close: { status: 'failed', reason: 'endpoint disabled' } };
    // Waiting for a turn happens here, off the clock of the receiver's timeout.
    const turn = await this.#scheduler.acquire(c.endpoint_id, hostOf(c.url), {
      manual: trigger === 'manual',
      onWait: () => (letGo && !this.#scheduler.isFast(c.endpoint_id) ? letGo() : undefined),
    });
    if (!turn) return { claimed: c, returned: { at: this.#scheduler.retryAt(c.endpoint_id) } };
    const slowTimer = letGo ? setTimeout(letGo, this.#options.slowAfterMs) : undefined;
    const startedAt = this.#clock();
    let report: SendReport | undefined;
    try {
      let built = bodies.get(c.event_id);
      if (!built) {
        const event = envelopeOf(c.payload);
        built = { event, body: JSON.stringify(event) };
        bodies.set(c.event_id, built);
      }
      const { event, body } = built;
      const headers = signedHeaders(
        this.#secrets(c, startedAt),
        { eventId: event.id, eventType: event.type, deliveryId: c.id, attempt: c.attempts, body },
        this.#options.userAgent,
        startedAt,
      );
      const outcome = await this.#send(c.url, headers, body, startedAt);
      report = { succeeded: outcome.succeeded, latencyMs: outcome.latencyMs };
      return { claimed: c, outcome };
    } catch (err) {
      // Not the receiver's fault (e.g. a secret that no longer opens), but an attempt all the same: it counts, so it cannot loop.
      report = { succeeded: false, latencyMs: 0, internal: true };
      return { claimed: c, outcome: { startedAt, statusCode: null, latencyMs: 0, succeeded: false, error: `internal: ${(err as Error).message}` } };
    } finally {
      clearTimeout(slowTimer);
      turn.release(report);
    }
  }

  async #send(url: string, headers: Record<string, string>, body: string, startedAt: Date): Promise<Outcome> {
    const t0 = performance.now();
    const latency = (): number => Math.round(performance.now() - t0);
    try {
      const res = await this.#safeFetch.request(url, { method: 'POST', headers, body, timeoutMs: this.#options.timeoutMs, maxRedirects: 0, maxBodyBytes: 512 });
      const succeeded = res.status >= 200 && res.status < 300;
      return { startedAt, statusCode: res.status, latencyMs: latency(), succeeded, error: succeeded ? null : describeStatus(res.status, res.headers.location, res.body) };
    } catch (err) {
      const error =
        err instanceof SafeFetchError
          ? err.code === 'timeout'
            ? `timeout: no answer within ${this.#options.timeoutMs} ms`
            : `${err.code}: ${err.message}`
          : `error: ${(err as Error).message}`;
      return { startedAt, statusCode: null, latencyMs: latency(), succeeded: false, error };
    }
  }

  /**
   * Stores the outcomes, schedules next attempts or ends the deliveries, in one statement
   * (data-modifying CTEs run whether or not they are read): each attempt's row and its
   * delivery's new state together. Then the endpoints' failure streaks and the retries' jobs.
   */
  async #record(results: Result[], trigger: AttemptTrigger): Promise<void> {
    if (results.length === 0) return;
    const now = this.#clock();
    const retries: Array<{ id: string; attempt: number; delay: number }> = [];
    const returned: PutOff[] = [];
    const none = { closed: false, returned: false, previous_attempt_at: null, delivered_at: null, status_code: null, latency_ms: null, error: null, trigger, started_at: null, succeeded: false };
    const rows = results.map((r) => {
      const n = r.claimed.attempts;
      if (r.close) return { ...none, id: r.claimed.id, attempt: n, closed: true, status: r.close.status, next_attempt_at: null, error: r.close.reason };
      if (r.returned) {
        returned.push({ id: r.claimed.id, endpointId: r.claimed.endpoint_id, attempt: n, until: r.returned.at });
        return { ...none, id: r.claimed.id, attempt: n, returned: true, status: 'pending', next_attempt_at: r.returned.at.toISOString(), previous_attempt_at: r.claimed.previous_attempt_at?.toISOString() ?? null };
      }
      const { outcome } = r;
      const delay = outcome.succeeded || r.claimed.event_type === PING_EVENT ? null : nextRetryDelay(this.#options.retryScheduleMs, n, this.#options.jitterRatio);
      if (delay !== null) retries.push({ id: r.claimed.id, attempt: n + 1, delay });
      return {
        ...none,
        id: r.claimed.id,
        attempt: n,
        status: outcome.succeeded ? 'delivered' : delay === null ? 'failed' : 'pending',
        next_attempt_at: delay === null ? null : new Date(now.getTime() + delay).toISOString(),
        delivered_at: outcome.succeeded ? now.toISOString() : null,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        started_at: outcome.startedAt.toISOString(),
        succeeded: outcome.succeeded,
      };
    });
    // A closed delivery keeps its last outcome and gets no attempt row; a sent one must still be
    // pending at the claimed attempt (not cancelled by a deletion, not taken over after a lease ran out).
    // A returned one was never sent: its claim is undone (the attempt number and the time of the
    // last attempt as they were, nothing else touched), so its history has no gap; it is due again
    // at `next_attempt_at` unless a deletion cancelled it meanwhile.
    const write = sql<{ id: string; status: string }>`
      with v as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
          id text, attempt int, closed boolean, returned boolean, status text, next_attempt_at timestamptz, previous_attempt_at timestamptz,
          delivered_at timestamptz, status_code int, latency_ms int, error text, trigger text, started_at timestamptz, succeeded boolean)
      ),
      -- Row locks in id order, as the endpoint deletion takes them: the two never deadlock.
      locked as (
        select id from webhook_deliveries where id in (select id from v) order by id for update
      ),
      updated as (
        update webhook_deliveries as d
        set status = case when v.returned then d.status else v.status end,
            attempts = case when v.returned then v.attempt - 1 else d.attempts end,
            next_attempt_at = case when v.returned and d.status <> 'pending' then d.next_attempt_at else v.next_attempt_at end,
            last_attempt_at = case when v.returned then v.previous_attempt_at else d.last_attempt_at end,
            delivered_at = case when v.closed or v.returned then d.delivered_at else v.delivered_at end,
            last_status_code = case when v.closed or v.returned then d.last_status_code else v.status_code end,
            last_latency_ms = case when v.closed or v.returned then d.last_latency_ms else v.latency_ms end,
            last_error = case when v.returned then d.last_error else v.error end
        from v, locked
        where d.id = v.id and locked.id = v.id and d.attempts = v.attempt and (v.closed or v.returned or d.status = 'pending')
        returning d.id, d.status
      ),
      recorded as (
        insert into webhook_attempts (delivery_id, attempt, trigger, started_at, status_code, latency_ms, error, succeeded)
        select id, attempt, trigger, started_at, status_code, latency_ms, error, succeeded from v where not v.closed and not v.returned
        on conflict (delivery_id, attempt) do nothing
        returning delivery_id
      )
      select id, status from updated`;
    const { rows: updated } = await this.#lane.run((db) => write.execute(db));
    await this.#trackStreaks(results);
    const scheduled = new Set(updated.filter((u) => u.status === 'pending').map((u) => u.id));
    await Promise.all([
      // A returned attempt keeps its number: its job asks for it again.
      this.#requeue(returned.filter((r) => scheduled.has(r.id))),
      ...retries
        .filter((r) => scheduled.has(r.id))
        .map((r) =>
          this.enqueue(r.id, r.attempt, r.delay).catch((err: Error) =>
            this.#logger.warn('webhook retry not queued; the sweeper will queue it', { deliveryId: r.id, error: err.message }),
          ),
        ),
    ]);
  }

  /**
   * An endpoint's failure streak starts at its first failure after a success and ends with any
   * success. Only changes are written (against the streak each claim read), so a busy
   * endpoint's row is rarely touched; one statement per changed endpoint, in parallel.
   */
  async #trackStreaks(results: Result[]): Promise<void> {
    const byEndpoint = new Map<string, { known: Date | null; outcomes: Outcome[] }>();
    for (const r of results) {
      if (!r.outcome) continue;
      const entry = byEndpoint.get(r.claimed.endpoint_id) ?? { known: r.claimed.failing_since, outcomes: [] };
      entry.outcomes.push(r.outcome);
      byEndpoint.set(r.claimed.endpoint_id, entry);
    }
    const writes: Array<Promise<unknown>> = [];
    for (const [endpointId, { known, outcomes }] of byEndpoint) {
      // In the order the attempts ended: the last success, and the first failure after it.
      const ended = outcomes.slice().sort((a, b) => a.startedAt.getTime() + a.latencyMs - (b.startedAt.getTime() + b.latencyMs));
      let lastSuccess = -1;
      ended.forEach((o, i) => (o.succeeded ? (lastSuccess = i) : undefined));
      const firstFailureAfter = ended[lastSuccess + 1];
      const update = this.#db.updateTable('webhook_endpoints').where('id', '=', endpointId);
      if (!firstFailureAfter) {
        if (known !== null) writes.push(update.set({ failing_since: null }).execute());
      } else if (lastSuccess >= 0) {
        // A success then failures: a new streak from the first of those failures.
        writes.push(update.set({ failing_since: firstFailureAfter.startedAt }).execute());
      } else if (known === null) {
        writes.push(update.set({ failing_since: firstFailureAfter.startedAt }).where('failing_since', 'is', null).execute());
      }
    }
    await Promise.all(writes);
  }
}

/** Host and port of a URL (the outbound agent's unit); the raw text when it does not parse (safe-fetch then says why). */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

/** A claim cap as the claim statement reads it. */
function capParam(c: ClaimCap): { cap: number; until: string } {
  return { cap: c.cap, until: c.until.toISOString() };
}

/** The event body in its documented field order (the stored jsonb does not keep key order). */
export function envelopeOf(payload: Record<string, unknown>): EventEnvelope {
  return {
    id: String(payload.id),
    type: String(payload.type),
    createdAt: String(payload.createdAt),
    testMode: payload.testMode === true,
    data: (payload.data ?? {}) as Record<string, unknown>,
  };
}

/** A non-2xx answer in a line: the status, where a redirect pointed (not followed), the start of the body. */
function describeStatus(status: number, location: string | string[] | undefined, body: Buffer): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed${typeof location === 'string' ? ` (Location: ${location.slice(0, 200)})` : ''}`;
  const text = body.toString('utf8').replace(/[^\x20-\x7e]+/g, ' ').trim().slice(0, 200);
  return `HTTP ${status}${text ? `: ${text}` : ''}`;
}
