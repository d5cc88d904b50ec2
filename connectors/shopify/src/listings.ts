import { parsePayload, type ListingsPage, type StoreListing } from '@print-api/connector-kit';
import { z } from 'zod';
import { LISTINGS_PAGE_SIZE } from './config.ts';
import type { ShopifyClient } from './shopify-client.ts';

/**
 * Every variant of the shop (a product without options has one, "Default Title"), oldest id
 * first, with cursor pages. Ids are the numeric `legacyResourceId`s the order lines carry.
 */
export const VARIANTS_QUERY = `query ProductVariantsPage($first: Int!, $after: String) {
  productVariants(first: $first, after: $after, sortKey: ID) {
    pageInfo { hasNextPage endCursor }
    nodes { id legacyResourceId sku title product { id legacyResourceId title status } }
  }
}`;

const id = z.union([z.string(), z.number()]).transform(String);
const variantsPage = z.object({
  productVariants: z.object({
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullish() }),
    nodes: z.array(
      z.object({
        legacyResourceId: id,
        sku: z.string().nullish(),
        title: z.string().nullish(),
        product: z.object({ legacyResourceId: id, title: z.string().nullish(), status: z.string().nullish() }),
      }),
    ),
  }),
});

/** Shopify names the only variant of a product without options "Default Title": not worth showing. */
const DEFAULT_VARIANT_TITLE = 'Default Title';

/** One page of the shop's variants as listings (on sale: the product's status is ACTIVE, not DRAFT or ARCHIVED). */
export async function listShopifyListings(client: ShopifyClient, cursor: string | null): Promise<ListingsPage> {
  const data = parsePayload(
    variantsPage,
    await client.graphql<unknown>(VARIANTS_QUERY, { first: LISTINGS_PAGE_SIZE, after: cursor }),
    'Shopify productVariants',
  );
  const listings: StoreListing[] = data.productVariants.nodes.map((v) => {
    const productTitle = v.product.title?.trim() || `Product ${v.product.legacyResourceId}`;
    const variantTitle = v.title?.trim();
    return {
      externalProductId: v.product.legacyResourceId,
      externalVariantId: v.legacyResourceId,
      sku: v.sku?.trim() || null,
      title:
        variantTitle && variantTitle !== DEFAULT_VARIANT_TITLE ? `${productTitle} - ${variantTitle}` : productTitle,
      active: v.product.status === 'ACTIVE',
    };
  });
  const { hasNextPage, endCursor } = data.productVariants.pageInfo;
  return { listings, nextCursor: hasNextPage && endCursor ? endCursor : null };
}
