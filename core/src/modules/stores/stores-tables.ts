import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../accounts/accounts-tables.ts';

type Json<T> = ColumnType<T, string, string>;

/** A connected store. Credentials and the webhook secret are sealed (AES-GCM) at rest. */
export interface StoresTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  platform: string;
  external_id: string;
  name: string;
  credentials_sealed: string;
  webhook_secret_sealed: string | null;
  status: 'connected' | 'disconnected';
  poll_cursor: string | null;
  last_polled_at: Date | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  disconnected_at: Date | null;
  /** Until when a poll of the store runs (or is asked for through POST /stores/{id}/sync): another sync is refused meanwhile. Null when none. */
  poll_lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A store listing tied to a reseller product. */
export interface StoreLinksTable {
  id: string;
  store_id: string;
  reseller_product_id: string;
  sku: string;
  external_product_id: string | null;
  external_variant_id: string | null;
  discovered: boolean;
  created_at: ColumnType<Date, Date, never>;
}

/** Every store order seen, and what became of it. */
export interface StoreIngestsTable {
  id: string;
  store_id: string;
  external_order_id: string;
  external_name: string | null;
  status: 'received' | 'placed' | 'waiting_payment' | 'no_print_lines' | 'cancelled' | 'failed' | 'redacted';
  order_id: string | null;
  skipped_lines: Json<Array<{ sku: string | null; quantity: number; reason: string }>>;
  error: string | null;
  store_updated_at: Date | null;
  store_created_at: Date | null;
  attempts: number;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  /** When a privacy request erased the order's personal data: later outcomes are recorded without it. */
  redacted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Inbound webhooks, verified and stored before they are processed (duplicates stored once). */
export interface StoreWebhookEventsTable {
  id: string;
  platform: string;
  store_id: string | null;
  event_key: string;
  topic: string;
  headers: Json<Record<string, string | undefined>>;
  raw_body: string;
  path: string;
  received_at: ColumnType<Date, Date, never>;
  processed_at: Date | null;
  /** A privacy request came while the delivery was not yet processed: its body and headers are erased when it is. */
  erase_when_processed: ColumnType<boolean, boolean | undefined, boolean>;
}

/** Tracking pushed back to stores (one row per shipped store order). */
export interface StoreFulfilmentsTable {
  order_id: string;
  store_id: string;
  status: 'pending' | 'pushed' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
}

export interface StoresTables {
  stores: StoresTable;
  store_links: StoreLinksTable;
  store_ingests: StoreIngestsTable;
  store_webhook_events: StoreWebhookEventsTable;
  store_fulfilments: StoreFulfilmentsTable;
}

export const storesMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('stores')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('platform', 'text', (c) => c.notNull())
      .addColumn('external_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('credentials_sealed', 'text', (c) => c.notNull())
      .addColumn('webhook_secret_sealed', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('poll_cursor', 'text')
      .addColumn('last_polled_at', 'timestamptz')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addColumn('disconnected_at', 'timestamptz')
      .execute();
    // A store is connected to one account at a time.
    await sql`create unique index stores_connected_idx on stores (platform, external_id) where status = 'connected'`.execute(db);
    await db.schema.createIndex('stores_reseller_idx').on('stores').columns(['reseller_id', 'created_at desc', 'id desc']).execute();

    await db.schema
      .createTable('store_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
      .addColumn('reseller_product_id', 'text', (c) => c.notNull().references('reseller_products.id'))
      .addColumn('sku', 'text', (c) => c.notNull())
      .addColumn('external_product_id', 'text')
      .addColumn('external_variant_id', 'text')
      .addColumn('discovered', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await sql`create unique index store_links_listing_idx on store_links (store_id, reseller_product_id, coalesce(external_product_id, ''), coalesce(external_variant_id, ''))`.execute(db);
    await db.schema.createIndex('store_links_product_idx').on('store_links').column('reseller_product_id').execute();

    await db.schema
      .createTable('store_ingests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
      .addColumn('external_order_id', 'text', (c) => c.notNull())
      .addColumn('external_name', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text')
      .addColumn('skipped_lines', 'jsonb', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('store_updated_at', 'timestamptz')
      .addColumn('store_created_at', 'timestamptz')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addUniqueConstraint('store_ingests_order_key', ['store_id', 'external_order_id'])
      .execute();
    await db.schema.createIndex('store_ingests_page_idx').on('store_ingests').columns(['store_id', 'created_at desc', 'id desc']).execute();

    await db.schema
      .createTable('store_webhook_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform', 'text', (c) => c.notNull())
      .addColumn('store_id', 'text')
      .addColumn('event_key', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('headers', 'jsonb', (c) => c.notNull())
      .addColumn('raw_body', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('received_at', 'timestamptz', (c) => c.notNull())
      .addColumn('processed_at', 'timestamptz')
      .addUniqueConstraint('store_webhook_events_key', ['platform', 'event_key'])
      .execute();
    await sql`create index store_webhook_events_pending_idx on store_webhook_events (received_at) where processed_at is null`.execute(db);

    await db.schema
      .createTable('store_fulfilments')
      .addColumn('order_id', 'text', (c) => c.primaryKey())
      .addColumn('store_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
  },
};

/**
 * Store orders shipped but not yet pushed back are found after every order write: a partial
 * index keeps that a lookup among store orders, not a scan of every order (API orders have no
 * store).
 */
export const storeShipmentsIndexMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`create index store_orders_shipped_idx on orders (updated_at) where store_id is not null and tracking is not null and status in ('SHIPPED', 'DELIVERED')`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('store_orders_shipped_idx').execute();
  },
};

/**
 * On-demand polls (POST /stores/{id}/sync) hold a lease on the store, so a second request is
 * refused whichever process answers it; privacy requests erase what is still being ingested
 * once it is (store_ingests.redacted_at, store_webhook_events.erase_when_processed).
 */
export const storeSyncAndRedactionMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('stores').addColumn('poll_lease_until', 'timestamptz').execute();
    await db.schema.alterTable('store_ingests').addColumn('redacted_at', 'timestamptz').execute();
    await db.schema.alterTable('store_webhook_events').addColumn('erase_when_processed', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('store_webhook_events').dropColumn('erase_when_processed').execute();
    await db.schema.alterTable('store_ingests').dropColumn('redacted_at').execute();
    await db.schema.alterTable('stores').dropColumn('poll_lease_until').execute();
  },
};
