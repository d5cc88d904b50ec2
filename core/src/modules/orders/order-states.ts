/** Reseller order state (spec §3). */
export const ORDER_STATES = ['AWAITING_FUNDS', 'AWAITING_FILE', 'PAYMENT_FAILED', 'SUBMITTED', 'CANCELLED'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Production status (spec §3). */
export const ORDER_STATUSES = ['PENDING', 'PAID', 'PROCESSING', 'PRINTING', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'REFUNDED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_SOURCES = ['API', 'DASHBOARD', 'SHOPIFY', 'WOOCOMMERCE', 'ETSY', 'WIX', 'TIKTOK_SHOP', 'AMAZON'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

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
