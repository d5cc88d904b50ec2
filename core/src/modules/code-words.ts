import type { ActorType } from './audit/audit-tables.ts';
import type { LedgerKind } from './wallet/wallet-tables.ts';
import type { PaymentStatus, FileStatus } from './orders/orders-tables.ts';
import type { EventType, OrderState, OrderStatus } from './orders/order-states.ts';
import type { INGEST_STATUSES } from './stores/stores-schemas.ts';
import type { StoreFlag } from './stores/health/store-health.ts';
import type { StorePublicationsTable } from './stores/catalogue/store-publications-tables.ts';
import type { DeliveryStatus } from './webhooks/webhooks-tables.ts';
import type { STORE_EVENT_TYPES } from './webhooks/webhook-event-types.ts';

/**
 * The codes of the API (order states and statuses, payment statuses, event types, …) in words,
 * for the pages people read: the dashboard is read by merchants, the console by operators, and
 * neither should have to know that `AWAITING_FILE` means "Waiting for the print file". One table
 * per enum, typed by it, so that a new value cannot be added without its words. The code stays
 * where it is a value (a filter's option value, a data attribute, a URL); platforms are named by
 * their connectors (`platformNamer`).
 */

export const ORDER_STATE_WORDS: Record<OrderState, string> = {
  AWAITING_FUNDS: 'Waiting for funds',
  AWAITING_FILE: 'Waiting for the print file',
  PAYMENT_FAILED: 'Payment failed',
  SUBMITTED: 'Sent to production',
  CANCELLED: 'Cancelled',
};

export const ORDER_STATUS_WORDS: Record<OrderStatus, string> = {
  PENDING: 'Not started',
  PAID: 'Paid, waiting for production',
  PROCESSING: 'In production',
  PRINTING: 'Printing',
  SHIPPED: 'Shipped',
  DELIVERED: 'Delivered',
  CANCELLED: 'Cancelled',
  REFUNDED: 'Refunded',
};

type PublicationStatus = StorePublicationsTable['status'];
type StoreEventType = (typeof STORE_EVENT_TYPES)[number];

/** Event types, as a timeline says them (`ping` is the webhooks page's test event). */
export const EVENT_TYPE_WORDS: Record<EventType | StoreEventType | 'ping' | '*', string> = {
  'order.created': 'Order received',
  'order.submitted': 'Sent to production',
  'order.awaiting_funds': 'Waiting for funds',
  'order.payment_failed': 'Payment failed',
  'order.in_production': 'In production',
  'order.shipped': 'Shipped',
  'order.delivered': 'Delivered',
  'order.cancelled': 'Cancelled',
  'order.file_problem': 'Problem with a print file',
  'store.order_skipped': 'Store order skipped',
  ping: 'Test event',
  '*': 'All events',
};

/** An order's payment status (without how it was paid: see `paymentWords`). */
export const PAYMENT_STATUS_WORDS: Record<PaymentStatus, string> = {
  none: 'Not paid yet',
  charging: 'Card being charged',
  paid: 'Paid',
  declined: 'Card declined',
  refunded: 'Refunded to the wallet',
  not_charged: 'Not charged',
};

export const FILE_STATUS_WORDS: Record<FileStatus, string> = {
  ok: 'Checked',
  needs_conversion: 'Needs conversion',
  missing: 'Missing',
};

export const INGEST_STATUS_WORDS: Record<(typeof INGEST_STATUSES)[number], string> = {
  received: 'Received',
  placed: 'Placed',
  waiting_payment: 'Waiting for payment',
  waiting_address: 'Waiting for the address',
  no_print_lines: 'Skipped',
  cancelled: 'Cancelled',
  failed: 'Failed',
  redacted: 'Erased',
};

/** A product published to a store, and a sandbox store's listing (`active` is on sale). */
export const PUBLICATION_STATUS_WORDS: Record<PublicationStatus, string> = {
  publishing: 'Being published',
  pending: 'Waiting for the platform',
  active: 'On sale',
  draft: 'Draft (off sale)',
};

export const LEDGER_KIND_WORDS: Record<LedgerKind, string> = {
  top_up: 'Top-up',
  order_payment: 'Order payment',
  order_refund: 'Order refund',
  adjustment: 'Adjustment',
};

export const DELIVERY_STATUS_WORDS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const STORE_FLAG_WORDS: Record<StoreFlag, string> = {
  ingest_lag: 'Falling behind',
  error_rate: 'Orders failing',
  webhooks_stopped: 'Webhooks stopped',
  platform_error: 'Platform error',
  token_expiring: 'Credentials expiring',
};

/** Who did something, in the audit trail; and what it was done to (target types not listed read as words). */
export const ACTOR_TYPE_WORDS: Record<ActorType, string> = {
  operator: 'Operator',
  operator_token: 'Operator token',
  admin_token: 'Admin token',
  api_key: 'API key',
  system: 'The service',
};

export const TARGET_TYPE_WORDS: Record<string, string> = {
  api_key: 'API key',
  audit_log: 'Audit log',
  console: 'Console',
  operator_token: 'Operator token',
  order: 'Order',
  reseller: 'Reseller',
};

/** Where an order came from, besides the store platforms (named by their connectors). */
const SOURCE_WORDS: Record<string, string> = { API: 'API', DASHBOARD: 'Dashboard' };

/**
 * A code in words: its table's words, else the code itself made readable (`SOME_NEW_CODE` →
 * "Some new code"), so that a code the table does not know yet (an older row, a newer API)
 * still reads as words rather than as a code.
 */
export function inWords<K extends string>(table: Record<K, string>, code: string): string {
  return (table as Record<string, string>)[code] ?? readable(code);
}

/** `TIKTOK_SHOP` → "Tiktok shop", `waiting_address` → "Waiting address", `order.shipped` → "Order shipped". */
function readable(code: string): string {
  const words = code
    .replace(/[._-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A platform's (or order source's) display name, from its code. */
export type PlatformName = (code: string) => string;

/**
 * Names platforms as their connectors do (`SHOPIFY` → "Shopify": the manifest's `displayName`,
 * the one list of platforms), the API's own sources in words, and a platform no loaded connector
 * names in readable words.
 */
export function platformNamer(connectors: ReadonlyArray<{ platform: string; displayName: string }>): PlatformName {
  const names = new Map<string, string>(Object.entries(SOURCE_WORDS));
  for (const c of connectors) names.set(c.platform, c.displayName);
  return (code) => names.get(code) ?? readable(code);
}
