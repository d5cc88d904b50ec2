import type { Selectable } from 'kysely';
import type { StorePublicationsTable } from './store-publications-tables.ts';

/** A published listing (or the intent of one) as `store_publications` holds it. */
export type PublicationRow = Selectable<StorePublicationsTable>;

/** The notice of an intent whose call got no answer: the next request recovers it at once. */
export const INTERRUPTED = 'interrupted';

/**
 * A product page as a platform gave it (a WooCommerce permalink…), kept and shown only when it is an http(s) URL: a
 * `javascript:` or `data:` one would run in the dashboard's link.
 */
export function webUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

export type PublicationView = ReturnType<typeof publicationView>;

export function publicationView(row: PublicationRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    resellerProduct: { id: row.reseller_product_id, sku: row.sku },
    title: row.title,
    priceCents: row.price_cents,
    currency: row.currency,
    status: row.status,
    externalProductId: row.external_product_id,
    externalVariantId: row.external_variant_id,
    url: webUrl(row.url),
    notice:
      row.notice === INTERRUPTED
        ? 'The platform did not answer: publishing again looks for the product first, so it is never created twice.'
        : row.notice,
    matchedBy: 'sku' as const,
    linkId: row.link_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
