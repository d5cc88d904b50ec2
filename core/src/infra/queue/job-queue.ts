/**
 * The job queue port. Domain code defines queues and adds jobs; only the adapters
 * (`bullmq-queue.ts` over Redis, `in-process-queue.ts` over the database) know how jobs are
 * stored and run. Every job must be rebuildable from the database: queues carry work, the
 * database carries truth.
 *
 * @example
 * const deliveries = jobQueue.define<{ deliveryId: string }>('webhooks', {
 *   concurrency: 20,
 *   process: async (job) => sendDelivery(job.data.deliveryId),
 * });
 * await deliveries.add({ deliveryId }, { jobId: deliveryId, delayMs: 10_000 });
 */
export interface JobQueue {
  /** Declares a queue. Processing starts only after `startWorkers()` and only in worker roles. */
  define<T>(name: string, options: QueueOptions<T>): Queue<T>;
  /** Starts processing every defined queue (called by processes with ROLE=all|worker). */
  startWorkers(): Promise<void>;
  /** Stops taking new jobs, waits for running ones, then releases connections. */
  close(): Promise<void>;
  /** Every defined queue, for the dashboard and metrics. */
  queues(): Array<Queue<unknown>>;
  /**
   * Calls `listener` each time this process reaches the queue's store again after losing it
   * (Redis back after an outage, perhaps empty: jobs added meanwhile failed, queued ones may be
   * gone), so that work kept in the database is queued again now rather than by a sweep much
   * later. The in-process queue never loses its store: it never calls it.
   */
  onReconnected(listener: () => void): void;
}

export interface QueueOptions<T> {
  process: (job: Job<T>) => Promise<void>;
  /** Jobs run at once in this process (default 1). */
  concurrency?: number;
  /** At most `max` jobs started per `durationMs` across all processes (a platform's rate limit). */
  limiter?: { max: number; durationMs: number };
  /** Defaults for `add`. */
  attempts?: number;
  backoff?: Backoff;
}

export type Backoff =
  | { type: 'fixed'; delayMs: number }
  | { type: 'exponential'; delayMs: number }
  /** Explicit delays for attempt 2, 3, … (the last one repeats). */
  | { type: 'schedule'; delaysMs: number[] };

export interface AddOptions {
  /** A job with the same id that is still waiting, delayed or running is not added again. */
  jobId?: string;
  delayMs?: number;
  attempts?: number;
  backoff?: Backoff;
}

export interface Job<T> {
  id: string;
  name: string;
  data: T;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
  maxAttempts: number;
}

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface Queue<T> {
  readonly name: string;
  add(data: T, options?: AddOptions): Promise<void>;
  /** Removes a waiting or delayed job (no effect on a running or unknown one). */
  remove(jobId: string): Promise<void>;
  counts(): Promise<QueueCounts>;
  /**
   * When its dead jobs (failed for good, and still kept: not retried or removed since) failed,
   * newest first, back to `since`: at most `limit` of them, so that a queue full of dead jobs
   * costs one bounded read (the console's dead jobs per hour).
   */
  failedSince(since: Date, limit: number): Promise<Date[]>;
}

/** Thrown by a processor: do not retry this job (BullMQ's UnrecoverableError). */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/** Thrown by a processor: the remote side asks us to wait; retry after `retryAfterMs` without spending an attempt. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The delay before attempt `attempt + 1` after attempt `attempt` failed. */
export function backoffDelay(backoff: Backoff | undefined, attempt: number): number {
  if (!backoff) return 0;
  switch (backoff.type) {
    case 'fixed':
      return backoff.delayMs;
    case 'exponential':
      return backoff.delayMs * 2 ** (attempt - 1);
    case 'schedule':
      return backoff.delaysMs[Math.min(attempt - 1, backoff.delaysMs.length - 1)] ?? 0;
  }
}
