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

/** Looks up a reseller's own SKU (case-insensitive). */
export interface SkuResolver {
  findBySku(resellerId: string, sku: string): Promise<ResellerSkuProduct | undefined>;
}
