import { sql } from 'kysely';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import type { Queue } from '../../infra/queue/job-queue.ts';
import { SafeFetchError, type SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';
import type { EventEnvelope } from '../events/outbox.ts';
import type { Db } from '../tables.ts';
import { PING_EVENT } from './webhook-event-types.ts';
import { nextRetryDelay } from './webhook-retry-schedule.ts';
import { signedHeaders } from './webhook-signer.ts';
import type { WebhooksOptions } from './webhooks-options.ts';
import type { AttemptTrigger } from './webhooks-tables.ts';

/** A queue job: "attempt number `attempt` of this delivery is due". */
export interface DeliveryJob {
  deliveryId: string;
  attempt: number;
}

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
  event_type: string;
  attempts: number;
  url: string;
  secret_sealed: string;
  deleted_at: Date | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  payload: Record<string, unknown>;
}

/** Which attempt to take: the scheduled one a job names, or the next one at once (manual). */
type ClaimKind = { kind: 'scheduled'; attempt: number } | { kind: 'manual' };

/**
 * Sends one attempt of one delivery. An attempt is first claimed in the database (the attempt
 * counter moves on and `next_attempt_at` becomes a lease), so two processes never send the
 * same attempt, and a process that dies mid-send leaves a lease that runs out: the sweeper
 * then re-enqueues the delivery and the next attempt carries the same event.
 */
export class WebhookDeliverer {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #safeFetch: SafeFetch;
  readonly #logger: Logger;
  readonly #options: WebhooksOptions;
  readonly #clock: () => Date;
  #queue: Queue<DeliveryJob> | undefined;

