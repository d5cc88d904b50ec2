import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

type Json<T> = ColumnType<T, string, string>;

/** Who did something: a person signed in, an operator token, the admin token, a reseller's key, the service itself. */
export type ActorType = 'operator' | 'operator_token' | 'admin_token' | 'api_key' | 'system';

export interface Actor {
  type: ActorType;
  id: string;
  name?: string;
  email?: string;
}

/**
 * The audit trail: one row per recorded action, append-only (no code path updates or deletes a
 * row but the retention job). Each row's `hash` covers its content and the `prev_hash` of the
 * chain, so an edited, inserted or removed row breaks the chain (`AuditLog.verify`).
 */
export interface AuditEventsTable {
  id: string;
  /** The row's place in the chain: 1, 2, 3… in the order the chain head handed them out. */
  seq: ColumnType<string, number, never>;
  at: ColumnType<Date, Date, never>;
  actor: Json<Actor>;
  action: string;
  target_type: string;
  target_id: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  changes: Json<Record<string, unknown> | null>;
  prev_hash: string;
  hash: string;
}

/**
 * The one row that says where the chain ends (`seq`, `hash`) and where it starts (`anchor_*`: the
 * last row the retention job dropped; 0 and the genesis hash before any was). Taken FOR UPDATE by
 * every append, which orders appends across processes and connections.
 */
export interface AuditChainTable {
  id: number;
  seq: ColumnType<string, number, number>;
  hash: string;
  anchor_seq: ColumnType<string, number, number>;
  anchor_hash: string;
}

export interface AuditTables {
  audit_events: AuditEventsTable;
  audit_chain: AuditChainTable;
}

export const GENESIS_HASH = '0'.repeat(64);

export const auditMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull().unique())
      .addColumn('at', 'timestamptz', (c) => c.notNull())
      .addColumn('actor', 'jsonb', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('request_id', 'text')
      .addColumn('changes', 'jsonb')
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_events_at_idx').on('audit_events').column('at').execute();
    await db.schema.createIndex('audit_events_action_idx').on('audit_events').columns(['action', 'seq']).execute();
    await db.schema.createIndex('audit_events_target_idx').on('audit_events').columns(['target_id', 'seq']).execute();
    await sql`create index audit_events_actor_idx on audit_events ((actor->>'id'), seq)`.execute(db);
    await db.schema
      .createTable('audit_chain')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('anchor_seq', 'bigint', (c) => c.notNull())
      .addColumn('anchor_hash', 'text', (c) => c.notNull())
      .execute();
    await db
      .insertInto('audit_chain')
      .values({ id: 1, seq: 0, hash: GENESIS_HASH, anchor_seq: 0, anchor_hash: GENESIS_HASH })
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('audit_chain').execute();
    await db.schema.dropTable('audit_events').execute();
  },
};
