import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';

/**
 * Single-use login links to the reseller dashboard. Only a hash of the link's token is kept:
 * a copy of the table opens nothing.
 */
export interface DashboardLinksTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  /** The API key that asked for it; null when the back-office did (the CLI's `login-link`). */
  key_id: string | null;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: ColumnType<Date, Date, never>;
}

export interface DashboardTables {
  dashboard_links: DashboardLinksTable;
}

export const dashboardLinksMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('dashboard_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
      .addColumn('key_id', 'text')
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('used_at', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('dashboard_links_expires_idx').on('dashboard_links').column('expires_at').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('dashboard_links').execute();
  },
};
