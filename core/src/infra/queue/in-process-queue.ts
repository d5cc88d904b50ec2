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

/**
 * The embedded queue: jobs live in the `queue_jobs` table, so they survive a restart, and run
 * in this process. One poller per queue sleeps until the next due job (or until `add` wakes
 * it), so thousands of delayed jobs cost one timer.
 */
export class InProcessJobQueue implements JobQueue {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #queues = new Map<string, InProcessQueue<any>>();
  readonly #pollIntervalMs: number;
  #started = false;

  constructor(deps: { db: Db; logger: Logger; pollIntervalMs?: number }) {
    this.#db = deps.db;
    this.#logger = deps.logger;
    this.#pollIntervalMs = deps.pollIntervalMs ?? 1000;
  }

  define<T>(name: string, options: QueueOptions<T>): Queue<T> {
    if (this.#queues.has(name)) throw new Error(`queue ${name} is already defined`);
    const queue = new InProcessQueue<T>(name, options, this.#db, this.#logger, this.#pollIntervalMs);
    this.#queues.set(name, queue);
    if (this.#started) queue.start();
    return queue;
  }

  async startWorkers(): Promise<void> {
    this.#started = true;
    for (const q of this.#queues.values()) q.start();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#queues.values()].map((q) => q.stop()));
  }

  queues(): Array<Queue<unknown>> {
    return [...this.#queues.values()];
  }
}

class InProcessQueue<T> implements Queue<T> {
  readonly name: string;
  readonly #options: QueueOptions<T>;
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #pollIntervalMs: number;
  readonly #running = new Map<string, Promise<void>>();
  readonly #starts: number[] = [];
  #completed = 0;
  #timer: NodeJS.Timeout | undefined;
  #active = false;
  #pumping: Promise<void> | undefined;
  #again = false;

  constructor(name: string, options: QueueOptions<T>, db: Db, logger: Logger, pollIntervalMs: number) {
    this.name = name;
    this.#options = options;
    this.#db = db;
    this.#logger = logger;
    this.#pollIntervalMs = pollIntervalMs;
  }

  async add(data: T, options: AddOptions = {}): Promise<void> {
    const runAt = new Date(Date.now() + (options.delayMs ?? 0));
    const backoff: Backoff | undefined = options.backoff ?? this.#options.backoff;
    await this.#db
      .insertInto('queue_jobs')
      .values({
        queue: this.name,
        job_id: options.jobId ?? randomUUID(),
        data: JSON.stringify(data ?? null),
        attempt: 0,
        max_attempts: options.attempts ?? this.#options.attempts ?? 1,
        backoff: backoff ? JSON.stringify(backoff) : null,
        run_at: runAt,
        state: 'waiting',
        last_error: null,
      })
      .onConflict((oc) => oc.columns(['queue', 'job_id']).doNothing())
      .execute();
    this.#wake((options.delayMs ?? 0) + 1);
  }

  async remove(jobId: string): Promise<void> {
    if (this.#running.has(jobId)) return;
    await this.#db.deleteFrom('queue_jobs').where('queue', '=', this.name).where('job_id', '=', jobId).where('state', '=', 'waiting').execute();
  }

  async counts(): Promise<QueueCounts> {
    const now = new Date();
    const rows = await this.#db
      .selectFrom('queue_jobs')
      .select((eb) => [
        'state',
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>(eb.case().when('run_at', '>', now).then(1).else(0).end()).as('delayed'),
      ])
      .where('queue', '=', this.name)
      .groupBy('state')
      .execute();
    const waitingRow = rows.find((r) => r.state === 'waiting');
    const total = Number(waitingRow?.n ?? 0);
    const delayed = Number(waitingRow?.delayed ?? 0);
    const active = this.#running.size;
    return {
      waiting: Math.max(0, total - delayed - active),
      active,
      delayed,
      failed: Number(rows.find((r) => r.state === 'failed')?.n ?? 0),
      completed: this.#completed,
    };
  }

  start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#wake(0);
  }

  async stop(): Promise<void> {
    this.#active = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#pumping;
    await Promise.allSettled([...this.#running.values()]);
  }

  /** Schedules a pump in `ms` unless one comes sooner. */
  #wake(ms: number): void {
    if (!this.#active) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), Math.max(0, ms));
  }

  async #pump(): Promise<void> {
    this.#timer = undefined;
    if (!this.#active || this.#pumping) return;
    this.#pumping = (async () => {
      let nextIn = this.#pollIntervalMs;
      try {
        do {
          this.#again = false;
          nextIn = await this.#startDueJobs();
        } while (this.#again && this.#active);
      } catch (err) {
        this.#logger.error('queue poll failed', { queue: this.name, error: (err as Error).message });
      } finally {
        this.#pumping = undefined;
      }
      if (this.#active) this.#wake(nextIn);
    })();
    await this.#pumping;
  }

  /** Starts due jobs up to the concurrency and rate limit; returns ms until it should look again. */
  async #startDueJobs(): Promise<number> {
    const concurrency = this.#options.concurrency ?? 1;
    const free = concurrency - this.#running.size;
    if (free <= 0) return this.#pollIntervalMs;
    let allowed = free;
    const limiter = this.#options.limiter;
    if (limiter) {
      const since = Date.now() - limiter.durationMs;
      while (this.#starts.length > 0 && this.#starts[0]! <= since) this.#starts.shift();
      allowed = Math.min(allowed, limiter.max - this.#starts.length);
      if (allowed <= 0) return this.#starts[0]! + limiter.durationMs - Date.now() + 1;
    }
    const now = new Date();
    const due = await this.#db
      .selectFrom('queue_jobs')
      .selectAll()
      .where('queue', '=', this.name)
      .where('state', '=', 'waiting')
      .where('run_at', '<=', now)
      .orderBy('run_at')
      .limit(allowed + this.#running.size)
      .execute();
    for (const row of due) {
      if (this.#running.size >= concurrency || allowed <= 0) break;
      if (this.#running.has(row.job_id)) continue;
      allowed--;
      if (limiter) this.#starts.push(Date.now());
      const job: Job<T> = { id: row.job_id, name: this.name, data: row.data as T, attempt: row.attempt + 1, maxAttempts: row.max_attempts };
      const run = this.#run(job, (row.backoff as Backoff | null) ?? undefined).finally(() => {
        this.#running.delete(job.id);
        this.#wake(0);
      });
      this.#running.set(job.id, run);
    }
    const next = await this.#db
      .selectFrom('queue_jobs')
      .select('run_at')
      .where('queue', '=', this.name)
      .where('state', '=', 'waiting')
      .where('run_at', '>', now)
      .orderBy('run_at')
      .limit(1)
      .executeTakeFirst();
    const untilNext = next ? next.run_at.getTime() - Date.now() : this.#pollIntervalMs;
    return Math.max(1, Math.min(untilNext, this.#pollIntervalMs));
  }

  async #run(job: Job<T>, backoff: Backoff | undefined): Promise<void> {
    const where = (q: any) => q.where('queue', '=', this.name).where('job_id', '=', job.id);
    try {
      await this.#options.process(job);
      await where(this.#db.deleteFrom('queue_jobs')).execute();
      this.#completed++;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof RetryLaterError) {
        await where(this.#db.updateTable('queue_jobs').set({ run_at: new Date(Date.now() + err.retryAfterMs), last_error: message })).execute();
        return;
      }
      const exhausted = err instanceof PermanentJobError || job.attempt >= job.maxAttempts;
      if (exhausted) {
        this.#logger.warn('job failed for good', { queue: this.name, jobId: job.id, attempt: job.attempt, error: message });
        await where(this.#db.updateTable('queue_jobs').set({ state: 'failed', attempt: job.attempt, last_error: message })).execute();
        return;
      }
      const delay = backoffDelay(backoff, job.attempt);
      await where(this.#db.updateTable('queue_jobs').set({ attempt: job.attempt, run_at: new Date(Date.now() + delay), last_error: message })).execute();
    }
  }
}
