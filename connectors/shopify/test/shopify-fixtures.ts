import orderFixture from './fixtures/order.json' with { type: 'json' };
import type { ShopifyOrderJson } from './fake-shopify-store.ts';

/** The documented orders/create payload (paid), with overrides. */
export function shopifyOrder(over: Partial<ShopifyOrderJson> = {}): ShopifyOrderJson {
  return { ...structuredClone(orderFixture), ...over } as ShopifyOrderJson;
}

/** The same order before payment (`orders/create` of a bank transfer checkout). */
export function unpaidOrder(over: Partial<ShopifyOrderJson> = {}): ShopifyOrderJson {
  return shopifyOrder({
    financial_status: 'pending',
    payment_gateway_names: ['Bank Deposit'],
    total_outstanding: '61.80',
    ...over,
  });
}

/** A copy changed at `updatedAt` (every Shopify edit bumps `updated_at`). */
export function updatedAt<T extends { updated_at: string }>(order: T, iso: string): T {
  return { ...order, updated_at: iso };
}

/** The order as the store cancelled it (`orders/cancelled`). */
export function cancelledOrder(at: string): ShopifyOrderJson {
  return shopifyOrder({ cancelled_at: at, cancel_reason: 'customer', financial_status: 'refunded', updated_at: at });
}
