import { parsePayload } from '@print-api/connector-kit';
import { z } from 'zod';
import type { ShopifyClient } from './shopify-client.ts';

/**
 * The shop's currency and address country: `shop` fields every app may read, so asked with the scopes the shop
 * granted (no publishing scope needed: a store connected for orders only learns them too).
 */
export const SHOP_LOCALE_QUERY = `query ShopLocale {
  shop { currencyCode shopAddress { countryCodeV2 } }
}`;

const answer = z.object({
  shop: z.object({ currencyCode: z.string(), shopAddress: z.object({ countryCodeV2: z.string().nullish() }) }),
});

/** `shop.currencyCode` and `shop.shopAddress.countryCodeV2` (null when the shop has no address country). */
export async function shopifyShopLocale(client: ShopifyClient): Promise<{ currency: string; country: string | null }> {
  const data = parsePayload(answer, await client.graphql<unknown>(SHOP_LOCALE_QUERY), 'Shopify shop');
  return { currency: data.shop.currencyCode.toUpperCase(), country: data.shop.shopAddress.countryCodeV2 ?? null };
}
