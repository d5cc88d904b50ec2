import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

type Json<T> = ColumnType<T, string, string>;

/** Who a browser session belongs to: a back-office operator or a reseller (never both). */
export type SessionKind = 'operator' | 'reseller';

/**
 * Browser sessions (the operators' console, the resellers' dashboard). Only a hash of the
 * session token is stored: a copy of the table opens no session.
 */
export interface BrowserSessionsTable {
  id: string;
  kind: SessionKind;
  /** Whom the session acts for: `admin` (the admin token) or a user id for operators; the reseller id for resellers. */
  subject: string;
  token_hash: string;
  /** Sent back with every state-changing form or request (the double check against cross-site requests). */
  csrf_token: string;
  /** What a kind needs besides its subject (a reseller session's mode, for instance). */
  data: Json<Record<string, unknown>>;
  user_agent: string | null;
  ip: string | null;
  created_at: ColumnType<Date, Date, never>;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface SessionsTables {
  browser_sessions: BrowserSessionsTable;
}

export const browserSessionsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('browser_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('operator', 'reseller')`))
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .addColumn('user_agent', 'text')
      .addColumn('ip', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('revoked_at', 'timestamptz')
      .execute();
    await db.schema
      .createIndex('browser_sessions_subject_idx')
      .on('browser_sessions')
      .columns(['kind', 'subject'])
      .execute();
    await db.schema.createIndex('browser_sessions_expires_idx').on('browser_sessions').column('expires_at').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('browser_sessions').execute();
  },
};

/**
 * Reseller sessions opened before a session recorded the API key behind it (`data.keyId`) would
 * pass for back-office ones (every scope, free to switch mode): they are ended once, and their
 * resellers open new ones from a link.
 */
export const unboundResellerSessionsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db
      .updateTable('browser_sessions')
      .set({ revoked_at: new Date() })
      .where('kind', '=', 'reseller')
      .where('revoked_at', 'is', null)
      .execute();
  },
  async down(): Promise<void> {},
};
