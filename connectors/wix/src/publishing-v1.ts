import {
  ConnectorError,
  parsePayload,
  type ListingChanges,
  type ListingDraft,
  type ListingRef,
  type PublishedListing,
} from '@print-api/connector-kit';
import { z } from 'zod';
import { priceIn } from './site.ts';
import type { WixClient } from './wix-client.ts';

/** The only variant of a Catalog V1 product without options (`manageVariants: false`): what its order lines carry. */
export const DEFAULT_VARIANT_ID = '00000000-0000-0000-0000-000000000000';

const productAnswer = z.object({
  product: z.object({
    id: z.string(),
    visible: z.boolean().nullish(),
    variants: z.array(z.object({ id: z.string() })).nullish(),
    productPageUrl: z.object({ base: z.string().nullish(), path: z.string().nullish() }).nullish(),
  }),
});
type WixProduct = z.infer<typeof productAnswer>['product'];

const productPath = (id: string) => `/stores/v1/products/${encodeURIComponent(id)}`;

/** A V1 price: a JSON number whose shortest form is the decimal string's digits (24.95 -> 24.95). */
const v1Price = async (client: WixClient, priceCents: number, currency: string | undefined) =>
  Number(await priceIn(client, priceCents, currency));

function listingOf(p: WixProduct, visible: boolean): PublishedListing {
  const page =
    p.productPageUrl?.base && p.productPageUrl.path
      ? `${p.productPageUrl.base.replace(/\/$/, '')}${p.productPageUrl.path}`
      : undefined;
  return {
    externalProductId: p.id,
    externalVariantId: p.variants?.[0]?.id ?? DEFAULT_VARIANT_ID,
    status: visible ? 'active' : 'draft',
    ...(page ? { url: page } : {}),
  };
}

/**
 * Creates a physical Catalog V1 product carrying the SKU and the price (`priceData.price`, in
 * the site's currency), visible or hidden, then adds the images by URL (Wix fetches them into
 * its media manager: `POST /stores/v1/products/{id}/media`).
 */
export async function publishV1(client: WixClient, draft: ListingDraft): Promise<PublishedListing> {
  const price = await v1Price(client, draft.priceCents, draft.currency);
  const product = {
    name: draft.title,
    productType: 'physical',
    sku: draft.sku,
    visible: draft.published,
    priceData: { price },
    ...(draft.description ? { description: draft.description } : {}),
  };
  const made = parsePayload(
    productAnswer,
    await client.call<unknown>('createProduct', 'POST', '/stores/v1/products', { product }),
    'Wix createProduct',
  ).product;
  if (draft.imageUrls.length) {
    await client.call('addProductMedia', 'POST', `${productPath(made.id)}/media`, {
      media: draft.imageUrls.map((url) => ({ url })),
    });
  }
  return listingOf(made, draft.published);
}

/** Name, price and visibility with `PATCH /stores/v1/products/{id}` (only the fields given change). */
export async function updateV1(client: WixClient, ref: ListingRef, changes: ListingChanges): Promise<PublishedListing> {
  const product: Record<string, unknown> = {};
  if (changes.title !== undefined) product.name = changes.title;
  if (changes.published !== undefined) product.visible = changes.published;
  if (changes.priceCents !== undefined)
    product.priceData = { price: await v1Price(client, changes.priceCents, changes.currency) };
  const updated = parsePayload(
    productAnswer,
    await client.call<unknown>('updateProduct', 'PATCH', productPath(ref.externalProductId), { product }),
    'Wix updateProduct',
  ).product;
  return listingOf(updated, updated.visible !== false);
}

/** Hides the product (`visible: false`); a product already deleted (404) is not an error. */
export async function hideV1(client: WixClient, ref: ListingRef): Promise<void> {
  try {
    await client.call('updateProduct', 'PATCH', productPath(ref.externalProductId), { product: { visible: false } });
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return;
    throw err;
  }
}
