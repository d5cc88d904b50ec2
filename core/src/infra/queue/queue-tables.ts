import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

/** `active` rows are claimed by a worker; a lease that runs out puts them back in play (a crashed worker). */
export type QueueJobState = 'waiting' | 'active' | 'failed';

/** Jobs of the in-process queue, kept in the database so they survive a restart. */
export interface QueueJobsTable {
  queue: string;
  job_id: string;
  data: ColumnType<unknown, string, string>;
  attempt: number;
  max_attempts: number;
  backoff: ColumnType<unknown, string | null, string | null>;
  /**
   * When a waiting job is due; for an active job, when its lease expires (renewed while it runs);
   * for a failed one, when it failed.
   */
  run_at: Date;
  state: QueueJobState;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface QueueTables {
  queue_jobs: QueueJobsTable;
}

export const queueMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('queue_jobs')
      .addColumn('queue', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('data', 'jsonb', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('backoff', 'jsonb')
      .addColumn('run_at', 'timestamptz', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('waiting'))
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('queue_jobs_pk', ['queue', 'job_id'])
      .execute();
    await db.schema.createIndex('queue_jobs_due_idx').on('queue_jobs').columns(['queue', 'state', 'run_at']).execute();
  },
};
