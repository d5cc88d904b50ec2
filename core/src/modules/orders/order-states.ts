/** Reseller order state (spec §3). */
export const ORDER_STATES = ['AWAITING_FUNDS', 'AWAITING_FILE', 'PAYMENT_FAILED', 'SUBMITTED', 'CANCELLED'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Production status (spec §3). */
export const ORDER_STATUSES = [
  'PENDING',
  'PAID',
  'PROCESSING',
  'PRINTING',
  'SHIPPED',
  'DELIVERED',
  'CANCELLED',
  'REFUNDED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Order sources the spec names (§2): the API's own (`API`, `DASHBOARD`) and the store platforms
 * it lists, with those of the connectors shipped since (`EBAY`). These stay valid whether or not
 * their connector is loaded; every loaded connector's platform is a source too (`orderSources`),
 * so the list is open.
 */
export const ORDER_SOURCES = [
  'API',
  'DASHBOARD',
  'SHOPIFY',
  'WOOCOMMERCE',
  'ETSY',
  'WIX',
  'TIKTOK_SHOP',
  'AMAZON',
  'EBAY',
] as const;
/** `API`, `DASHBOARD` or a store platform (a loaded connector's `platform`). */
export type OrderSource = string;

/** The `source` values of this service: the spec's and the loaded connectors' platforms. */
export function orderSources(platforms: readonly string[]): [string, ...string[]] {
  return [...new Set<string>([...ORDER_SOURCES, ...platforms])] as [string, ...string[]];
}

/** Event kinds of spec §6. */
export const EVENT_TYPES = [
  'order.created',
  'order.submitted',
  'order.awaiting_funds',
  'order.payment_failed',
  'order.in_production',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.file_problem',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
