import { ConnectorError, parsePayload, type ListingsPage, type StoreListing } from '@print-api/connector-kit';
import { z } from 'zod';
import { LISTINGS_SCOPE, PAGE_SIZE } from './config.ts';
import type { EtsyClient } from './etsy-client.ts';

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const inventoryProduct = z.object({
  product_id: id,
  sku: z.string().nullish(),
  is_deleted: z.boolean().nullish(),
  property_values: z
    .array(z.object({ property_name: z.string().nullish(), values: z.array(z.string()).nullish() }))
    .nullish(),
});
const listing = z.object({
  listing_id: id,
  title: z.string().nullish(),
  state: z.string().nullish(),
  skus: z.array(z.string()).nullish(),
  inventory: z.object({ products: z.array(inventoryProduct) }).nullish(),
});
const listingsPage = z.object({ count: z.number().int().nonnegative().optional(), results: z.array(listing) });

/** What a store whose grant lacks listings_r shows, and how to mend it. */
export const LISTINGS_NOT_GRANTED = `Etsy does not let us read this shop's listings: the shop was connected without the ${LISTINGS_SCOPE} permission, so SKUs it only lists are not linked or guarded until an order arrives. Reconnect the shop: open a new Etsy install link (POST /stores/install-links {"platform": "ETSY"}, or Connect a store > Etsy on the dashboard) and approve on Etsy; the store keeps its orders and history`;

/**
 * One page of the shop's active listings with their inventory (`includes=Inventory`: one call
 * a page): each inventory product (a variation: size, colour…) is a listing with its SKU and
 * the ids a receipt's transactions carry (`listing_id`, `product_id`). Offset paging, oldest first.
 */
export async function listEtsyListings(
  client: EtsyClient,
  shopId: string,
  cursor: string | null,
): Promise<ListingsPage> {
  const offset = cursor === null ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0)
    throw new ConnectorError('invalid_payload', `not an Etsy listings cursor: ${cursor}`);
  let body: unknown;
  try {
    body = await client.call({
      method: 'GET',
      path: `/shops/${shopId}/listings`,
      query: {
        state: 'active',
        includes: 'Inventory',
        sort_on: 'created',
        sort_order: 'asc',
        limit: PAGE_SIZE,
        offset,
      },
      operation: 'getListingsByShop',
    });
  } catch (err) {
    // getListingsByShop needs listings_r: a grant without it is refused with 403, listing after listing, until the
    // merchant reconnects.
    if (err instanceof ConnectorError && err.status === 403 && err.kind === 'auth')
      throw new ConnectorError('auth', `${LISTINGS_NOT_GRANTED} (Etsy: ${err.message})`, { status: 403 });
    throw err;
  }
  const page = parsePayload(listingsPage, body, 'Etsy listings');
  const listings: StoreListing[] = page.results.flatMap((l): StoreListing[] => {
    const title = l.title?.trim() || `Listing ${l.listing_id}`;
    const active = (l.state ?? 'active') === 'active';
    const products = (l.inventory?.products ?? []).filter((p) => !p.is_deleted);
    if (products.length === 0)
      return [
        { externalProductId: l.listing_id, externalVariantId: null, sku: l.skus?.[0]?.trim() || null, title, active },
      ];
    return products.map((p) => {
      const options = (p.property_values ?? []).flatMap((v) => v.values ?? []).filter(Boolean);
      return {
        externalProductId: l.listing_id,
        externalVariantId: p.product_id,
        sku: p.sku?.trim() || null,
        title: options.length > 0 ? `${title} - ${options.join(' / ')}` : title,
        active,
      };
    });
  });
  const more = page.count !== undefined ? offset + page.results.length < page.count : page.results.length === PAGE_SIZE;
  return { listings, nextCursor: more && page.results.length > 0 ? String(offset + page.results.length) : null };
}
