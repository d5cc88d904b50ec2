import type { ListingsPage } from '@print-api/connector-kit';
import { z } from 'zod';
import { PRODUCTS_PAGE_SIZE, STATUS_ENABLED } from './config.ts';
import { searchQuery, type MagentoClient } from './magento-client.ts';

export const productSchema = z.object({
  id: z.number().int(),
  sku: z.string(),
  name: z.string().nullish(),
  status: z.number().int().nullish(),
  type_id: z.string().nullish(),
});
export type MagentoProduct = z.infer<typeof productSchema>;

/** `catalog-data-product-search-results-interface`. */
export const productsPage = z.object({ items: z.array(productSchema).nullish(), total_count: z.number().int() });

/**
 * One page of `GET /V1/products` (every product, by `entity_id`): each product is a listing with its own id and SKU
 * (a configurable's children are products of their own, the ids their order items carry), on sale when enabled
 * (`status` 1). The cursor is the next page's number; the last page is known from `total_count` (a page past it
 * answers the last page again).
 */
export async function listMagentoListings(client: MagentoClient, cursor: string | null): Promise<ListingsPage> {
  const currentPage = Math.max(1, Number.parseInt(cursor ?? '1', 10) || 1);
  const page = (await client.json(productsPage, {
    method: 'GET',
    path: '/products',
    query: searchQuery({ sortOrders: [['entity_id', 'ASC']], pageSize: PRODUCTS_PAGE_SIZE, currentPage }),
    operation: 'searchProducts',
  }))!;
  const items = page.items ?? [];
  return {
    listings: items.map((p) => ({
      externalProductId: String(p.id),
      externalVariantId: null,
      sku: p.sku.trim() || null,
      title: p.name?.trim() || p.sku,
      active: p.status === STATUS_ENABLED,
    })),
    nextCursor:
      items.length > 0 && currentPage * PRODUCTS_PAGE_SIZE < page.total_count ? String(currentPage + 1) : null,
  };
}
