import { sql } from 'kysely';

/**
 * A select-list item that turns `synchronous_commit` off for the transaction of the statement
 * it is part of (set_config's `is_local`: the session keeps its setting): that statement's
 * commit returns without waiting for its WAL to reach the disk, and takes no turn in the
 * flushes the other commits wait for. It is still written in WAL order, so the next ordinary
 * commit (within a fraction of a second, the WAL writer's) makes it durable too; only a crash
 * in between can lose it, never half of it.
 *
 * Only for bookkeeping whose owner repairs its loss: a write that is redone when the work is
 * redone (the sweeper re-queues what is not marked processed, and redoing it is idempotent).
 * Never for what a client or a platform has been told happened.
 *
 * @example
 * await sql`with recorded as (${update}) select ${RELAXED_COMMIT} as relaxed`.execute(db);
 */
export const RELAXED_COMMIT = sql<string>`set_config('synchronous_commit', 'off', true)`;
