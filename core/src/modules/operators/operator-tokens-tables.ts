import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

export type OperatorRole = 'viewer' | 'support' | 'admin';

/** Tokens for machines on the back-office API (`opt_…`): only a hash is kept, like API keys. */
export interface OperatorTokensTable {
  id: string;
  name: string;
  role: OperatorRole;
  /** The first characters of the token, to tell tokens apart in a list. */
  prefix: string;
  token_hash: string;
  /** Who made it (actor type and id, for the list). */
  created_by: string;
  created_at: ColumnType<Date, Date, never>;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface OperatorTokensTables {
  operator_tokens: OperatorTokensTable;
}

export const operatorTokensMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('operator_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('viewer', 'support', 'admin')`))
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz')
      .addColumn('revoked_at', 'timestamptz')
      .addColumn('last_used_at', 'timestamptz')
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('operator_tokens').execute();
  },
};
