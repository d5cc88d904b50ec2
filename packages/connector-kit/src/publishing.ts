// What a connector with `capabilities.publishing` creates in a store and answers (see Connector.publishListing).

/** A product to create in a store: one variant carrying the reseller product's SKU. */
export interface ListingDraft {
  sku: string;
  title: string;
  description?: string | undefined;
  /** The merchant's retail price, in minor units of `currency`. */
  priceCents: number;
  /** ISO 4217, upper case: the store's currency. */
  currency: string;
  /**
   * Public https image URLs, already checked by core's SSRF guard: the platform fetches them, or, where it takes
   * files (Etsy), the connector downloads them through `ctx.http.download` and uploads the bytes.
   */
  imageUrls: string[];
  /** false: created as a draft (not on sale). */
  published: boolean;
  /**
   * Per-platform extras the merchant gave (Etsy: `taxonomyId`, `shippingProfileId`, `whoMade`…), checked by the
   * connector.
   */
  platformOptions?: Record<string, unknown> | undefined;
}

/** A product made by `publishListing`, as the platform holds it. */
export interface PublishedListing {
  externalProductId: string;
  /** Null where the product has no variant id of its own. */
  externalVariantId: string | null;
  /** `active`: on sale; `draft`: created, not on sale; `pending`: the platform is still creating it. */
  status: 'active' | 'draft' | 'pending';
  /** The product's page in the store or the merchant's admin, when known. */
  url?: string | undefined;
  /** Something the merchant must know ("Etsy keeps it a draft: it has no shipping profile"). */
  notice?: string | undefined;
}

export interface ListingRef {
  externalProductId: string;
  externalVariantId: string | null;
}

export interface ListingChanges {
  title?: string | undefined;
  priceCents?: number | undefined;
  currency?: string | undefined;
  published?: boolean | undefined;
}
