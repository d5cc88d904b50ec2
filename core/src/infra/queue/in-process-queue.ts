import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { Db } from '../../modules/tables.ts';
import {
  backoffDelay,
  PermanentJobError,
  RetryLaterError,
  type AddOptions,
  type Backoff,
  type Job,
  type JobQueue,
  type Queue,
  type QueueCounts,
  type QueueOptions,
} from './job-queue.ts';
import { QueueJobStore, type InspectedJob, type StoredJob } from './queue-job-store.ts';

/** Settings of the embedded queue. */
export interface InProcessJobQueueDeps {
  db: Db;
  logger: Logger;
  /**
   * Longest sleep between two looks at the table, which is how soon jobs added by another process are seen (default 1
   * s).
   */
  pollIntervalMs?: number;
  /**
   * How long a claimed job stays claimed; renewed every third of it while it runs, so only a dead worker's job expires
   * (default 30 s).
   */
  leaseMs?: number;
  /** Wall clock in ms for `run_at` times (tests); timers always use real time. */
  clock?: () => number;
}

interface Settings {
  db: Db;
  logger: Logger;
  pollIntervalMs: number;
  leaseMs: number;
  clock: () => number;
}

/** A queue with a poller that can be started and stopped. */
type RunnableQueue = Queue<unknown> & { start(): void; stop(): Promise<void> };

/**
 * The embedded queue: jobs live in the `queue_jobs` table, so they survive a restart, and run
 * in this process. One poller per queue sleeps until the next due job (or until `add` wakes
 * it), so thousands of delayed jobs cost one timer. On `startWorkers()` every due row is
 * picked up again: that is how work queued before a restart resumes.
 *
 * Limits: `concurrency` and `limiter` hold per process (the limiter is meant to be global only
 * on BullMQ; run one worker process per database with this adapter).
 */
export class InProcessJobQueue implements JobQueue {
  readonly #settings: Settings;
  readonly #queues = new Map<string, RunnableQueue>();
  #started = false;

