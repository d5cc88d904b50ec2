import type { Mode } from '../../kernel/tenant.ts';

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

/** Whose SKUs: a reseller's, in one mode (test and live products are separate). */
export interface SkuOwner {
  resellerId: string;
  mode: Mode;
}

/** Looks up a reseller's own SKUs (case-insensitive), in the caller's mode. */
export interface SkuResolver {
  /** The SKUs' products in one query, by lower-cased SKU (those not found are absent). */
  findBySkus(owner: SkuOwner, skus: string[]): Promise<Map<string, ResellerSkuProduct>>;
}

/** Reseller products already looked up (by lower-cased SKU), handed on so nobody looks them up again. */
export type KnownSkus = ReadonlyMap<string, ResellerSkuProduct>;
