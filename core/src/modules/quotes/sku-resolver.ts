/** What a quote or order line needs of a reseller product (the reseller-products module implements it). */
export interface ResellerSkuProduct {
  /** The reseller product's id. */
  id: string;
  sku: string;
  productId: string;
  options: Record<string, string | number>;
  fileUrl: string | null;
  active: boolean;
}

/** Looks up a reseller's own SKUs (case-insensitive). */
export interface SkuResolver {
  findBySku(resellerId: string, sku: string): Promise<ResellerSkuProduct | undefined>;
  /** Several SKUs in one query: the products found, by lower-cased SKU. */
  findBySkus(resellerId: string, skus: string[]): Promise<Map<string, ResellerSkuProduct>>;
}

/** Reseller products already looked up (by lower-cased SKU), handed on so nobody looks them up again. */
export type KnownSkus = ReadonlyMap<string, ResellerSkuProduct>;
