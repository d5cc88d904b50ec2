/**
 * The platform a store lives on, in upper snake case (`SHOPIFY`, `TIKTOK_SHOP`): also the order
 * `source` it produces. The list is open: it is whatever connectors are loaded.
 */
export type StorePlatform = string;

/** One line of a store order, as the platform sold it. */
export interface StoreOrderLine {
  /** The platform's line id (when it has one). */
  externalLineId: string | null;
  /** The merchant's SKU; null or empty means "not a print item". */
  sku: string | null;
  quantity: number;
  title?: string | undefined;
  externalProductId?: string | null | undefined;
  externalVariantId?: string | null | undefined;
}

/** The shipping address, mapped to our Recipient fields. */
export interface StoreRecipient {
  name: string;
  /** The company on the address, where the platform has one. */
  company?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  address1: string;
  address2?: string | undefined;
  postalCode: string;
  city: string;
  /**
   * Province, state or region: the ISO 3166-2 subdivision code without the country prefix
   * when the platform gives or implies one (Wix `IT-MI` -> `MI`), else as the platform wrote it.
   */
  state?: string | undefined;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/**
 * A platform order, normalised. The pipeline turns it into a print order (through the
 * reseller's SKUs) once it is paid, and cancels ours when it is cancelled.
 */
export interface StoreOrder {
  /** The platform's order id: becomes `externalOrderId`. */
  externalId: string;
  /** The human order name/number (#1001). */
  name?: string | undefined;
  paid: boolean;
  cancelled: boolean;
  createdAt: string;
  /** The platform's last-modified time: an older copy never overwrites a newer one. */
  updatedAt: string;
  lines: StoreOrderLine[];
  recipient: StoreRecipient | null;
  /**
   * Why none of this order is ours to print although it may sell our SKUs (the platform ships
   * it itself: TikTok's own logistics, Amazon's FBA). Recorded as `no_print_lines`, every line
   * skipped with this reason; never placed.
   */
  notForPrint?: string | undefined;
  /**
   * Why `recipient` is null, when the platform withholds the address (Etsy shares it with
   * approved apps only, Amazon behind a restricted-data token): the order is recorded as
   * waiting for its address with this reason, never placed without one.
   */
  recipientMissing?: string | undefined;
}

/** Tracking pushed back to the store when our order ships. */
export interface Shipment {
  externalOrderId: string;
  carrier: string;
  trackingNumber: string;
  trackingUrl: string;
  /** The store lines this shipment covers (the print lines of the order). */
  lines: Array<{ externalLineId: string | null; sku: string | null; quantity: number }>;
}

/**
 * One sellable item of the store's catalogue: a product variant (or a product without
 * variants), with the merchant's SKU. Its ids are the ones the platform's order lines carry
 * (`StoreOrderLine.externalProductId` / `externalVariantId`), so a listing and the lines that
 * sell it name the same thing.
 */
export interface StoreListing {
  externalProductId: string;
  /** The variant's id; null for a product sold without variants. */
  externalVariantId: string | null;
  /** The merchant's SKU; null or empty when the listing has none (never a print item). */
  sku: string | null;
  /** The product's title, with the variant's when it has one ("Poster - A3"). */
  title: string;
  /** Whether the store sells it now (published, not a draft or archived). */
  active: boolean;
}

/** One page of listings and where the next begins (null: this was the last page). */
export interface ListingsPage {
  listings: StoreListing[];
  nextCursor: string | null;
}
