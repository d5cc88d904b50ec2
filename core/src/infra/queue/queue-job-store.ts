import type { Db } from '../../modules/tables.ts';
import type { Backoff } from './job-queue.ts';

/** A row of `queue_jobs` as the in-process queue sees it. */
export interface StoredJob {
  jobId: string;
  data: unknown;
  /** Attempts already spent (failed). */
  attempt: number;
  maxAttempts: number;
  backoff: Backoff | undefined;
}

/** A row of `queue_jobs` for the queue dashboard. */
export interface InspectedJob {
  jobId: string;
  data: unknown;
  attempt: number;
  maxAttempts: number;
  state: 'waiting' | 'active' | 'failed';
  runAt: Date;
  lastError: string | null;
  createdAt: Date;
}

function inspected(row: {
  job_id: string;
  data: unknown;
  attempt: number;
  max_attempts: number;
  state: 'waiting' | 'active' | 'failed';
  run_at: Date;
  last_error: string | null;
  created_at: Date;
}): InspectedJob {
  return {
    jobId: row.job_id,
    data: row.data,
    attempt: row.attempt,
    maxAttempts: row.max_attempts,
    state: row.state,
    runAt: new Date(row.run_at),
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
  };
}

/** Row counts of one queue (completed jobs are deleted, so they are not here). */
export interface StoredCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/**
 * The SQL of one in-process queue over `queue_jobs`. Every statement is a single round trip
 * and no transaction stays open while a job runs (PGlite is one serialised connection).
 */
export class QueueJobStore {
  readonly #db: Db;
  readonly #queue: string;

  constructor(deps: { db: Db; queue: string }) {
    this.#db = deps.db;
    this.#queue = deps.queue;
  }

  /**
   * Adds a waiting job. An existing job with the same id is kept while it is waiting or active;
   * a failed one is replaced (the port promises dedup only while a job is pending or running).
   */
  async insert(job: {
    jobId: string;
    data: unknown;
    maxAttempts: number;
    backoff: Backoff | undefined;
    runAt: Date;
  }): Promise<void> {
    const values = {
      queue: this.#queue,
      job_id: job.jobId,
      data: JSON.stringify(job.data ?? null),
      attempt: 0,
      max_attempts: job.maxAttempts,
      backoff: job.backoff ? JSON.stringify(job.backoff) : null,
      run_at: job.runAt,
      state: 'waiting' as const,
      last_error: null,
    };
    await this.#db
      .insertInto('queue_jobs')
      .values(values)
      .onConflict((oc) =>
        oc
          .columns(['queue', 'job_id'])
          .doUpdateSet({
            data: values.data,
            attempt: 0,
            max_attempts: values.max_attempts,
            backoff: values.backoff,
            run_at: values.run_at,
            state: 'waiting',
            last_error: null,
          })
          .where('queue_jobs.state', '=', 'failed'),
      )
      .execute();
  }

