import { parsePayload, type ListingsPage, type StoreListing } from '@print-api/connector-kit';
import { z } from 'zod';
import type { WooCommerceClient } from './woocommerce-client.ts';

/** Products (and variations) per page: WooCommerce's maximum. */
export const LISTINGS_PAGE_SIZE = 100;

const id = z.union([z.number(), z.string()]).transform(String);
const product = z.object({
  id,
  name: z.string().nullish(),
  type: z.string().nullish(),
  status: z.string().nullish(),
  sku: z.string().nullish(),
});
const variation = z.object({
  id,
  sku: z.string().nullish(),
  status: z.string().nullish(),
  attributes: z.array(z.object({ option: z.string().nullish() })).nullish(),
});

/** A variable product whose variations are still to be read: id, title, and whether the product is published. */
type Pending = [productId: string, title: string, published: boolean];

/**
 * Where a listings run stands: the next products page, the variable products of the pages read
 * whose variations are still to be read, and the next page of the first one's variations.
 */
const cursorSchema = z.object({
  p: z.number().int().min(0),
  pending: z.array(z.tuple([z.string(), z.string(), z.boolean()])),
  vp: z.number().int().min(1),
});
type Cursor = z.infer<typeof cursorSchema>;

function readCursor(raw: string | null): Cursor | null {
  if (!raw) return null;
  try {
    return cursorSchema.parse(JSON.parse(raw));
  } catch {
    return null;
  }
}

/**
 * One call to the store per page: a page of `/products` (simple products are listings; a
 * variable product's variations are read next, from `/products/<id>/variations`), or a page of
 * one variable product's variations. Ids are those the order lines carry: `product_id`, and
 * `variation_id` for a variation (none for a simple product). On sale: `status` `publish`
 * (the product's and the variation's).
 */
export async function listWooListings(client: WooCommerceClient, rawCursor: string | null): Promise<ListingsPage> {
  const at = readCursor(rawCursor) ?? { p: 1, pending: [], vp: 1 };
  const listings: StoreListing[] = [];
  const first = at.pending[0];
  if (first) {
    const [productId, title, published] = first;
    const { items, totalPages } = await client.listVariations(productId, at.vp, LISTINGS_PAGE_SIZE);
    for (const raw of items) {
      const v = parsePayload(variation, raw, 'WooCommerce variation');
      const options = (v.attributes ?? []).flatMap((a) => (a.option?.trim() ? [a.option.trim()] : []));
      listings.push({
        externalProductId: productId,
        externalVariantId: v.id,
        sku: v.sku?.trim() || null,
        title: options.length ? `${title} - ${options.join(', ')}` : title,
        active: published && v.status === 'publish',
      });
    }
    const next: Cursor =
      at.vp < totalPages && items.length > 0
        ? { ...at, vp: at.vp + 1 }
        : { ...at, pending: at.pending.slice(1), vp: 1 };
    return { listings, nextCursor: encode(next) };
  }
  if (at.p === 0) return { listings, nextCursor: null };
  const { items, totalPages } = await client.listProducts(at.p, LISTINGS_PAGE_SIZE);
  const pending: Pending[] = [];
  for (const raw of items) {
    const p = parsePayload(product, raw, 'WooCommerce product');
    const title = p.name?.trim() || `Product ${p.id}`;
    if (p.type === 'variable') {
      pending.push([p.id, title, p.status === 'publish']);
      continue;
    }
    listings.push({
      externalProductId: p.id,
      externalVariantId: null,
      sku: p.sku?.trim() || null,
      title,
      active: p.status === 'publish',
    });
  }
  // p = 0: every products page read (only the variations of `pending` remain).
  const next: Cursor = { p: at.p < totalPages && items.length > 0 ? at.p + 1 : 0, pending, vp: 1 };
  return { listings, nextCursor: encode(next) };
}

/** Null once every products page and every variation has been read. */
const encode = (c: Cursor): string | null => (c.p === 0 && c.pending.length === 0 ? null : JSON.stringify(c));