  constructor(deps: InProcessJobQueueDeps) {
    this.#settings = {
      db: deps.db,
      logger: deps.logger,
      pollIntervalMs: deps.pollIntervalMs ?? 1000,
      leaseMs: deps.leaseMs ?? 30_000,
      clock: deps.clock ?? Date.now,
    };
  }

  define<T>(name: string, options: QueueOptions<T>): Queue<T> {
    if (this.#queues.has(name)) throw new Error(`queue ${name} is already defined`);
    const queue = new InProcessQueue<T>(name, options, this.#settings);
    this.#queues.set(name, queue);
    if (this.#started) queue.start();
    return queue;
  }

  async startWorkers(): Promise<void> {
    this.#started = true;
    for (const q of this.#queues.values()) q.start();
  }

  async close(): Promise<void> {
    this.#started = false;
    await Promise.all([...this.#queues.values()].map((q) => q.stop()));
  }

  queues(): Array<Queue<unknown>> {
    return [...this.#queues.values()];
  }

  /** Its jobs live in the database, which is never lost while the process runs: nothing to call. */
  onReconnected(): void {}

  /** What the queue dashboard reads and does on each queue (list, retry, remove). */
  inspectors(): InProcessQueueInspector[] {
    return [...this.#queues.values()].map((q) => (q as unknown as InProcessQueue<unknown>).inspector());
  }
}

/** One in-process queue as the dashboard sees it. */
export interface InProcessQueueInspector {
  readonly name: string;
  counts(): Promise<QueueCounts>;
  list(state: 'waiting' | 'delayed' | 'active' | 'failed', offset: number, limit: number): Promise<InspectedJob[]>;
  get(jobId: string): Promise<InspectedJob | undefined>;
  /** Runs a failed job again, with its attempts given back. */
  retry(jobId: string): Promise<boolean>;
  /** Makes a delayed job due now. */
  promote(jobId: string): Promise<void>;
  /** Deletes a job that is not running. */
  remove(jobId: string): Promise<boolean>;
  clean(state: 'failed' | 'waiting', graceMs: number): Promise<void>;
  /** Wall-clock now of the queue (its `clock`). */
  now(): Date;
}

class InProcessQueue<T> implements Queue<T> {
  readonly name: string;
  readonly #options: QueueOptions<T>;
  readonly #settings: Settings;
  readonly #store: QueueJobStore;
  readonly #running = new Map<string, Promise<void>>();
  /** Start times (real ms) inside the limiter's window. */
  readonly #starts: number[] = [];
  #completed = 0;
  #active = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #heartbeat: NodeJS.Timeout | undefined;
  #pumping: Promise<void> | undefined;
  #again = false;

  constructor(name: string, options: QueueOptions<T>, settings: Settings) {
    this.name = name;
    this.#options = options;
    this.#settings = settings;
    this.#store = new QueueJobStore({ db: settings.db, queue: name });
  }

  async add(data: T, options: AddOptions = {}): Promise<void> {
    const delayMs = options.delayMs ?? 0;
    await this.#store.insert({
      jobId: options.jobId ?? randomUUID(),
      data,
      maxAttempts: options.attempts ?? this.#options.attempts ?? 1,
      backoff: options.backoff ?? this.#options.backoff,
      runAt: new Date(this.#settings.clock() + delayMs),
    });
    this.#wake(delayMs);
  }

  async remove(jobId: string): Promise<void> {
    await this.#store.removeWaiting(jobId);
  }

  async counts(): Promise<QueueCounts> {
    return { ...(await this.#store.counts(new Date(this.#settings.clock()))), completed: this.#completed };
  }

  async failedSince(since: Date, limit: number): Promise<Date[]> {
    return this.#store.failedSince(since, limit);
  }

  inspector(): InProcessQueueInspector {
    const store = this.#store;
    const now = () => new Date(this.#settings.clock());
    return {
      name: this.name,
      now,
      counts: () => this.counts(),
      list: (state, offset, limit) => store.list(state, now(), offset, limit),
      get: (jobId) => store.get(jobId),
      retry: async (jobId) => {
        const done = await store.retryFailed(jobId, now());
        if (done) this.#wake(0);
        return done;
      },
      promote: async (jobId) => {
        await store.promote(jobId, now());
        this.#wake(0);
      },
      remove: (jobId) => store.removeIdle(jobId),
      clean: (state, graceMs) => store.clean(state, new Date(now().getTime() - graceMs)),
    };
  }

  start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#wake(0);
  }

  async stop(): Promise<void> {
    this.#active = false;
    this.#clearTimer();
    await this.#pumping;
    await Promise.allSettled([...this.#running.values()]);
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /** Makes the poller look in `ms` unless it already will sooner. */
  #wake(ms: number): void {
    if (!this.#active) return;
    if (this.#pumping) {
      // The running pump looks again when it is done and picks the right sleep then.
      this.#again = true;
      return;
    }
    const at = Date.now() + Math.max(0, ms);
    if (this.#timer && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#timer = setTimeout(() => void this.#pump(), Math.max(0, ms));
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  async #pump(): Promise<void> {
    this.#clearTimer();
    if (!this.#active || this.#pumping) return;
    let nextIn = this.#settings.pollIntervalMs;
    this.#pumping = (async () => {
      do {
        this.#again = false;
        nextIn = await this.#startDueJobs();
      } while (this.#again && this.#active);
    })().catch((err: unknown) => {
      this.#settings.logger.error('queue poll failed', { queue: this.name, error: errorMessage(err) });
    });
    await this.#pumping;
    this.#pumping = undefined;
    this.#wake(this.#again ? 0 : nextIn);
  }

  /** Claims and starts due jobs within the concurrency and rate limit; returns ms until the next look. */
  async #startDueJobs(): Promise<number> {
    const { pollIntervalMs, leaseMs, clock } = this.#settings;
    let allowed = (this.#options.concurrency ?? 1) - this.#running.size;
    if (allowed <= 0) return pollIntervalMs; // a finishing job wakes the poller
    const limiter = this.#options.limiter;
    if (limiter) {
      const windowStart = Date.now() - limiter.durationMs;
      while (this.#starts.length > 0 && this.#starts[0]! <= windowStart) this.#starts.shift();
      allowed = Math.min(allowed, limiter.max - this.#starts.length);
      if (allowed <= 0) return this.#starts[0]! + limiter.durationMs - Date.now() + 1;
    }
    const now = clock();
    const claimed = await this.#store.claim(new Date(now), allowed, new Date(now + leaseMs));
    // A job still running here whose lease lapsed (a blocked event loop) is not started twice.
    for (const row of claimed) if (!this.#running.has(row.jobId)) this.#launch(row);
    const next = await this.#store.nextRunAt(new Date(now));
    const untilNext = next ? next.getTime() - clock() : pollIntervalMs;
    return Math.max(1, Math.min(untilNext, pollIntervalMs));
  }

  #launch(row: StoredJob): void {
    if (this.#options.limiter) this.#starts.push(Date.now());
    const job: Job<T> = {
      id: row.jobId,
      name: this.name,
      data: row.data as T,
      attempt: row.attempt + 1,
      maxAttempts: row.maxAttempts,
    };
    const run = this.#run(job, row.backoff).finally(() => {
      this.#running.delete(job.id);
      if (this.#running.size === 0) {
        clearInterval(this.#heartbeat);
        this.#heartbeat = undefined;
      }
      this.#wake(0);
    });
    this.#running.set(job.id, run);
    this.#heartbeat ??= setInterval(
      () => void this.#renewLeases(),
      Math.max(1, Math.floor(this.#settings.leaseMs / 3)),
    );
  }

  async #renewLeases(): Promise<void> {
    try {
      await this.#store.renew([...this.#running.keys()], new Date(this.#settings.clock() + this.#settings.leaseMs));
    } catch (err) {
      this.#settings.logger.warn('queue lease renewal failed', { queue: this.name, error: errorMessage(err) });
    }
  }

  /**
   * Runs one job and records the outcome; never rejects (a lost update only means the lease expires and the job runs
   * again).
   */
  async #run(job: Job<T>, backoff: Backoff | undefined): Promise<void> {
    let failure: unknown;
    let failed = false;
    try {
      await this.#options.process(job);
    } catch (err) {
      failed = true;
      failure = err;
    }
    try {
      if (!failed) {
        await this.#store.complete(job.id);
        this.#completed++;
      } else {
        await this.#recordFailure(job, backoff, failure);
      }
    } catch (err) {
      this.#settings.logger.error('queue could not record a job outcome', {
        queue: this.name,
        jobId: job.id,
        error: errorMessage(err),
      });
    }
  }

  async #recordFailure(job: Job<T>, backoff: Backoff | undefined, err: unknown): Promise<void> {
    const error = errorMessage(err);
    const now = this.#settings.clock();
    if (err instanceof RetryLaterError) {
      // Waiting is not failing: back to the table with the attempt given back.
      await this.#store.reschedule(job.id, {
        attempt: job.attempt - 1,
        runAt: new Date(now + err.retryAfterMs),
        error,
      });
      return;
    }
    if (err instanceof PermanentJobError || job.attempt >= job.maxAttempts) {
      this.#settings.logger.warn('job failed for good', {
        queue: this.name,
        jobId: job.id,
        attempt: job.attempt,
        error,
      });
      await this.#store.fail(job.id, { attempt: job.attempt, error, at: new Date(now) });
      return;
    }
    await this.#store.reschedule(job.id, {
      attempt: job.attempt,
      runAt: new Date(now + backoffDelay(backoff, job.attempt)),
      error,
    });
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
