import { parsePayload, type ListingsPage, type StoreListing } from '@print-api/connector-kit';
import { z } from 'zod';
import { LISTINGS_PAGE_SIZE } from './config.ts';
import { text } from './order-mapper.ts';
import { siteCatalog } from './site.ts';
import type { WixClient } from './wix-client.ts';

/** Catalog V1 (`POST /stores-reader/v1/products/query` with `includeVariants`). */
const v1Page = z.object({
  products: z
    .array(
      z.object({
        id: z.string(),
        name: text,
        sku: text,
        visible: z.boolean().nullish(),
        manageVariants: z.boolean().nullish(),
        variants: z
          .array(
            z.object({
              id: z.string(),
              choices: z.record(z.string(), z.string()).nullish(),
              variant: z.object({ sku: text, visible: z.boolean().nullish() }).nullish(),
            }),
          )
          .nullish(),
      }),
    )
    .default([]),
  totalResults: z.number().nullish(),
});

/**
 * Catalog V3's read-only variants (`POST /stores/v3/products/query-variants`, cursor pages): each
 * variant with its product's id, name and visibility. The products query answers no variant data.
 */
const v3Page = z.object({
  variants: z
    .array(
      z.object({
        variantId: z.string(),
        sku: text,
        visible: z.boolean().nullish(),
        optionChoices: z
          .array(z.object({ optionChoiceNames: z.object({ choiceName: text }).nullish() }).loose())
          .nullish(),
        productData: z.object({ productId: z.string(), name: text, visible: z.boolean().nullish() }),
      }),
    )
    .default([]),
  pagingMetadata: z
    .object({ cursors: z.object({ next: z.string().nullish() }).nullish(), hasNext: z.boolean().nullish() })
    .nullish(),
});

const title = (product: string, variant: string) =>
  variant ? `${product || 'Product'} - ${variant}` : product || 'Product';

/**
 * One page of the site's Wix Stores catalogue: every variant with its SKU (a product without
 * options has one variant). A site runs Catalog V1 or V3, never both: the first page asks
 * which (`GET /stores/v3/provision/version`), and the cursor carries the answer (`v1:<offset>`,
 * `v3:<cursor>`). A site without Wix Stores lists nothing. Ids are those order lines carry
 * (`catalogReference.catalogItemId`, `options.variantId`).
 */
export async function listWixListings(client: WixClient, cursor: string | null): Promise<ListingsPage> {
  let version: 'v1' | 'v3';
  let position: string | null = null;
  if (cursor && /^v[13]:/.test(cursor)) {
    version = cursor.slice(0, 2) as 'v1' | 'v3';
    position = cursor.slice(3);
  } else {
    const catalog = await siteCatalog(client);
    if (catalog === 'none') return { listings: [], nextCursor: null };
    version = catalog;
  }
  return version === 'v1' ? v1Listings(client, Number(position ?? 0) || 0) : v3Listings(client, position || null);
}

async function v1Listings(client: WixClient, offset: number): Promise<ListingsPage> {
  const raw = await client.call<unknown>('queryProducts', 'POST', '/stores-reader/v1/products/query', {
    query: { paging: { limit: LISTINGS_PAGE_SIZE, offset } },
    includeVariants: true,
  });
  const page = parsePayload(v1Page, raw, 'Wix products (catalog V1)');
  const listings: StoreListing[] = [];
  for (const p of page.products) {
    const variants = p.variants?.length
      ? p.variants
      : [{ id: null as string | null, choices: null, variant: { sku: p.sku, visible: p.visible } }];
    for (const v of variants) {
      const choice = p.manageVariants && v.choices ? Object.values(v.choices).join(' / ') : '';
      listings.push({
        externalProductId: p.id,
        externalVariantId: v.id,
        sku: v.variant?.sku || (variants.length === 1 ? p.sku : '') || null,
        title: title(p.name, choice),
        active: p.visible !== false && v.variant?.visible !== false,
      });
    }
  }
  const read = offset + page.products.length;
  const more =
    page.products.length === LISTINGS_PAGE_SIZE &&
    (page.totalResults === null || page.totalResults === undefined || read < page.totalResults);
  return { listings, nextCursor: more ? `v1:${read}` : null };
}

async function v3Listings(client: WixClient, cursor: string | null): Promise<ListingsPage> {
  const query = { cursorPaging: { limit: LISTINGS_PAGE_SIZE, ...(cursor ? { cursor } : {}) } };
  const raw = await client.call<unknown>('queryVariants', 'POST', '/stores/v3/products/query-variants', { query });
  const page = parsePayload(v3Page, raw, 'Wix variants (catalog V3)');
  const listings: StoreListing[] = page.variants.map((v) => ({
    externalProductId: v.productData.productId,
    externalVariantId: v.variantId,
    sku: v.sku || null,
    title: title(
      v.productData.name,
      (v.optionChoices ?? [])
        .map((c) => c.optionChoiceNames?.choiceName)
        .filter(Boolean)
        .join(' / '),
    ),
    active: v.productData.visible !== false && v.visible !== false,
  }));
  const next = page.pagingMetadata?.hasNext !== false ? page.pagingMetadata?.cursors?.next : null;
  return { listings, nextCursor: next ? `v3:${next}` : null };
}
