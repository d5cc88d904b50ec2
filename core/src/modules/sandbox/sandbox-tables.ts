import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * The sandbox platform's own state: what a real platform would hold on its side. Sandbox
 * stores (`stores.platform = 'SANDBOX'`) name their shop by `stores.external_id`; nothing here
 * points at the stores module's tables, as nothing on Shopify points at ours.
 */
export interface SandboxShopsTable {
  /** `sbs_…`: the store's `externalId`. */
  id: string;
  name: string;
  /** SHA-256 of the shop's API token (the connector's credential). */
  token_hash: string;
  /** Where the shop delivers its webhooks (the connector registers it), and the secret it signs them with (sealed). */
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
  /** The last store order number given (the first order is 1001). */
  order_seq: number;
  created_at: ColumnType<Date, Date, never>;
}

/** One line of a sandbox store order, as the platform keeps it (its API's shape). */
export interface SandboxLine {
  id: string;
  sku: string | null;
  quantity: number;
  title: string | null;
  product_id: string | null;
}

/** Tracking the connector pushed back for an order. */
export interface SandboxFulfillment {
  carrier: string;
  tracking_number: string;
  tracking_url: string;
  lines: Array<{ line_id: string | null; sku: string | null; quantity: number }>;
  created_at: string;
}

export interface SandboxShipTo {
  name: string;
  company?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  address1: string;
  address2?: string | undefined;
  postal_code: string;
  city: string;
  state?: string | undefined;
  country: string;
}

export interface SandboxOrdersTable {
  shop_id: string;
  /** The store order's id on the platform (`1001`): the print order's `externalOrderId`. */
  id: string;
  name: string;
  paid: boolean;
  cancelled: boolean;
  lines: ColumnType<SandboxLine[], string, string>;
  ship_to: ColumnType<SandboxShipTo | null, string | null, string | null>;
  fulfillments: ColumnType<SandboxFulfillment[], string, string>;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
}

export interface SandboxProductsTable {
  /** `sbp_…`: the listing's `externalProductId`. */
  id: string;
  shop_id: string;
  sku: string | null;
  title: string;
  description: string | null;
  price_cents: number | null;
  currency: string | null;
  status: 'active' | 'draft' | 'archived';
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
}

export interface SandboxTables {
  sandbox_shops: SandboxShopsTable;
  sandbox_orders: SandboxOrdersTable;
  sandbox_products: SandboxProductsTable;
}

export const sandboxMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('sandbox_shops')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('webhook_url', 'text')
      .addColumn('webhook_secret_sealed', 'text')
      .addColumn('order_seq', 'integer', (c) => c.notNull().defaultTo(1000))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sandbox_orders')
      .addColumn('shop_id', 'text', (c) => c.notNull().references('sandbox_shops.id'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('paid', 'boolean', (c) => c.notNull())
      .addColumn('cancelled', 'boolean', (c) => c.notNull())
      .addColumn('lines', 'jsonb', (c) => c.notNull())
      .addColumn('ship_to', 'jsonb')
      .addColumn('fulfillments', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('sandbox_orders_pkey', ['shop_id', 'id'])
      .execute();
    await db.schema
      .createIndex('sandbox_orders_changes_idx')
      .on('sandbox_orders')
      .columns(['shop_id', 'updated_at', 'id'])
      .execute();
    await db.schema
      .createTable('sandbox_products')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('shop_id', 'text', (c) => c.notNull().references('sandbox_shops.id'))
      .addColumn('sku', 'text')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('price_cents', 'integer')
      .addColumn('currency', 'text')
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'draft', 'archived')`))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('sandbox_products_shop_idx')
      .on('sandbox_products')
      .columns(['shop_id', 'id'])
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('sandbox_products').execute();
    await db.schema.dropTable('sandbox_orders').execute();
    await db.schema.dropTable('sandbox_shops').execute();
  },
};
