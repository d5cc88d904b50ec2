import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';

export type ResellerStatus = 'pending' | 'approved' | 'suspended';

export interface ResellersTable {
  id: string;
  name: string;
  email: string;
  phone: string;
  status: ResellerStatus;
  discount_bps: number;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ApiKeysTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  prefix: string;
  key_hash: string;
  scopes: ColumnType<string[] | null, string | null, string | null>;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface AccountsTables {
  resellers: ResellersTable;
  api_keys: ApiKeysTable;
}

export const accountsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('resellers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('phone', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'approved', 'suspended')`))
      .addColumn('discount_bps', 'integer', (c) =>
        c.notNull().defaultTo(0).check(sql`discount_bps between 0 and 10000`),
      )
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('scopes', 'jsonb')
      .addColumn('revoked_at', 'timestamptz')
      .addColumn('last_used_at', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex('api_keys_reseller_idx').on('api_keys').column('reseller_id').execute();
  },
};
