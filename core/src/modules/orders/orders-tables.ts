import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';
import type { OrderSource, OrderState, OrderStatus } from './order-states.ts';

type Json<T> = ColumnType<T, string, string>;

export interface Recipient {
  name: string;
  company?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  address1: string;
  address2?: string | undefined;
  postalCode: string;
  city: string;
  /** Province, state or region: the ISO 3166-2 subdivision code without the country prefix (`MI`), or as written. */
  state?: string | undefined;
  country: string;
}

export interface CarrierContact {
  emailSource: 'recipient' | 'reseller';
  phoneSource: 'recipient' | 'reseller';
}

export interface Tracking {
  carrier: string;
  trackingNumber: string;
  trackingUrl: string;
}

/** Where the card payment stands: `charging` marks a charge under way (recovered after a crash). */
export type PaymentStatus = 'none' | 'charging' | 'paid' | 'declined' | 'refunded' | 'not_charged';

export interface OrdersTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  source: OrderSource;
  external_order_id: string | null;
  store_id: string | null;
  state: OrderState;
  status: OrderStatus;
  country: string;
  recipient: Json<Recipient>;
  carrier_contact: Json<CarrierContact>;
  public_net_cents: number;
  discount_cents: number;
  net_cents: number;
  shipping_cents: number;
  vat_cents: number;
  total_cents: number;
  shipping: Json<Record<string, unknown>>;
  payment_method: 'wallet' | 'card' | null;
  payment_status: PaymentStatus;
  payment_reference: string | null;
  payment_error: string | null;
  tracking: ColumnType<Tracking | null, string | null, string | null>;
  production_partner: string | null;
  production_reference: string | null;
  handed_off_at: Date | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  paid_at: Date | null;
  cancelled_at: Date | null;
}

export type FileStatus = 'ok' | 'needs_conversion' | 'missing';

export interface OrderLinesTable {
  order_id: string;
  line: number;
  product_id: string;
  reseller_sku: string | null;
  quantity: number;
  options: Json<Record<string, string | number>>;
  derived_options: Json<Record<string, string | number>>;
  unit_price: string;
  unit_price_cents: number;
  public_net_cents: number;
  discount_cents: number;
  net_cents: number;
  vat_rate: string;
  vat_cents: number;
  total_cents: number;
  weight_grams: number;
  file_url: string | null;
  file_type: string | null;
  file_status: FileStatus;
}

export interface IdempotencyKeysTable {
  reseller_id: string;
  mode: Mode;
  key: string;
  request_hash: string;
  order_id: string;
  created_at: ColumnType<Date, Date, never>;
}

export interface OrdersTables {
  orders: OrdersTable;
  order_lines: OrderLinesTable;
  idempotency_keys: IdempotencyKeysTable;
}

export const ordersMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('orders')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('external_order_id', 'text')
      .addColumn('store_id', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('country', 'text', (c) => c.notNull())
      .addColumn('recipient', 'jsonb', (c) => c.notNull())
      .addColumn('carrier_contact', 'jsonb', (c) => c.notNull())
      .addColumn('public_net_cents', 'bigint', (c) => c.notNull())
      .addColumn('discount_cents', 'bigint', (c) => c.notNull())
      .addColumn('net_cents', 'bigint', (c) => c.notNull())
      .addColumn('shipping_cents', 'bigint', (c) => c.notNull())
      .addColumn('vat_cents', 'bigint', (c) => c.notNull())
      .addColumn('total_cents', 'bigint', (c) => c.notNull().check(sql`total_cents >= 0`))
      .addColumn('shipping', 'jsonb', (c) => c.notNull())
      .addColumn('payment_method', 'text')
      .addColumn('payment_status', 'text', (c) => c.notNull().defaultTo('none'))
      .addColumn('payment_reference', 'text')
      .addColumn('payment_error', 'text')
      .addColumn('tracking', 'jsonb')
      .addColumn('production_partner', 'text')
      .addColumn('production_reference', 'text')
      .addColumn('handed_off_at', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addColumn('paid_at', 'timestamptz')
      .addColumn('cancelled_at', 'timestamptz')
      .execute();
    // Keyset pages: newest first per tenant, and the same with each filter.
    await db.schema
      .createIndex('orders_page_idx')
      .on('orders')
      .columns(['reseller_id', 'mode', 'created_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('orders_state_idx')
      .on('orders')
      .columns(['reseller_id', 'mode', 'state', 'created_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('orders_status_idx')
      .on('orders')
      .columns(['reseller_id', 'mode', 'status', 'created_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('orders_external_idx')
      .on('orders')
      .columns(['reseller_id', 'mode', 'external_order_id'])
      .execute();
    await sql`create index orders_awaiting_funds_idx on orders (reseller_id, mode, created_at, id) where state = 'AWAITING_FUNDS'`.execute(
      db,
    );
    await sql`create index orders_charging_idx on orders (updated_at) where payment_status = 'charging'`.execute(db);
    await sql`create index orders_handoff_idx on orders (updated_at) where status = 'PAID' and handed_off_at is null`.execute(
      db,
    );

    await db.schema
      .createTable('order_lines')
      .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('product_id', 'text', (c) => c.notNull())
      .addColumn('reseller_sku', 'text')
      .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
      .addColumn('options', 'jsonb', (c) => c.notNull())
      .addColumn('derived_options', 'jsonb', (c) => c.notNull())
      .addColumn('unit_price', 'text', (c) => c.notNull())
      .addColumn('unit_price_cents', 'bigint', (c) => c.notNull())
      .addColumn('public_net_cents', 'bigint', (c) => c.notNull())
      .addColumn('discount_cents', 'bigint', (c) => c.notNull())
      .addColumn('net_cents', 'bigint', (c) => c.notNull())
      .addColumn('vat_rate', 'text', (c) => c.notNull())
      .addColumn('vat_cents', 'bigint', (c) => c.notNull())
      .addColumn('total_cents', 'bigint', (c) => c.notNull())
      .addColumn('weight_grams', 'integer', (c) => c.notNull())
      .addColumn('file_url', 'text')
      .addColumn('file_type', 'text')
      .addColumn('file_status', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('order_lines_pk', ['order_id', 'line'])
      .execute();

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('reseller_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['reseller_id', 'mode', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_age_idx').on('idempotency_keys').column('created_at').execute();
  },
};
