import type { ResellerSkuProduct, SkuOwner, SkuResolver } from '../../quotes/sku-resolver.ts';
import type { Db } from '../../tables.ts';

/** SKUs asked of the reseller products per call. */
const SKUS_PER_CALL = 1000;

/** Where the stores module finds the reseller's products by SKU (the reseller products' service). */
export type ProductsBySku = Pick<SkuResolver, 'findBySkus'>;

/**
 * The reseller's products (of the owner's mode) among `skuKeys` (lower-cased SKUs), by key: one call per SKUS_PER_CALL.
 */
export async function productsBySkuKey(
  products: ProductsBySku,
  owner: SkuOwner,
  skuKeys: Iterable<string | null>,
): Promise<Map<string, ResellerSkuProduct>> {
  const keys = [...new Set([...skuKeys].filter((k): k is string => k !== null))];
  const found = new Map<string, ResellerSkuProduct>();
  for (let i = 0; i < keys.length; i += SKUS_PER_CALL) {
    for (const [key, product] of await products.findBySkus(owner, keys.slice(i, i + SKUS_PER_CALL)))
      found.set(key, product);
  }
  return found;
}

/** The SKU keys of a store's listings that are products of the store's reseller and mode. */
export async function matchedSkuKeys(
  db: Db,
  products: ProductsBySku,
  store: { id: string; reseller_id: string; mode: SkuOwner['mode'] },
): Promise<string[]> {
  const listed = await db
    .selectFrom('store_listings')
    .select('sku_key')
    .distinct()
    .where('store_id', '=', store.id)
    .where('sku_key', 'is not', null)
    .execute();
  return [
    ...(
      await productsBySkuKey(
        products,
        { resellerId: store.reseller_id, mode: store.mode },
        listed.map((l) => l.sku_key),
      )
    ).keys(),
  ];
}
