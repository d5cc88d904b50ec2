import { parsePayload, type ListingsPage, type StoreListing } from '@print-api/connector-kit';
import { z } from 'zod';
import { LISTINGS_PAGE_SIZE } from './config.ts';
import type { ShopwareClient } from './shopware-client.ts';

const product = z.object({
  id: z.string(),
  parentId: z.string().nullish(),
  productNumber: z.string().nullish(),
  name: z.string().nullish(),
  active: z.boolean().nullish(),
  childCount: z.number().int().nullish(),
  parent: z.object({ name: z.string().nullish(), active: z.boolean().nullish() }).nullish(),
});

/**
 * One page of the catalogue (`POST /api/search/product`, by id, with each variant's parent): every product without
 * variants and every variant (a product with `parentId`), with its product number as the SKU. A product with variants
 * (`childCount` > 0) is not sold itself. A variant inherits what it leaves null (name, active) from its parent, as
 * Shopware does. The ids are those order lines carry as `productId`: the variant's own.
 */
export async function listShopwareListings(client: ShopwareClient, rawCursor: string | null): Promise<ListingsPage> {
  const page = Number(rawCursor ?? '1');
  const rows = await client.search(
    'product',
    {
      page: Number.isSafeInteger(page) && page > 0 ? page : 1,
      limit: LISTINGS_PAGE_SIZE,
      sort: [{ field: 'id', order: 'ASC' }],
      associations: { parent: {} },
      'total-count-mode': 'none',
    },
    'searchProducts',
  );
  const listings: StoreListing[] = [];
  for (const raw of rows) {
    const p = parsePayload(product, raw, 'Shopware product');
    if ((p.childCount ?? 0) > 0) continue;
    const name = p.name ?? p.parent?.name ?? '';
    listings.push({
      externalProductId: p.id,
      externalVariantId: null,
      sku: p.productNumber?.trim() || null,
      title: name.trim() || p.productNumber || `Product ${p.id}`,
      active: (p.active ?? p.parent?.active ?? false) === true,
    });
  }
  return { listings, nextCursor: rows.length >= LISTINGS_PAGE_SIZE ? String(page + 1) : null };
}
