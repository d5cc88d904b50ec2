import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';

/**
 * The outbox: every event is written in the same transaction as the change it reports, so
 * an event can never be lost between a commit and a queue. `dispatched_at` is set once its
 * webhook deliveries have been fanned out.
 */
export interface EventsTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  type: string;
  order_id: string | null;
  payload: ColumnType<Record<string, unknown>, string, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
  dispatched_at: Date | null;
}

export interface EventsTables {
  events: EventsTable;
}

export const eventsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text')
      .addColumn('payload', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('dispatched_at', 'timestamptz')
      .execute();
    await sql`create index events_undispatched_idx on events (created_at) where dispatched_at is null`.execute(db);
    await db.schema.createIndex('events_order_idx').on('events').columns(['order_id', 'created_at']).execute();
  },
};

/** The index the event stream (`GET /events/stream`) reads by: one reseller's events of one mode, in id order. */
export const eventStreamIndexMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`create index if not exists events_reseller_mode_id_idx on events (reseller_id, mode, id)`.execute(db);
  },
};
