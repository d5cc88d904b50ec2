/** Examples of this module's bodies: a WooCommerce shop in the Netherlands. */
export const STORE_EXAMPLE = {
  id: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE',
  platform: 'WOOCOMMERCE',
  externalId: 'tulip-prints.example.com',
  name: 'Tulip Prints',
  status: 'connected',
  testMode: false,
  lastPolledAt: '2026-11-25T10:45:00.112Z',
  lastError: null,
  createdAt: '2026-11-25T10:20:41.730Z',
  disconnectedAt: null,
  country: 'NL',
  currency: 'EUR',
  notices: [],
};
export const LINK_EXAMPLE = {
  id: 'lnk_01M89R3A1Y8G2ZK6W4QJ5N7PXB',
  resellerProductId: 'rp_01M89QQTZZ1YGD3FM43WMN96Q2',
  sku: 'BC-CLASSIC-250',
  externalProductId: '412',
  externalVariantId: null,
  discovered: true,
  createdAt: '2026-11-25T10:20:44.019Z',
};
export const INGEST_EXAMPLE = {
  id: 'ing_01M89R4D2F6X8P3K7T5Q9W1NCM',
  externalOrderId: '5087',
  externalName: '#5087',
  status: 'placed',
  orderId: 'ord_01M89R4D9J3V6B2N8K4Q7T1XWS',
  skippedLines: [{ sku: 'GIFT-WRAP', quantity: 1, reason: "SKU 'GIFT-WRAP' is none of your products" }],
  error: null,
  attempts: 1,
  storeUpdatedAt: '2026-11-25T10:51:07.000Z',
  createdAt: '2026-11-25T10:51:08.214Z',
  updatedAt: '2026-11-25T10:51:08.402Z',
};
export const LISTING_EXAMPLE = {
  id: 'lst_01M89R3A0C5T2W8Q6N4K1Z7YHD',
  externalProductId: '412',
  externalVariantId: null,
  sku: 'BC-CLASSIC-250',
  title: 'Business cards, 250 pieces',
  active: true,
  resellerProduct: { id: 'rp_01M89QQTZZ1YGD3FM43WMN96Q2', sku: 'BC-CLASSIC-250' },
  match: { by: 'sku', resellerProduct: { id: 'rp_01M89QQTZZ1YGD3FM43WMN96Q2', sku: 'BC-CLASSIC-250' }, linkId: null },
  seenAt: '2026-11-25T10:45:00.112Z',
};
