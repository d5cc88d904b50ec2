import {
  Queue as BullQueue,
  Worker,
  UnrecoverableError,
  DelayedError,
  type Job as BullJob,
  type JobsOptions,
  type MinimalJob,
} from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { PRODUCER_REDIS, reconnectSoon } from '../redis-options.ts';
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
 * Where the Redis connections come from: a URL, or a factory (called once per purpose; a
 * `worker` connection must have `maxRetriesPerRequest: null`, as BullMQ requires).
 */
export type BullMqConnection = { url: string } | ((purpose: 'producer' | 'worker') => Redis);

/** Settings of the Redis-backed queue. */
export interface BullMqJobQueueDeps {
  connection: BullMqConnection;
  /** Redis key prefix (default `print-api`); tests use a random one so runs never collide. */
  prefix?: string;
  logger: Logger;
}

/** What a BullMQ job carries: the payload and, for schedule backoff, its delays. */
interface Envelope<T> {
  d: T;
  s?: number[];
}

const DAY_S = 24 * 3600;
/** How soon a worker fetches again after its connection failed (see #startWorker). */
const WORKER_RETRY_DELAY_MS = 1000;
/** Completed jobs stay a day for the dashboard, failed ones a week for inspection; `add` replaces either. */
const RETENTION: JobsOptions = {
  removeOnComplete: { age: DAY_S, count: 1000 },
  removeOnFail: { age: 7 * DAY_S, count: 10_000 },
};

/**
 * The Redis-backed queue: BullMQ queues shared by every process, workers only in worker
 * roles. A job id is added once while its job waits, is delayed or runs; a completed or
 * failed job with that id is replaced. Retry policy maps onto BullMQ: `fixed` and
 * `exponential` backoff are BullMQ's own, `schedule` is a custom backoff strategy reading the
 * delays carried by the job, `PermanentJobError` becomes `UnrecoverableError`, and
 * `RetryLaterError` moves the job back to delayed without spending an attempt.
 */
export class BullMqJobQueue implements JobQueue {
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #connect: (purpose: 'producer' | 'worker') => Redis;
  readonly #producer: Redis;
  #workerConnection: Redis | undefined;
  readonly #queues = new Map<string, BullMqQueue<any>>();
  readonly #workers: Worker[] = [];
  readonly #reconnected: Array<() => void> = [];
  #started = false;
  #closing: Promise<void> | undefined;

  constructor(deps: BullMqJobQueueDeps) {
    this.#prefix = deps.prefix ?? 'print-api';
    this.#logger = deps.logger;
    const { connection } = deps;
    this.#connect = typeof connection === 'function' ? connection : (purpose) => openRedis(connection.url, purpose);
    this.#producer = this.#watch(this.#connect('producer'));
    this.#watchLoss(this.#producer);
  }

  onReconnected(listener: () => void): void {
    this.#reconnected.push(listener);
  }

