import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Queue } from '../../infra/queue/job-queue.ts';
import type { SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';
import { envelopeOf, type EventEnvelope } from '../events/outbox.ts';
import type { Db } from '../tables.ts';
import { sendAttempt } from './webhook-attempt-sender.ts';
import { claimManual, claimScheduled, type Claimed, type PutOff } from './webhook-claims.ts';
import { WebhookDbLane } from './webhook-db-lane.ts';
import { trackFailureStreaks } from './webhook-failure-streaks.ts';
import { recordOutcomes, type Result } from './webhook-outcome-recorder.ts';
import { SendScheduler, type SendReport } from './webhook-send-scheduler.ts';
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
 *
 * This class runs jobs; each step is a file of its own: the claim (`webhook-claims.ts`), the
 * send (`webhook-attempt-sender.ts`), the record (`webhook-outcome-recorder.ts`) and the
 * endpoint's failure streak that the circuit's last resort, disabling, reads
 * (`webhook-failure-streaks.ts`).
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

  constructor(deps: {
    db: Db;
    lane?: WebhookDbLane;
    box: SecretBox;
    safeFetch: SafeFetch;
    logger: Logger;
    options: WebhooksOptions;
    clock?: () => Date;
  }) {
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
        this.#logger.warn('webhook endpoint failing: its deliveries are held, then one is tried', {
          endpointId,
          consecutiveFailures: hold.failures,
          holdMs: hold.holdMs,
        }),
    });
  }

  /** The queue that carries attempts (defined by the module, whose processor calls `process`). */
  useQueue(queue: Queue<DeliveryJob>): void {
    this.#queue = queue;
  }

  /** Queues attempt `attempt` of one delivery after `delayMs`. */
  async enqueue(deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    if (!this.#queue) throw new Error('the webhook queue is not defined');
    await this.#queue.add(
      { deliveryId, attempt },
      { jobId: deliveryJobId(deliveryId, attempt), ...(delayMs > 0 ? { delayMs } : {}) },
    );
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
      adds.push(
        this.#queue.add({ deliveryIds: deliveryIds.slice(i, i + size), attempt }, delayMs > 0 ? { delayMs } : {}),
      );
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
      const { claimed, deferred } = await claimScheduled(
        { lane: this.#lane, leaseMs: this.#options.leaseMs },
        { ids, attempt: job.attempt, now: this.#clock(), claimCaps: this.#scheduler.claimCaps() },
      );
      await this.#requeue(deferred);
      if (claimed.length > 0) await this.#attempt(claimed, 'scheduled', options.release === true);
    } catch (err) {
      // The rows are unchanged or hold a lease: the sweeper brings the deliveries back.
      this.#logger.warn('webhook attempt aborted', {
        deliveryIds: ids.slice(0, 10),
        deliveries: ids.length,
        attempt: job.attempt,
        error: (err as Error).message,
      });
    }
  }

  /** Sends a delivery now, whatever its schedule or status (manual redelivery, the test ping). */
  async sendNow(deliveryId: string): Promise<void> {
    const claimed = await claimManual({ db: this.#db, leaseMs: this.#options.leaseMs }, deliveryId, this.#clock());
    if (claimed) await this.#attempt([claimed], 'manual', false);
  }

  /**
   * Waits until the outcomes of sends that jobs stopped waiting for are recorded (at shutdown, after the queue has
   * stopped).
   */
  async drain(): Promise<void> {
    while (this.#late.size > 0) await Promise.all(this.#late);
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
          this.#logger.warn('webhook deliveries put off but not queued; the sweeper will queue them', {
            deliveries: ids.length,
            error: err.message,
          }),
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
        .catch(
          (err: Error) =>
            void this.#logger.warn('webhook outcomes not recorded; the sweeper will retry the attempts', {
              deliveries: running.length,
              error: err.message,
            }),
        )
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
  async #sendOne(
    c: Claimed,
    trigger: AttemptTrigger,
    bodies: Map<string, { event: EventEnvelope; body: string }>,
    letGo?: () => void,
  ): Promise<Result> {
    if (c.deleted_at) return { claimed: c, close: { status: 'cancelled', reason: 'endpoint deleted' } };
    if (c.disabled_at && trigger === 'scheduled')
      return { claimed: c, close: { status: 'failed', reason: 'endpoint disabled' } };
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
        const event = envelopeOf(JSON.parse(c.payload) as Record<string, unknown>);
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
      const outcome = await sendAttempt(
        { safeFetch: this.#safeFetch, timeoutMs: this.#options.timeoutMs },
        { url: c.url, headers, body, startedAt },
      );
      report = { succeeded: outcome.succeeded, latencyMs: outcome.latencyMs };
      return { claimed: c, outcome };
    } catch (err) {
      // Not the receiver's fault (e.g. a secret that no longer opens), but an attempt all the same: it counts, so it
      // cannot loop.
      report = { succeeded: false, latencyMs: 0, internal: true };
      return {
        claimed: c,
        outcome: {
          startedAt,
          statusCode: null,
          latencyMs: 0,
          succeeded: false,
          error: `internal: ${(err as Error).message}`,
        },
      };
    } finally {
      clearTimeout(slowTimer);
      turn.release(report);
    }
  }

  /**
   * Records the outcomes (`recordOutcomes`: one statement), then the endpoints' failure streaks,
   * then queues the retries and the attempts returned unsent.
   */
  async #record(results: Result[], trigger: AttemptTrigger): Promise<void> {
    if (results.length === 0) return;
    const { retries, returned } = await recordOutcomes(
      { lane: this.#lane, retryScheduleMs: this.#options.retryScheduleMs, jitterRatio: this.#options.jitterRatio },
      results,
      trigger,
      this.#clock(),
    );
    await trackFailureStreaks(
      this.#db,
      results.flatMap((r) =>
        r.outcome
          ? [{ endpointId: r.claimed.endpoint_id, failingSince: r.claimed.failing_since, outcome: r.outcome }]
          : [],
      ),
    );
    await Promise.all([
      // A returned attempt keeps its number: its job asks for it again.
      this.#requeue(returned),
      ...retries.map((r) =>
        this.enqueue(r.id, r.attempt, r.delay).catch((err: Error) =>
          this.#logger.warn('webhook retry not queued; the sweeper will queue it', {
            deliveryId: r.id,
            error: err.message,
          }),
        ),
      ),
    ]);
  }
}

/**
 * Host and port of a URL (the outbound agent's unit); the raw text when it does not parse (safe-fetch then says why).
 */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}
