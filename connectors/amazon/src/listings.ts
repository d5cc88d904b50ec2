import type { ListingsPage } from '@print-api/connector-kit';
import { z } from 'zod';
import type { SpApi } from './amazon-client.ts';
import { LISTINGS_PAGE_SIZE } from './config.ts';

const searchSchema = z.object({
  numberOfResults: z.number().optional(),
  pagination: z.object({ nextToken: z.string().optional() }).optional(),
  items: z
    .array(
      z
        .object({
          sku: z.string(),
          summaries: z
            .array(
              z
                .object({
                  marketplaceId: z.string(),
                  asin: z.string().optional(),
                  itemName: z.string().optional(),
                  status: z.array(z.string()).default([]),
                })
                .loose(),
            )
            .default([]),
        })
        .loose(),
    )
    .default([]),
});

/**
 * The seller's listings with the Listings Items API (`searchListingsItems`,
 * `GET /listings/2021-08-01/items/{sellerId}`, summaries, 20 a page) in the store's first
 * marketplace: each SKU with its ASIN and title, on sale when `BUYABLE`.
 */
export async function listingsPage(
  api: SpApi,
  sellerId: string,
  marketplaceId: string,
  cursor: string | null,
): Promise<ListingsPage> {
  const page = await api.json(searchSchema, {
    method: 'GET',
    path: `/listings/2021-08-01/items/${encodeURIComponent(sellerId)}`,
    query: {
      marketplaceIds: marketplaceId,
      includedData: 'summaries',
      pageSize: String(LISTINGS_PAGE_SIZE),
      ...(cursor ? { pageToken: cursor } : {}),
    },
    operation: 'searchListingsItems',
  });
  return {
    listings: page.items.map((item) => {
      const summary = item.summaries.find((s) => s.marketplaceId === marketplaceId) ?? item.summaries[0];
      return {
        externalProductId: summary?.asin ?? item.sku,
        externalVariantId: item.sku,
        sku: item.sku.trim() || null,
        title: summary?.itemName ?? item.sku,
        active: summary?.status.includes('BUYABLE') ?? false,
      };
    }),
    nextCursor: page.pagination?.nextToken ?? null,
  };
}