  define<T>(name: string, options: QueueOptions<T>): Queue<T> {
    if (this.#queues.has(name)) throw new Error(`queue ${name} is already defined`);
    const bull = new BullQueue<Envelope<T>>(name, {
      connection: this.#producer,
      prefix: this.#prefix,
      defaultJobOptions: RETENTION,
    });
    bull.on('error', (err) => this.#logger.warn('queue error', { queue: name, error: err.message }));
    const queue = new BullMqQueue<T>(name, options, bull, this.#producer);
    this.#queues.set(name, queue);
    if (this.#started) this.#startWorker(queue);
    return queue;
  }

  async startWorkers(): Promise<void> {
    if (this.#closing) throw new Error('the job queue is closed');
    if (this.#started) return;
    this.#started = true;
    for (const queue of this.#queues.values()) this.#startWorker(queue);
    await Promise.all(this.#workers.map((w) => w.waitUntilReady()));
  }

  /** Closes workers first (each waits for its running jobs), then queues and connections; final. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#started = false;
      await Promise.all(this.#workers.splice(0).map((w) => w.close()));
      await Promise.all([...this.#queues.values()].map((q) => q.bull.close()));
      this.#workerConnection?.disconnect();
      this.#producer.disconnect();
    })();
    return this.#closing;
  }

  queues(): Array<Queue<unknown>> {
    return [...this.#queues.values()];
  }

  /** The BullMQ queues, for the queue dashboard. */
  bullQueues(): BullQueue[] {
    return [...this.#queues.values()].map((q) => q.bull as BullQueue);
  }

  #startWorker(queue: BullMqQueue<any>): void {
    // Workers share one command connection; BullMQ adds a blocking one per worker.
    this.#workerConnection ??= this.#watch(this.#connect('worker'));
    const { concurrency, limiter } = queue.options;
    const worker = new Worker<Envelope<unknown>>(queue.name, (job, token) => queue.process(job, token), {
      connection: this.#workerConnection,
      prefix: this.#prefix,
      concurrency: concurrency ?? 1,
      ...(limiter ? { limiter: { max: limiter.max, duration: limiter.durationMs } } : {}),
      settings: { backoffStrategy: scheduleBackoff },
      // After a lost connection BullMQ waits this long before it fetches jobs again (15 s by
      // default): jobs re-queued once Redis is back would wait for it. Its commands wait for the
      // reconnection anyway, so trying again soon costs nothing while Redis is away.
      runRetryDelay: WORKER_RETRY_DELAY_MS,
    });
    worker.on('failed', (job, err) => {
      if (job && (err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1))) {
        this.#logger.warn('job failed for good', {
          queue: queue.name,
          jobId: job.id,
          attempt: job.attemptsMade,
          error: err.message,
        });
      }
    });
    worker.on('error', (err) => this.#logger.warn('queue worker error', { queue: queue.name, error: err.message }));
    this.#workers.push(worker);
  }

  /**
   * The producer connection (every process has one, workers or not) tells when Redis is back:
   * `ready` after a `close` that followed a `ready`. Its first `ready` at start-up is no return.
   */
  #watchLoss(redis: Redis): void {
    let wasReady = redis.status === 'ready';
    let lost = false;
    redis.on('ready', () => {
      if (lost && !this.#closing) {
        this.#logger.info('queue redis is back; queueing again what waits in the database');
        for (const listener of this.#reconnected) listener();
      }
      wasReady = true;
      lost = false;
    });
    redis.on('close', () => {
      if (wasReady) lost = true;
    });
  }

  #watch(redis: Redis): Redis {
    redis.on('error', (err: Error) => this.#logger.warn('queue redis error', { error: err.message }));
    return redis;
  }
}

/**
 * Producers fail fast when Redis is down or hangs (callers fall back on their sweepers; see
 * PRODUCER_REDIS); workers wait for it, and take up their jobs again when it is back.
 */
function openRedis(url: string, purpose: 'producer' | 'worker'): Redis {
  return new Redis(
    url,
    purpose === 'worker' ? { maxRetriesPerRequest: null, retryStrategy: reconnectSoon } : { ...PRODUCER_REDIS },
  );
}

/** BullMQ's custom backoff: called for types it does not know, i.e. our `schedule`. */
function scheduleBackoff(attemptsMade: number, type?: string, _err?: Error, job?: MinimalJob): number {
  if (type !== 'schedule') return 0;
  const delays = (job?.data as Envelope<unknown> | undefined)?.s ?? [];
  return backoffDelay({ type: 'schedule', delaysMs: delays }, attemptsMade);
}

/**
 * BullMQ refuses custom ids that look like integers or contain ':'. Escaping '%' and ':' and
 * marking integer-looking ids with '%i' keeps distinct ids distinct and reversible.
 */
export function toBullJobId(id: string): string {
  const escaped = id.replace(/%/g, '%25').replace(/:/g, '%3A');
  return `${Number.parseInt(escaped, 10)}` === escaped ? `%i${escaped}` : escaped;
}

/** The inverse of `toBullJobId`. */
export function fromBullJobId(bullId: string): string {
  return bullId.replace(/^%i/, '').replace(/%3A/g, ':').replace(/%25/g, '%');
}

class BullMqQueue<T> implements Queue<T> {
  readonly name: string;
  readonly options: QueueOptions<T>;
  readonly bull: BullQueue<Envelope<T>>;
  /** The producer connection, for what BullMQ's API does not answer (the failed set's scores). */
  readonly #redis: Redis;

  constructor(name: string, options: QueueOptions<T>, bull: BullQueue<Envelope<T>>, redis: Redis) {
    this.name = name;
    this.options = options;
    this.bull = bull;
    this.#redis = redis;
  }

  async add(data: T, options: AddOptions = {}): Promise<void> {
    const backoff: Backoff | undefined = options.backoff ?? this.options.backoff;
    const jobId = options.jobId === undefined ? undefined : toBullJobId(options.jobId);
    const jobOptions: JobsOptions = {
      attempts: options.attempts ?? this.options.attempts ?? 1,
      ...(jobId ? { jobId } : {}),
      ...(options.delayMs ? { delay: options.delayMs } : {}),
      ...(backoff
        ? {
            backoff:
              backoff.type === 'schedule' ? { type: 'schedule' } : { type: backoff.type, delay: backoff.delayMs },
          }
        : {}),
    };
    const envelope: Envelope<T> = backoff?.type === 'schedule' ? { d: data, s: backoff.delaysMs } : { d: data };
    if (jobId) await this.#releaseFinished(jobId);
    await this.bull.add(this.name, envelope, jobOptions);
  }

  async remove(jobId: string): Promise<void> {
    const id = toBullJobId(jobId);
    const state = await this.bull.getJobState(id);
    // A job taken by a worker in the meantime is locked, and BullMQ leaves it alone.
    if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await this.bull.remove(id);
  }

  async counts(): Promise<QueueCounts> {
    const c = await this.bull.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
      failed: c.failed ?? 0,
      completed: c.completed ?? 0,
    };
  }

  /**
   * BullMQ keeps dead jobs in the queue's failed set, scored by when they failed (`finishedOn`):
   * the newest `limit` scores back to `since` (ids and scores only, no job is read).
   */
  async failedSince(since: Date, limit: number): Promise<Date[]> {
    // The producer queues no command while it connects (it fails fast): wait as BullMQ's own calls do.
    await this.bull.waitUntilReady();
    const pairs: string[] = await this.#redis.zrevrangebyscore(
      this.bull.toKey('failed'),
      '+inf',
      since.getTime(),
      'WITHSCORES',
      'LIMIT',
      0,
      limit,
    );
    return pairs.filter((_, i) => i % 2 === 1).map((score) => new Date(Number(score)));
  }

  /** The worker's processor: runs the port's job and maps its errors onto BullMQ's. */
  async process(bullJob: BullJob<Envelope<unknown>>, token?: string): Promise<void> {
    const job: Job<T> = {
      id: fromBullJobId(String(bullJob.id)),
      name: this.name,
      data: bullJob.data.d as T,
      attempt: bullJob.attemptsMade + 1,
      maxAttempts: bullJob.opts.attempts ?? 1,
    };
    try {
      await this.options.process(job);
    } catch (err) {
      if (err instanceof PermanentJobError) throw new UnrecoverableError(err.message);
      if (err instanceof RetryLaterError) {
        // Waiting is not failing: back to delayed without spending an attempt. Per job rather
        // than worker.rateLimit(), which would pause every job of the queue.
        await bullJob.moveToDelayed(Date.now() + err.retryAfterMs, token);
        throw new DelayedError();
      }
      throw err;
    }
  }

  /** A completed or failed job kept for inspection must not block a new job with its id. */
  async #releaseFinished(id: string): Promise<void> {
    const state = await this.bull.getJobState(id);
    if (state === 'completed' || state === 'failed') await this.bull.remove(id);
  }
}
