import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * A product we created in a store for a reseller product (`POST /stores/{id}/listings`). The
 * row is written (`publishing`) before the platform is called, so a retry after a crash finds
 * the intent and looks for the product the first call may have made before making another.
 */
export interface StorePublicationsTable {
  id: string;
  store_id: string;
  reseller_product_id: string;
  sku: string;
  title: string;
  /** The merchant's retail price, in minor units of `currency` (the store's). */
  price_cents: number;
  currency: string;
  /**
   * `publishing`: asked of the platform, no answer recorded yet; `pending`: the platform is creating it; `active`: on
   * sale; `draft`: created, not on sale.
   */
  status: 'publishing' | 'pending' | 'active' | 'draft';
  external_product_id: string | null;
  external_variant_id: string | null;
  url: string | null;
  notice: string | null;
  /**
   * The store link made with it (discovered = false): the reseller product's deletion guard and the ingestion's match.
   */
  link_id: string | null;
  /** The request's Idempotency-Key and a hash of its body, when it had one. */
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
}

export interface StorePublicationsTables {
  store_publications: StorePublicationsTable;
}

/**
 * Publishing reseller products to stores: what was published where, and each store's currency (asked of its platform
 * once).
 */
export const storePublicationsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('stores').addColumn('currency', 'text').execute();
    await db.schema
      .createTable('store_publications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
      .addColumn('reseller_product_id', 'text', (c) => c.notNull())
      .addColumn('sku', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('price_cents', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('external_product_id', 'text')
      .addColumn('external_variant_id', 'text')
      .addColumn('url', 'text')
      .addColumn('notice', 'text')
      .addColumn('link_id', 'text')
      .addColumn('idempotency_key', 'text')
      .addColumn('request_hash', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      // A reseller product is published once per store: a second request finds the first.
      .addUniqueConstraint('store_publications_product_key', ['store_id', 'reseller_product_id'])
      .execute();
    await sql`create unique index store_publications_idempotency_idx on store_publications (store_id, idempotency_key) where idempotency_key is not null`.execute(
      db,
    );
    await db.schema
      .createIndex('store_publications_product_idx')
      .on('store_publications')
      .column('reseller_product_id')
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('store_publications').execute();
    await db.schema.alterTable('stores').dropColumn('currency').execute();
  },
};
