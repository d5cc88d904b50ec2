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
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  deleted_at: Date | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  payload: Record<string, unknown>;
}

/** What one claimed attempt ended with: sent (an outcome), or closed without sending. */
type Result = { claimed: Claimed; outcome: Outcome; close?: undefined } | { claimed: Claimed; close: { status: 'cancelled' | 'failed'; reason: string }; outcome?: undefined };

/**
 * Sends attempts of deliveries. An attempt is first claimed in the database (the attempt
 * counter moves on and `next_attempt_at` becomes a lease), so two processes never send the
 * same attempt, and a process that dies mid-send leaves a lease that runs out: the sweeper
 * then re-enqueues the delivery and the next attempt carries the same event. A job claims
 * its whole batch in one statement, sends it at once, and records every outcome in one
 * statement: a few round trips per batch instead of a few per delivery.
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
  /** Sends in flight per receiver host, across the jobs of this process. */
  readonly #hosts: HostGate;
  #queue: Queue<DeliveryJob> | undefined;

  constructor(deps: { db: Db; lane?: WebhookDbLane; box: SecretBox; safeFetch: SafeFetch; logger: Logger; options: WebhooksOptions; clock?: () => Date }) {
    this.#db = deps.db;
    this.#lane = deps.lane ?? new WebhookDbLane(deps.db, { pooled: false });
    this.#box = deps.box;
    this.#safeFetch = deps.safeFetch;
    this.#logger = deps.logger;
    this.#options = deps.options;
    this.#clock = deps.clock ?? (() => new Date());
    this.#hosts = new HostGate(deps.options.perHostConcurrency);
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
    if (!this.#queue) throw new Error('the webhook queue is not defined');
    const size = Math.max(1, this.#options.batchSize);
    const adds: Array<Promise<void>> = [];
    for (let i = 0; i < deliveryIds.length; i += size) adds.push(this.#queue.add({ deliveryIds: deliveryIds.slice(i, i + size), attempt: 1 }));
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
   * The queue's processor. Never throws: a job that finds nothing to do (already sent,
   * cancelled, not yet due) simply ends, and the database rows say what happens next.
   */
  async process(job: DeliveryJob): Promise<void> {
    const ids = 'deliveryIds' in job ? job.deliveryIds : [job.deliveryId];
    try {
      const claimed = await this.#claimScheduled(ids, job.attempt, this.#clock());
      if (claimed.length > 0) await this.#attempt(claimed, 'scheduled');
    } catch (err) {
      // The rows are unchanged or hold a lease: the sweeper brings the deliveries back.
      this.#logger.warn('webhook attempt aborted', { deliveryIds: ids.slice(0, 10), deliveries: ids.length, attempt: job.attempt, error: (err as Error).message });
    }
  }

  /** Sends a delivery now, whatever its schedule or status (manual redelivery, the test ping). */
  async sendNow(deliveryId: string): Promise<void> {
    const claimed = await this.#claimManual(deliveryId, this.#clock());
    if (claimed) await this.#attempt([claimed], 'manual');
  }

  /**
   * Takes scheduled attempt `attempt` of those deliveries that are still waiting for it (counter
   * up, lease set) and reads what sending needs, in one statement. SKIP LOCKED: a row another
   * claimer or a deletion holds is theirs; this job never waits for it (and never deadlocks).
   */
  async #claimScheduled(ids: string[], attempt: number, now: Date): Promise<Claimed[]> {
    if (ids.length === 0) return [];
    const claim = sql<Claimed>`
      with due as (
        select id from webhook_deliveries
        where id in (${sql.join(ids)})
          and status = 'pending'
          and attempts = ${attempt - 1}
          and next_attempt_at <= ${new Date(now.getTime() + EARLY_SLACK_MS)}
        for update skip locked
      )
      update webhook_deliveries as d
      set attempts = ${attempt}, next_attempt_at = ${new Date(now.getTime() + this.#options.leaseMs)}, last_attempt_at = ${now}
      from due, webhook_endpoints as e, events as ev
      where d.id = due.id and e.id = d.endpoint_id and ev.id = d.event_id
      returning d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, e.deleted_at, e.disabled_at, e.failing_since, ev.payload`;
    return (await this.#lane.run((db) => claim.execute(db))).rows;
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
      .returning(['d.id', 'd.endpoint_id', 'd.event_id', 'd.event_type', 'd.attempts', 'e.url', 'e.secret_sealed', 'e.previous_secret_sealed', 'e.previous_secret_expires_at', 'e.deleted_at', 'e.disabled_at', 'e.failing_since', 'ev.payload'])
      .executeTakeFirst();
  }

  /** The secrets that sign an attempt started at `at`: the current one, and the previous one until it expires. */
  #secrets(c: Claimed, at: Date): string[] {
    const current = this.#box.openRemembered(c.secret_sealed);
    return previousSecretSigns(c, at) ? [current, this.#box.openRemembered(c.previous_secret_sealed)] : [current];
  }

  /** Sends every claimed attempt at once, then records all outcomes together. */
  async #attempt(claimed: Claimed[], trigger: AttemptTrigger): Promise<void> {
    // The body of an event is the same for each of its endpoints: built once per batch.
    const bodies = new Map<string, { event: EventEnvelope; body: string }>();
    const results = await Promise.all(
      claimed.map(async (c): Promise<Result> => {
        if (c.deleted_at) return { claimed: c, close: { status: 'cancelled', reason: 'endpoint deleted' } };
        if (c.disabled_at && trigger === 'scheduled') return { claimed: c, close: { status: 'failed', reason: 'endpoint disabled' } };
        // Waiting for a turn at the receiver's host happens here, off the clock of its 10 s timeout.
        const release = await this.#hosts.acquire(hostOf(c.url));
        const startedAt = this.#clock();
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
          return { claimed: c, outcome: await this.#send(c.url, headers, body, startedAt) };
        } catch (err) {
          // Not the receiver's fault (e.g. a secret that no longer opens), but an attempt all the same: it counts, so it cannot loop.
          return { claimed: c, outcome: { startedAt, statusCode: null, latencyMs: 0, succeeded: false, error: `internal: ${(err as Error).message}` } };
        } finally {
          release();
        }
      }),
    );
    await this.#record(results, trigger);
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
    const rows = results.map((r) => {
      const n = r.claimed.attempts;
      if (r.close) {
        return { id: r.claimed.id, attempt: n, closed: true, status: r.close.status, next_attempt_at: null, delivered_at: null, status_code: null, latency_ms: null, error: r.close.reason, trigger, started_at: null, succeeded: false };
      }
      const { outcome } = r;
      const delay = outcome.succeeded || r.claimed.event_type === PING_EVENT ? null : nextRetryDelay(this.#options.retryScheduleMs, n, this.#options.jitterRatio);
      if (delay !== null) retries.push({ id: r.claimed.id, attempt: n + 1, delay });
      return {
        id: r.claimed.id,
        attempt: n,
        closed: false,
        status: outcome.succeeded ? 'delivered' : delay === null ? 'failed' : 'pending',
        next_attempt_at: delay === null ? null : new Date(now.getTime() + delay).toISOString(),
        delivered_at: outcome.succeeded ? now.toISOString() : null,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        error: outcome.error,
        trigger,
        started_at: outcome.startedAt.toISOString(),
        succeeded: outcome.succeeded,
      };
    });
    // A closed delivery keeps its last outcome and gets no attempt row; a sent one must still be
    // pending at the claimed attempt (not cancelled by a deletion, not taken over after a lease ran out).
    const write = sql<{ id: string }>`
      with v as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
          id text, attempt int, closed boolean, status text, next_attempt_at timestamptz, delivered_at timestamptz,
          status_code int, latency_ms int, error text, trigger text, started_at timestamptz, succeeded boolean)
      ),
      -- Row locks in id order, as the endpoint deletion takes them: the two never deadlock.
      locked as (
        select id from webhook_deliveries where id in (select id from v) order by id for update
      ),
      updated as (
        update webhook_deliveries as d
        set status = v.status,
            next_attempt_at = v.next_attempt_at,
            delivered_at = case when v.closed then d.delivered_at else v.delivered_at end,
            last_status_code = case when v.closed then d.last_status_code else v.status_code end,
            last_latency_ms = case when v.closed then d.last_latency_ms else v.latency_ms end,
            last_error = v.error
        from v, locked
        where d.id = v.id and locked.id = v.id and d.attempts = v.attempt and (v.closed or d.status = 'pending')
        returning d.id
      ),
      recorded as (
        insert into webhook_attempts (delivery_id, attempt, trigger, started_at, status_code, latency_ms, error, succeeded)
        select id, attempt, trigger, started_at, status_code, latency_ms, error, succeeded from v where not v.closed
        on conflict (delivery_id, attempt) do nothing
        returning delivery_id
      )
      select id from updated`;
    const { rows: updated } = await this.#lane.run((db) => write.execute(db));
    await this.#trackStreaks(results);
    if (retries.length === 0) return;
    const scheduled = new Set(updated.map((u) => u.id));
    await Promise.all(
      retries
        .filter((r) => scheduled.has(r.id))
        .map((r) =>
          this.enqueue(r.id, r.attempt, r.delay).catch((err: Error) =>
            this.#logger.warn('webhook retry not queued; the sweeper will queue it', { deliveryId: r.id, error: err.message }),
          ),
        ),
    );
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

/** At most `limit` holders per key at once; the others wait in line. */
class HostGate {
  readonly #limit: number;
  readonly #active = new Map<string, number>();
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Resolves with the release function once the key has a free place. */
  async acquire(key: string): Promise<() => void> {
    const active = this.#active.get(key) ?? 0;
    if (active < this.#limit) this.#active.set(key, active + 1);
    else {
      // The releaser hands its place over directly: the count stays as it is.
      await new Promise<void>((resolve) => {
        const line = this.#waiting.get(key) ?? [];
        line.push(resolve);
        this.#waiting.set(key, line);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const line = this.#waiting.get(key);
      const next = line?.shift();
      if (line && line.length === 0) this.#waiting.delete(key);
      if (next) next();
      else {
        const n = (this.#active.get(key) ?? 1) - 1;
        if (n <= 0) this.#active.delete(key);
        else this.#active.set(key, n);
      }
    };
  }
}

/** The event body in its documented field order (the stored jsonb does not keep key order). */
function envelopeOf(payload: Record<string, unknown>): EventEnvelope {
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