  constructor(deps: { db: Db; box: SecretBox; safeFetch: SafeFetch; logger: Logger; options: WebhooksOptions; clock?: () => Date }) {
    this.#db = deps.db;
    this.#box = deps.box;
    this.#safeFetch = deps.safeFetch;
    this.#logger = deps.logger;
    this.#options = deps.options;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** The queue that carries attempts (defined by the module, whose processor calls `process`). */
  useQueue(queue: Queue<DeliveryJob>): void {
    this.#queue = queue;
  }

  /** Queues attempt `attempt` after `delayMs`. */
  async enqueue(deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    if (!this.#queue) throw new Error('the webhook queue is not defined');
    await this.#queue.add({ deliveryId, attempt }, { jobId: deliveryJobId(deliveryId, attempt), ...(delayMs > 0 ? { delayMs } : {}) });
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
   * cancelled, not yet due) simply ends, and the database row says what happens next.
   */
  async process(job: DeliveryJob): Promise<void> {
    try {
      const now = this.#clock();
      const claimed = await this.#claim(job.deliveryId, now, { kind: 'scheduled', attempt: job.attempt });
      if (claimed) await this.#attempt(claimed, 'scheduled');
    } catch (err) {
      // The row is unchanged or holds a lease: the sweeper brings the delivery back.
      this.#logger.warn('webhook attempt aborted', { deliveryId: job.deliveryId, attempt: job.attempt, error: (err as Error).message });
    }
  }

  /** Sends a delivery now, whatever its schedule or status (manual redelivery, the test ping). */
  async sendNow(deliveryId: string): Promise<void> {
    const claimed = await this.#claim(deliveryId, this.#clock(), { kind: 'manual' });
    if (claimed) await this.#attempt(claimed, 'manual');
  }

  /**
   * Takes the next attempt of a delivery (counter up, lease set) and reads what sending needs,
   * in one statement: one round trip per attempt instead of three.
   */
  async #claim(deliveryId: string, now: Date, claim: ClaimKind): Promise<Claimed | undefined> {
    let q = this.#db
      .updateTable('webhook_deliveries as d')
      .from(['webhook_endpoints as e', 'events as ev'])
      .set({ next_attempt_at: new Date(now.getTime() + this.#options.leaseMs), last_attempt_at: now })
      .whereRef('e.id', '=', 'd.endpoint_id')
      .whereRef('ev.id', '=', 'd.event_id')
      .where('d.id', '=', deliveryId);
    q =
      claim.kind === 'scheduled'
        ? q
            .set({ attempts: claim.attempt })
            .where('d.status', '=', 'pending')
            .where('d.attempts', '=', claim.attempt - 1)
            .where('d.next_attempt_at', '<=', new Date(now.getTime() + EARLY_SLACK_MS))
        : // Manual: the next attempt at once, whatever the schedule; a pending job for an earlier number then finds nothing.
          q.set({ status: 'pending', attempts: sql<number>`d.attempts + 1`, delivered_at: null }).where('d.status', '<>', 'cancelled');
    return q
      .returning(['d.id', 'd.endpoint_id', 'd.event_type', 'd.attempts', 'e.url', 'e.secret_sealed', 'e.deleted_at', 'e.disabled_at', 'e.failing_since', 'ev.payload'])
      .executeTakeFirst();
  }

  async #attempt(claimed: Claimed, trigger: AttemptTrigger): Promise<void> {
    if (claimed.deleted_at) return this.#close(claimed, 'cancelled', 'endpoint deleted');
    if (claimed.disabled_at && trigger === 'scheduled') return this.#close(claimed, 'failed', 'endpoint disabled');

    const startedAt = this.#clock();
    let outcome: Outcome;
    try {
      const event = envelopeOf(claimed.payload);
      const body = JSON.stringify(event);
      const headers = signedHeaders(
        this.#box.open(claimed.secret_sealed),
        { eventId: event.id, eventType: event.type, deliveryId: claimed.id, attempt: claimed.attempts, body },
        this.#options.userAgent,
        startedAt,
      );
      outcome = await this.#send(claimed.url, headers, body, startedAt);
    } catch (err) {
      // Not the receiver's fault (e.g. a secret that no longer opens), but an attempt all the same: it counts, so it cannot loop.
      outcome = { startedAt, statusCode: null, latencyMs: 0, succeeded: false, error: `internal: ${(err as Error).message}` };
    }
    await this.#record(claimed, trigger, outcome);
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

  /** Stores the outcome, schedules the next attempt or ends the delivery, and tracks the endpoint's failure streak. */
  async #record(claimed: Claimed, trigger: AttemptTrigger, outcome: Outcome): Promise<void> {
    const n = claimed.attempts;
    const delay = outcome.succeeded || claimed.event_type === PING_EVENT ? null : nextRetryDelay(this.#options.retryScheduleMs, n, this.#options.jitterRatio);
    const now = this.#clock();
    // One statement (data-modifying CTEs run whether or not they are read): the attempt's row and the delivery's new state together.
    const updated = await this.#db
      .with('updated', (qc) =>
        qc
          .updateTable('webhook_deliveries')
          .set({
            status: outcome.succeeded ? 'delivered' : delay === null ? 'failed' : 'pending',
            next_attempt_at: delay === null ? null : new Date(now.getTime() + delay),
            delivered_at: outcome.succeeded ? now : null,
            last_status_code: outcome.statusCode,
            last_latency_ms: outcome.latencyMs,
            last_error: outcome.error,
          })
          .where('id', '=', claimed.id)
          .where('attempts', '=', n)
          .where('status', '=', 'pending')
          .returning('id'),
      )
      .with('recorded', (qc) =>
        qc
          .insertInto('webhook_attempts')
          .values({ delivery_id: claimed.id, attempt: n, trigger, started_at: outcome.startedAt, status_code: outcome.statusCode, latency_ms: outcome.latencyMs, error: outcome.error, succeeded: outcome.succeeded })
          .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
          .returning('delivery_id'),
      )
      .selectFrom('updated')
      .select('id')
      .executeTakeFirst();
    await this.#trackStreak(claimed, outcome);
    if (updated && delay !== null) {
      await this.enqueue(claimed.id, n + 1, delay).catch((err: Error) =>
        this.#logger.warn('webhook retry not queued; the sweeper will queue it', { deliveryId: claimed.id, error: err.message }),
      );
    }
  }

  /** Only changes are written (a success after failures, a first failure), so a busy endpoint's row is rarely touched. */
  async #trackStreak(claimed: Claimed, outcome: Outcome): Promise<void> {
    if (outcome.succeeded && claimed.failing_since !== null) {
      await this.#db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', claimed.endpoint_id).execute();
    } else if (!outcome.succeeded && claimed.failing_since === null) {
      await this.#db.updateTable('webhook_endpoints').set({ failing_since: outcome.startedAt }).where('id', '=', claimed.endpoint_id).where('failing_since', 'is', null).execute();
    }
  }

  async #close(claimed: Claimed, status: 'cancelled' | 'failed', reason: string): Promise<void> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set({ status, next_attempt_at: null, last_error: reason })
      .where('id', '=', claimed.id)
      .where('attempts', '=', claimed.attempts)
      .execute();
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
