import type { ColumnType, Kysely } from 'kysely';


/** A reseller's own product: its SKU, a catalogue product and fixed options (defaults included). */
export interface ResellerProductsTable {
  id: string;
  reseller_id: string;
  sku: string;
  /** Lower-cased SKU: SKUs are unique per reseller regardless of case. */
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
    await db.schema.createIndex('reseller_products_page_idx').on('reseller_products').columns(['reseller_id', 'created_at desc', 'id desc']).execute();
  },
};