  /**
   * Claims up to `limit` due jobs (waiting ones, and active ones whose lease ran out because
   * their worker died) in one statement. `skip locked` keeps two pollers, in this process or
   * another, from claiming the same row.
   */
  async claim(now: Date, limit: number, leaseUntil: Date): Promise<StoredJob[]> {
    if (limit <= 0) return [];
    const due = this.#db
      .selectFrom('queue_jobs')
      .select('job_id')
      .where('queue', '=', this.#queue)
      .where('state', 'in', ['waiting', 'active'])
      .where('run_at', '<=', now)
      .orderBy('run_at')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = await this.#db
      .updateTable('queue_jobs')
      .set({ state: 'active', run_at: leaseUntil })
      .where('queue', '=', this.#queue)
      .where('job_id', 'in', due)
      .returning(['job_id', 'data', 'attempt', 'max_attempts', 'backoff'])
      .execute();
    return rows.map((r) => ({
      jobId: r.job_id,
      data: r.data,
      attempt: r.attempt,
      maxAttempts: r.max_attempts,
      backoff: (r.backoff as Backoff | null) ?? undefined,
    }));
  }

  /** Extends the lease of jobs that are still running here. */
  async renew(jobIds: string[], leaseUntil: Date): Promise<void> {
    if (jobIds.length === 0) return;
    await this.#active().where('job_id', 'in', jobIds).set({ run_at: leaseUntil }).execute();
  }

  /** A finished job leaves the table, so its id can be used again. */
  async complete(jobId: string): Promise<void> {
    await this.#db
      .deleteFrom('queue_jobs')
      .where('queue', '=', this.#queue)
      .where('job_id', '=', jobId)
      .where('state', '=', 'active')
      .execute();
  }

  /** Puts a claimed job back to wait until `runAt`, with `attempt` attempts spent. */
  async reschedule(jobId: string, change: { attempt: number; runAt: Date; error: string }): Promise<void> {
    await this.#active()
      .where('job_id', '=', jobId)
      .set({ state: 'waiting', attempt: change.attempt, run_at: change.runAt, last_error: change.error })
      .execute();
  }

  /**
   * Marks a claimed job failed for good at `at` (its `run_at` from then on: when it failed); the
   * row stays for inspection until the id is added again.
   */
  async fail(jobId: string, change: { attempt: number; error: string; at: Date }): Promise<void> {
    await this.#active()
      .where('job_id', '=', jobId)
      .set({ state: 'failed', attempt: change.attempt, last_error: change.error, run_at: change.at })
      .execute();
  }

  /** When the dead jobs failed, newest first, back to `since`, at most `limit`. */
  async failedSince(since: Date, limit: number): Promise<Date[]> {
    const rows = await this.failedSinceQuery(since, limit).execute();
    return rows.map((r) => new Date(r.run_at));
  }

  /** The query of `failedSince`: it reads the due index (queue, state, run_at), as a test checks on PostgreSQL. */
  failedSinceQuery(since: Date, limit: number) {
    return this.#db
      .selectFrom('queue_jobs')
      .select('run_at')
      .where('queue', '=', this.#queue)
      .where('state', '=', 'failed')
      .where('run_at', '>=', since)
      .orderBy('run_at', 'desc')
      .limit(limit);
  }

  /** Deletes a waiting or delayed job; an active or unknown one is left alone. */
  async removeWaiting(jobId: string): Promise<void> {
    await this.#db
      .deleteFrom('queue_jobs')
      .where('queue', '=', this.#queue)
      .where('job_id', '=', jobId)
      .where('state', '=', 'waiting')
      .execute();
  }

  /** When the earliest job that is not yet due becomes due. */
  async nextRunAt(now: Date): Promise<Date | undefined> {
    const row = await this.#db
      .selectFrom('queue_jobs')
      .select('run_at')
      .where('queue', '=', this.#queue)
      .where('state', '=', 'waiting')
      .where('run_at', '>', now)
      .orderBy('run_at')
      .limit(1)
      .executeTakeFirst();
    return row?.run_at;
  }

  async counts(now: Date): Promise<StoredCounts> {
    const row = await this.#db
      .selectFrom('queue_jobs')
      .where('queue', '=', this.#queue)
      .select((eb) => [
        eb.fn
          .countAll<number>()
          .filterWhere((f) => f.and([f('state', '=', 'waiting'), f('run_at', '<=', now)]))
          .as('waiting'),
        eb.fn
          .countAll<number>()
          .filterWhere((f) => f.and([f('state', '=', 'waiting'), f('run_at', '>', now)]))
          .as('delayed'),
        eb.fn.countAll<number>().filterWhere('state', '=', 'active').as('active'),
        eb.fn.countAll<number>().filterWhere('state', '=', 'failed').as('failed'),
      ])
      .executeTakeFirstOrThrow();
    return {
      waiting: Number(row.waiting),
      active: Number(row.active),
      delayed: Number(row.delayed),
      failed: Number(row.failed),
    };
  }

  /**
   * Jobs in one of the dashboard's states (`waiting`: due; `delayed`: not yet due; `active`;
   * `failed`), newest first, `offset`/`limit` paged: what the queue dashboard lists.
   */
  async list(
    state: 'waiting' | 'delayed' | 'active' | 'failed',
    now: Date,
    offset: number,
    limit: number,
  ): Promise<InspectedJob[]> {
    let q = this.#db.selectFrom('queue_jobs').selectAll().where('queue', '=', this.#queue);
    if (state === 'waiting') q = q.where('state', '=', 'waiting').where('run_at', '<=', now);
    else if (state === 'delayed') q = q.where('state', '=', 'waiting').where('run_at', '>', now);
    else q = q.where('state', '=', state);
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('job_id', 'desc')
      .offset(Math.max(0, offset))
      .limit(Math.max(0, limit))
      .execute();
    return rows.map(inspected);
  }

  /** One job as the dashboard shows it, or undefined (finished jobs are deleted). */
  async get(jobId: string): Promise<InspectedJob | undefined> {
    const row = await this.#db
      .selectFrom('queue_jobs')
      .selectAll()
      .where('queue', '=', this.#queue)
      .where('job_id', '=', jobId)
      .executeTakeFirst();
    return row ? inspected(row) : undefined;
  }

  /**
   * Puts a failed job back to wait at `runAt` with its attempts given back (the dashboard's retry); false when it is
   * not failed.
   */
  async retryFailed(jobId: string, runAt: Date): Promise<boolean> {
    const result = await this.#db
      .updateTable('queue_jobs')
      .set({ state: 'waiting', attempt: 0, run_at: runAt })
      .where('queue', '=', this.#queue)
      .where('job_id', '=', jobId)
      .where('state', '=', 'failed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Makes a delayed job due at `now` (the dashboard's promote). */
  async promote(jobId: string, now: Date): Promise<void> {
    await this.#db
      .updateTable('queue_jobs')
      .set({ run_at: now })
      .where('queue', '=', this.#queue)
      .where('job_id', '=', jobId)
      .where('state', '=', 'waiting')
      .where('run_at', '>', now)
      .execute();
  }

  /** Deletes a waiting, delayed or failed job (never a running one); false when there was none such. */
  async removeIdle(jobId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('queue_jobs')
      .where('queue', '=', this.#queue)
      .where('job_id', '=', jobId)
      .where('state', 'in', ['waiting', 'failed'])
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Deletes failed (or waiting) jobs older than `before` (the dashboard's clean). */
  async clean(state: 'failed' | 'waiting', before: Date): Promise<void> {
    await this.#db
      .deleteFrom('queue_jobs')
      .where('queue', '=', this.#queue)
      .where('state', '=', state)
      .where('created_at', '<=', before)
      .execute();
  }

  #active() {
    return this.#db.updateTable('queue_jobs').where('queue', '=', this.#queue).where('state', '=', 'active');
  }
}
