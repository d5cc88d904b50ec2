import { Queue as BullQueue, Worker, UnrecoverableError, DelayedError, type Job as BullJob, type JobsOptions, type MinimalJob } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
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

/** What a BullMQ job carries: the payload and, for schedule backoff, its delays. */
interface Envelope<T> {
  d: T;
  s?: number[];
}

/** BullMQ forbids ':' in custom job ids (it separates key parts). */
const bullJobId = (id: string): string => id.replace(/:/g, '_');

/**
 * The Redis-backed queue: BullMQ queues shared by every process, workers only in worker
 * roles. Jobs with the same id are added once while they exist; completed jobs are removed at
 * once (so the same id can be queued again), failed ones kept for a week for inspection.
 */
export class BullMqJobQueue implements JobQueue {
  readonly #url: string;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #connection: Redis;
  readonly #queues = new Map<string, BullMqQueue<any>>();
  readonly #workers: Worker[] = [];
  readonly #workerConnections: Redis[] = [];

  constructor(deps: { connection: { url: string }; prefix?: string; logger: Logger }) {
    this.#url = deps.connection.url;
    this.#prefix = deps.prefix ?? 'print-api';
    this.#logger = deps.logger;
    this.#connection = this.#redis();
  }

  #redis(): Redis {
    const redis = new Redis(this.#url, { maxRetriesPerRequest: null, enableReadyCheck: true });
    redis.on('error', (err) => this.#logger.warn('queue redis error', { error: err.message }));
    return redis;
  }

  define<T>(name: string, options: QueueOptions<T>): Queue<T> {
    if (this.#queues.has(name)) throw new Error(`queue ${name} is already defined`);
    const bull = new BullQueue<Envelope<T>>(name, {
      connection: this.#connection,
      prefix: this.#prefix,
      defaultJobOptions: { removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } },
    });
    const queue = new BullMqQueue<T>(name, options, bull);
    this.#queues.set(name, queue);
    return queue;
  }

  async startWorkers(): Promise<void> {
    for (const queue of this.#queues.values()) {
      const connection = this.#redis();
      this.#workerConnections.push(connection);
      const worker = new Worker<Envelope<unknown>>(queue.name, (job, token) => queue.process(job, token), {
        connection,
        prefix: this.#prefix,
        concurrency: queue.options.concurrency ?? 1,
        ...(queue.options.limiter ? { limiter: { max: queue.options.limiter.max, duration: queue.options.limiter.durationMs } } : {}),
        settings: {
          backoffStrategy: (attemptsMade: number, type?: string, _err?: Error, job?: MinimalJob) =>
            type === 'schedule' ? backoffDelay({ type: 'schedule', delaysMs: (job?.data as Envelope<unknown> | undefined)?.s ?? [0] }, attemptsMade) : 0,
        },
      });
      worker.on('failed', (job, err) => {
        if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
          this.#logger.warn('job failed for good', { queue: queue.name, jobId: job.id, attempt: job.attemptsMade, error: err.message });
        }
      });
      worker.on('error', (err) => this.#logger.warn('queue worker error', { queue: queue.name, error: err.message }));
      this.#workers.push(worker);
    }
    await Promise.all(this.#workers.map((w) => w.waitUntilReady()));
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
    await Promise.all([...this.#queues.values()].map((q) => q.bull.close()));
    for (const c of [...this.#workerConnections, this.#connection]) c.disconnect();
  }

  queues(): Array<Queue<unknown>> {
    return [...this.#queues.values()];
  }

  /** The BullMQ queues, for the queue dashboard. */
  bullQueues(): BullQueue[] {
    return [...this.#queues.values()].map((q) => q.bull as BullQueue);
  }
}

class BullMqQueue<T> implements Queue<T> {
  readonly name: string;
  readonly options: QueueOptions<T>;
  readonly bull: BullQueue<Envelope<T>>;

  constructor(name: string, options: QueueOptions<T>, bull: BullQueue<Envelope<T>>) {
    this.name = name;
    this.options = options;
    this.bull = bull;
  }

  async add(data: T, options: AddOptions = {}): Promise<void> {
    const backoff: Backoff | undefined = options.backoff ?? this.options.backoff;
    const jobOptions: JobsOptions = {
      attempts: options.attempts ?? this.options.attempts ?? 1,
      ...(options.jobId ? { jobId: bullJobId(options.jobId) } : {}),
      ...(options.delayMs ? { delay: options.delayMs } : {}),
      ...(backoff
        ? { backoff: backoff.type === 'schedule' ? { type: 'schedule' } : { type: backoff.type, delay: backoff.delayMs } }
        : {}),
    };
    const envelope: Envelope<T> = backoff?.type === 'schedule' ? { d: data, s: backoff.delaysMs } : { d: data };
    await this.bull.add(this.name, envelope, jobOptions);
  }

  async remove(jobId: string): Promise<void> {
    const job = await this.bull.getJob(bullJobId(jobId));
    if (!job) return;
    const state = await job.getState();
    if (state === 'delayed' || state === 'waiting' || state === 'prioritized') await job.remove().catch(() => undefined);
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

  async process(bullJob: BullJob<Envelope<unknown>>, token?: string): Promise<void> {
    const job: Job<T> = {
      id: String(bullJob.id),
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
        // Waiting is not failing: the job goes back to delayed without spending an attempt.
        await bullJob.moveToDelayed(Date.now() + err.retryAfterMs, token);
        throw new DelayedError();
      }
      throw err;
    }
  }
}
