import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';

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
  /**
   * Until when a poll of the store runs (or is asked for through POST /stores/{id}/sync): another sync is refused
   * meanwhile. Null when none.
   */
  poll_lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Where the listings run under way stands (the connector's cursor); null between runs and on a run's first page. */
  listings_cursor: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the listings run under way began (its rows are seen at this time); null when none runs. */
  listings_run_started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When the last complete listings run ended. */
  listings_synced_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * When a sync of the listings was last asked for (a product webhook, POST /stores/{id}/sync): a run begun before it
   * is followed by another.
   */
  listings_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * Whether the store's listings job is queued or running: set by the request that queues it, cleared by the job
   * itself, in one statement that also checks no request came after its run began (listing-syncer.ts).
   */
  listings_job_live: ColumnType<boolean, boolean | undefined, boolean>;
  /** The live (or last) listings job's number: its job id is `listings-<store>-<n>`, a new one for each job. */
  listings_job_seq: ColumnType<number, number | undefined, number>;
  /**
   * What the store's last poll found and repaired for the merchant to know (the connector's `notice`), and when: shown
   * among its notices for a week.
   */
  poll_notice: ColumnType<string | null, string | null | undefined, string | null>;
  poll_notice_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /**
   * The store's currency (ISO 4217), asked of its platform before its first publish (store-publications-tables.ts);
   * null until then.
   */
  currency: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The store's own country (ISO 3166-1 alpha-2), asked with its currency (store-locales.ts); null until then, or when
   * its platform does not say.
   */
  country: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the currency and country were asked of the platform; null: not yet. */
  locale_learned_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * The store's catalogue as its connector last listed it: one row per product variant (or
 * product without variants), replaced wholesale by each complete sync run.
 */
export interface StoreListingsTable {
  id: string;
  store_id: string;
  external_product_id: string;
  /** '' for a product sold without variants (so the key is a plain unique constraint). */
  external_variant_id: string;
  sku: string | null;
  /** Lower-cased SKU: matched against reseller_products.sku_key. */
  sku_key: string | null;
  title: string;
  active: boolean;
  /** The start of the run that last saw it: rows older than a complete run's start are gone from the store. */
  seen_at: Date;
  created_at: ColumnType<Date, Date, never>;
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
  status:
    | 'received'
    | 'placed'
    | 'waiting_payment'
    | 'waiting_address'
    | 'no_print_lines'
    | 'cancelled'
    | 'failed'
    | 'redacted';
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
  /** The store products (listings) of its lines skipped as unmatched: the orders a listing mapped later can retry. */
  skipped_product_ids: ColumnType<string[], string[] | undefined, string[]>;
}

/** Inbound webhooks, verified and stored before they are processed (duplicates stored once). */
export interface StoreWebhookEventsTable {
  id: string;
  platform: string;
  store_id: string | null;
  event_key: string;
  topic: string;
  headers: Json<Record<string, string | undefined>>;
  /** The delivery's bytes as received (empty once erased). */
  raw_body: Buffer;
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
  store_listings: StoreListingsTable;
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
    await sql`create unique index stores_connected_idx on stores (platform, external_id) where status = 'connected'`.execute(
      db,
    );
    await db.schema
      .createIndex('stores_reseller_idx')
      .on('stores')
      .columns(['reseller_id', 'created_at desc', 'id desc'])
      .execute();

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
    await sql`create unique index store_links_listing_idx on store_links (store_id, reseller_product_id, coalesce(external_product_id, ''), coalesce(external_variant_id, ''))`.execute(
      db,
    );
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
    await db.schema
      .createIndex('store_ingests_page_idx')
      .on('store_ingests')
      .columns(['store_id', 'created_at desc', 'id desc'])
      .execute();

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
    await sql`create index store_webhook_events_pending_idx on store_webhook_events (received_at) where processed_at is null`.execute(
      db,
    );

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
    await sql`create index store_orders_shipped_idx on orders (updated_at) where store_id is not null and tracking is not null and status in ('SHIPPED', 'DELIVERED')`.execute(
      db,
    );
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
    await db.schema
      .alterTable('store_webhook_events')
      .addColumn('erase_when_processed', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('store_webhook_events').dropColumn('erase_when_processed').execute();
    await db.schema.alterTable('store_ingests').dropColumn('redacted_at').execute();
    await db.schema.alterTable('stores').dropColumn('poll_lease_until').execute();
  },
};

