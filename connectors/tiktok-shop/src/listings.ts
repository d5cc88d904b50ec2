import { parsePayload, type ListingsPage } from '@print-api/connector-kit';
import { z } from 'zod';
import { API_VERSION, LISTINGS_PAGE_SIZE } from './config.ts';
import type { TikTokClient } from './tiktok-client.ts';

const id = z.union([z.string(), z.number().int().safe().transform(String)]);
const productSchema = z.looseObject({
  id,
  title: z.string().nullish(),
  status: z.string().nullish(),
  skus: z
    .array(
      z.looseObject({
        id,
        seller_sku: z.string().nullish(),
        sales_attributes: z.array(z.looseObject({ value_name: z.string().nullish() })).nullish(),
      }),
    )
    .nullish(),
});

/**
 * One page of the shop's catalogue: `POST /product/202309/products/search` (page tokens), each
 * product's SKUs with their `seller_sku`; a product is on sale when its status is `ACTIVATE`.
 */
export async function listTikTokListings(client: TikTokClient, cursor: string | null): Promise<ListingsPage> {
  const data = await client.call<{ products?: unknown[]; next_page_token?: string | null }>({
    method: 'POST',
    path: `/product/${API_VERSION}/products/search`,
    query: { page_size: String(LISTINGS_PAGE_SIZE), ...(cursor ? { page_token: cursor } : {}) },
    body: {},
    operation: 'searchProducts',
  });
  const products = parsePayload(z.array(productSchema), data.products ?? [], 'TikTok Shop products');
  const listings = products.flatMap((p) =>
    (p.skus ?? []).map((sku) => {
      const variant = (sku.sales_attributes ?? [])
        .map((a) => a.value_name)
        .filter(Boolean)
        .join(' / ');
      return {
        externalProductId: p.id,
        externalVariantId: sku.id,
        sku: sku.seller_sku?.trim() || null,
        title: [p.title ?? '', variant].filter(Boolean).join(' - ') || p.id,
        active: (p.status ?? '').toUpperCase() === 'ACTIVATE',
      };
    }),
  );
  return { listings, nextCursor: products.length > 0 && data.next_page_token ? data.next_page_token : null };
}
