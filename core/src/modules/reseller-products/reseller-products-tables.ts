import { sql, type ColumnType, type Kysely } from 'kysely';
import { newId } from '../../infra/ids.ts';
import type { Mode } from '../../kernel/tenant.ts';

/** A reseller's own product, in one mode: its SKU, a catalogue product and fixed options (defaults included). */
export interface ResellerProductsTable {
  id: string;
  reseller_id: string;
  /** Test and live products are separate (as in Stripe): a key sees its own mode's only. */
  mode: Mode;
  sku: string;
  /** Lower-cased SKU: SKUs are unique per reseller and mode regardless of case. */
  sku_key: string;
  title: string;
  product_id: string;
  options: ColumnType<Record<string, string | number>, string, string>;
  file_url: string | null;
  active: boolean;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
}

export interface ResellerProductsTables {
  reseller_products: ResellerProductsTable;
}

export const resellerProductsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('reseller_products')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('sku', 'text', (c) => c.notNull())
      .addColumn('sku_key', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('product_id', 'text', (c) => c.notNull())
      .addColumn('options', 'jsonb', (c) => c.notNull())
      .addColumn('file_url', 'text')
      .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addUniqueConstraint('reseller_products_sku_key', ['reseller_id', 'sku_key'])
      .execute();
    await db.schema
      .createIndex('reseller_products_page_idx')
      .on('reseller_products')
      .columns(['reseller_id', 'created_at desc', 'id desc'])
      .execute();
  },
};

/**
 * Reseller products become per mode. Until now one product served both modes, so each keeps
 * doing so: it becomes the live product (same id) and gets a test copy (a new id), and the links
 * of stores connected in test mode move to the copy. From here on each mode's copy is its own.
 */
export const resellerProductsModeMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('reseller_products').addColumn('mode', 'text').execute();
    await sql`update reseller_products set mode = 'live'`.execute(db);
    await db.schema.alterTable('reseller_products').dropConstraint('reseller_products_sku_key').execute();
    const rows = await db.selectFrom('reseller_products').select('id').orderBy('created_at').orderBy('id').execute();
    for (let i = 0; i < rows.length; i += 500) {
      const copies = sql.join(
        rows.slice(i, i + 500).map((r: { id: string }) => sql`(${r.id}::text, ${newId('rp')}::text)`),
      );
      await sql`
        with copy(live_id, test_id) as (values ${copies}),
        copied as (
          insert into reseller_products (id, reseller_id, mode, sku, sku_key, title, product_id, options, file_url, active, created_at, updated_at)
          select copy.test_id, p.reseller_id, 'test', p.sku, p.sku_key, p.title, p.product_id, p.options, p.file_url, p.active, p.created_at, p.updated_at
          from reseller_products p join copy on copy.live_id = p.id
        )
        update store_links set reseller_product_id = copy.test_id
        from copy, stores
        where store_links.reseller_product_id = copy.live_id and stores.id = store_links.store_id and stores.mode = 'test'`.execute(
        db,
      );
    }
    await db.schema
      .alterTable('reseller_products')
      .alterColumn('mode', (c) => c.setNotNull())
      .execute();
    await db.schema
      .alterTable('reseller_products')
      .addUniqueConstraint('reseller_products_mode_sku_key', ['reseller_id', 'mode', 'sku_key'])
      .execute();
    await db.schema.dropIndex('reseller_products_page_idx').execute();
    await db.schema
      .createIndex('reseller_products_page_idx')
      .on('reseller_products')
      .columns(['reseller_id', 'mode', 'created_at desc', 'id desc'])
      .execute();
  },
};