/**
 * Store listings (the catalogue each connected store sells, synced from its platform) and where
 * a store's listings run stands, so a run that waits for the platform's rate limit goes on
 * where it stopped.
 */
export const storeListingsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('store_listings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
      .addColumn('external_product_id', 'text', (c) => c.notNull())
      .addColumn('external_variant_id', 'text', (c) => c.notNull())
      .addColumn('sku', 'text')
      .addColumn('sku_key', 'text')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('active', 'boolean', (c) => c.notNull())
      .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addUniqueConstraint('store_listings_variant_key', ['store_id', 'external_product_id', 'external_variant_id'])
      .execute();
    await db.schema
      .createIndex('store_listings_sku_idx')
      .on('store_listings')
      .columns(['store_id', 'sku_key'])
      .execute();
    // The deletion guard looks listings up by SKU across the reseller's stores.
    await db.schema.createIndex('store_listings_sku_key_idx').on('store_listings').column('sku_key').execute();
    await db.schema.alterTable('stores').addColumn('listings_cursor', 'text').execute();
    await db.schema.alterTable('stores').addColumn('listings_run_started_at', 'timestamptz').execute();
    await db.schema.alterTable('stores').addColumn('listings_synced_at', 'timestamptz').execute();
    await db.schema.alterTable('stores').addColumn('listings_requested_at', 'timestamptz').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const column of ['listings_requested_at', 'listings_synced_at', 'listings_run_started_at', 'listings_cursor'])
      await db.schema.alterTable('stores').dropColumn(column).execute();
    await db.schema.dropTable('store_listings').execute();
  },
};

/** A poll's notice to the merchant (a webhook the platform had disabled, set active again) and its time. */
export const storePollNoticeMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('stores').addColumn('poll_notice', 'text').execute();
    await db.schema.alterTable('stores').addColumn('poll_notice_at', 'timestamptz').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const column of ['poll_notice_at', 'poll_notice'])
      await db.schema.alterTable('stores').dropColumn(column).execute();
  },
};

/**
 * The listings whose lines an ingest skipped as unmatched (their store product ids), so that the
 * skipped orders of a listing mapped later (POST /stores/{id}/links) are found and retried.
 */
export const storeIngestSkippedProductsMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`alter table store_ingests add column skipped_product_ids text[] not null default '{}'`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('store_ingests').dropColumn('skipped_product_ids').execute();
  },
};

/**
 * Stored deliveries' bodies as bytes (`bytea`) instead of base64 text: received as a Buffer, they
 * are written as one binary parameter and read back as a Buffer, with no base64 encoding on the
 * way in nor decoding on the way out, and a third fewer bytes to send to the database. Erased
 * bodies ('') become empty.
 */
export const storeWebhookBodiesBinaryMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`alter table store_webhook_events alter column raw_body type bytea using decode(raw_body, 'base64')`.execute(
      db,
    );
  },
  async down(db: Kysely<any>): Promise<void> {
    await sql`alter table store_webhook_events alter column raw_body type text using replace(encode(raw_body, 'base64'), chr(10), '')`.execute(
      db,
    );
  },
};

/**
 * The store's listings job as a flag and a number (listing-syncer.ts): a request queues a job only
 * when none is live, under a job id of its own, so that it is never folded into a job that has
 * already looked for requests and is only waiting for the queue to mark it complete.
 */
export const storeListingsJobMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`alter table stores add column listings_job_live boolean not null default false`.execute(db);
    await sql`alter table stores add column listings_job_seq integer not null default 0`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const column of ['listings_job_seq', 'listings_job_live'])
      await db.schema.alterTable('stores').dropColumn(column).execute();
  },
};

/**
 * The store orders and store webhooks of a time window across every store (the console's 24-hour
 * charts: store orders per platform and hour, ingest lag): `store_ingests_page_idx` leads with
 * the store, and the received-time index covers unprocessed webhooks only. Part of migration 0030.
 */
export const storeWindowIndexesMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('store_ingests_created_idx').on('store_ingests').column('created_at').execute();
    await db.schema
      .createIndex('store_webhook_events_received_idx')
      .on('store_webhook_events')
      .column('received_at')
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('store_webhook_events_received_idx').execute();
    await db.schema.dropIndex('store_ingests_created_idx').execute();
  },
};
