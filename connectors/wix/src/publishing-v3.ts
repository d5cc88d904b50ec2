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

const money = z.object({ amount: z.string().nullish() }).loose();
/** A variant as Get Product answers it; its other fields are carried over untouched when the variants are written. */
const variant = z
  .object({
    id: z.string(),
    price: z.object({ actualPrice: money.nullish(), compareAtPrice: money.nullish() }).loose().nullish(),
  })
  .loose();
type Variant = z.infer<typeof variant>;
const product = z.object({
  id: z.string(),
  // An int64: a JSON string in Wix's REST answers.
  revision: z.union([z.string(), z.number()]).nullish(),
  visible: z.boolean().nullish(),
  // REST's page URL (`{relativePath, url}`, the SDK's `PageUrlV2`), answered when `fields` asks for `URL`.
  url: z.union([z.string(), z.object({ url: z.string().nullish() }).loose()]).nullish(),
  options: z.array(z.unknown()).nullish(),
  variantsInfo: z.object({ variants: z.array(variant).default([]) }).nullish(),
});
type V3Product = z.infer<typeof product>;
const productAnswer = z.object({ product });

const productPath = (id: string) => `/stores/v3/products/${encodeURIComponent(id)}`;
/** Asked of every write so its answer carries the product page's address. */
const FIELDS = ['URL'];
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/**
 * What a variant read carries that a write must not send back: set by Wix (`@readonly` in
 * `@wix/auto_sdk_stores_products-v-3`'s `Variant`).
 */
const READ_ONLY_VARIANT_FIELDS = ['media', 'inventoryStatus', 'subscriptionPricesInfo'];

function listingOf(p: V3Product, variantId: string | null): PublishedListing {
  const url = typeof p.url === 'string' ? p.url : p.url?.url;
  return {
    externalProductId: p.id,
    externalVariantId: variantId ?? p.variantsInfo?.variants[0]?.id ?? null,
    status: p.visible !== false ? 'active' : 'draft',
    ...(url ? { url } : {}),
  };
}

/**
 * Creates a physical Catalog V3 product with its one variant (no options: an empty `choices`)
 * carrying the SKU and the price (`price.actualPrice.amount`, a decimal string in the site's
 * currency), in stock without a count (`inventoryItem.inStock`: printed on demand), the images
 * by URL (Wix fetches them) and the description as HTML (`plainDescription`). `POST
 * /stores/v3/products-with-inventory`: the plain Create Product makes no inventory item, and a
 * variant without one cannot be bought.
 */
export async function publishV3(client: WixClient, draft: ListingDraft): Promise<PublishedListing> {
  const amount = await priceIn(client, draft.priceCents, draft.currency);
  const body = {
    product: {
      name: draft.title,
      productType: 'PHYSICAL',
      visible: draft.published,
      physicalProperties: {},
      ...(draft.description ? { plainDescription: `<p>${escapeHtml(draft.description)}</p>` } : {}),
      ...(draft.imageUrls.length ? { media: { itemsInfo: { items: draft.imageUrls.map((url) => ({ url })) } } } : {}),
      variantsInfo: {
        variants: [
          {
            sku: draft.sku,
            choices: [],
            price: { actualPrice: { amount } },
            physicalProperties: {},
            inventoryItem: { inStock: true },
          },
        ],
      },
    },
    fields: FIELDS,
  };
  const made = parsePayload(
    productAnswer,
    await client.call<unknown>('createProductWithInventory', 'POST', '/stores/v3/products-with-inventory', body),
    'Wix createProductWithInventory',
  ).product;
  return listingOf(made, null);
}

async function getProduct(client: WixClient, id: string): Promise<V3Product> {
  return parsePayload(
    productAnswer,
    await client.call<unknown>('getProductV3', 'GET', productPath(id)),
    'Wix getProduct (catalog V3)',
  ).product;
}

/**
 * `PATCH /stores/v3/products/{id}` with what `change` makes of the product as it stands, and its
 * current `revision` (Wix refuses a write without it, and one whose revision is not the
 * product's: 409). A product saved by someone else between our read and our write is read again
 * once.
 */
async function patchProduct(
  client: WixClient,
  id: string,
  change: (current: V3Product) => Record<string, unknown>,
): Promise<V3Product> {
  for (let attempt = 1; ; attempt++) {
    const current = await getProduct(client, id);
    const body = { product: { id, revision: String(current.revision ?? ''), ...change(current) }, fields: FIELDS };
    try {
      return parsePayload(
        productAnswer,
        await client.call<unknown>('updateProductV3', 'PATCH', productPath(id), body),
        'Wix updateProduct (catalog V3)',
      ).product;
    } catch (err) {
      if (attempt === 1 && err instanceof ConnectorError && err.status === 409) continue;
      throw err;
    }
  }
}

/** A variant to write back as read, its price `amount` when given (its compare-at price kept). */
function variantToWrite(v: Variant, amount: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...v };
  for (const field of READ_ONLY_VARIANT_FIELDS) delete out[field];
  const actual = amount ?? v.price?.actualPrice?.amount;
  const compareAt = v.price?.compareAtPrice?.amount;
  out.price = {
    ...(actual ? { actualPrice: { amount: actual } } : {}),
    ...(compareAt ? { compareAtPrice: { amount: compareAt } } : {}),
  };
  return out;
}

/**
 * The price of the listing's variant (every variant when the listing names none) in a write of
 * the whole variant list with the options, as Wix takes it: a list written replaces the stored
 * one, and variants and options go together.
 */
function repriced(current: V3Product, ref: ListingRef, amount: string): Record<string, unknown> {
  const variants = current.variantsInfo?.variants ?? [];
  if (ref.externalVariantId && !variants.some((v) => v.id === ref.externalVariantId))
    throw new ConnectorError(
      'invalid_payload',
      `The Wix product ${current.id} no longer has the variant ${ref.externalVariantId}: it was changed in the Wix dashboard.`,
    );
  return {
    options: current.options ?? [],
    variantsInfo: {
      variants: variants.map((v) =>
        variantToWrite(v, !ref.externalVariantId || v.id === ref.externalVariantId ? amount : undefined),
      ),
    },
  };
}

/**
 * Name and visibility (top-level fields: only those given change) and the price (the variant's
 * `price.actualPrice.amount`), each write with the product's current revision.
 */
export async function updateV3(client: WixClient, ref: ListingRef, changes: ListingChanges): Promise<PublishedListing> {
  const amount =
    changes.priceCents !== undefined ? await priceIn(client, changes.priceCents, changes.currency) : undefined;
  const updated = await patchProduct(client, ref.externalProductId, (current) => ({
    ...(changes.title !== undefined ? { name: changes.title } : {}),
    ...(changes.published !== undefined ? { visible: changes.published } : {}),
    ...(amount !== undefined ? repriced(current, ref, amount) : {}),
  }));
  return listingOf(updated, ref.externalVariantId);
}

/** Hides the product (`visible: false`, its one variant follows); a product already deleted (404) is not an error. */
export async function hideV3(client: WixClient, ref: ListingRef): Promise<void> {
  try {
    await patchProduct(client, ref.externalProductId, () => ({ visible: false }));
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return;
    throw err;
  }
}
