import {
  ConnectorError,
  minorUnitsToDecimal,
  parsePayload,
  type ListingChanges,
  type ListingDraft,
  type ListingRef,
  type PublishedListing,
} from '@print-api/connector-kit';
import { z } from 'zod';
import type { WooCommerceClient } from './woocommerce-client.ts';

const product = z.object({
  id: z.union([z.number(), z.string()]).transform(String),
  status: z.string().nullish(),
  permalink: z.string().nullish(),
});
const currency = z.object({ code: z.string().regex(/^[A-Za-z]{3}$/) });
const setting = z.object({ value: z.unknown() });

/** What a merchant may add for WooCommerce (`platformOptions`): the product's categories and its short description. */
export const wooPlatformOptions = z.strictObject({
  categoryIds: z.array(z.number().int().positive()).max(20).optional(),
  shortDescription: z.string().max(5000).optional(),
});

/**
 * `POST /products`: a simple product carrying the SKU, at `regular_price` (a decimal string in
 * the store's currency), its images fetched by WooCommerce from their public URLs, `publish` or
 * `draft`. WooCommerce creates it at once (never `pending`).
 */
export async function publishWooProduct(client: WooCommerceClient, draft: ListingDraft): Promise<PublishedListing> {
  const parsed = wooPlatformOptions.safeParse(draft.platformOptions ?? {});
  if (!parsed.success)
    throw new ConnectorError(
      'invalid_payload',
      `platformOptions for WooCommerce: ${z.prettifyError(parsed.error).replace(/\n+/g, '; ')}`,
    );
  const options = parsed.data;
  const created = await client.createProduct({
    name: draft.title,
    type: 'simple',
    sku: draft.sku,
    regular_price: minorUnitsToDecimal(draft.priceCents, draft.currency),
    status: draft.published ? 'publish' : 'draft',
    ...(draft.description !== undefined ? { description: draft.description } : {}),
    ...(options.shortDescription !== undefined ? { short_description: options.shortDescription } : {}),
    ...(options.categoryIds ? { categories: options.categoryIds.map((id) => ({ id })) } : {}),
    images: draft.imageUrls.map((src) => ({ src })),
  });
  return listingOf(created);
}

/** `PUT /products/<id>` with what changed: `name`, `regular_price`, `status`. */
export async function updateWooProduct(
  client: WooCommerceClient,
  ref: ListingRef,
  changes: ListingChanges,
  storeCurrency: () => Promise<string>,
): Promise<PublishedListing> {
  const body: Record<string, unknown> = {};
  if (changes.title !== undefined) body.name = changes.title;
  if (changes.priceCents !== undefined)
    body.regular_price = minorUnitsToDecimal(changes.priceCents, changes.currency ?? (await storeCurrency()));
  if (changes.published !== undefined) body.status = changes.published ? 'publish' : 'draft';
  if (Object.keys(body).length === 0) return getWooProduct(client, ref);
  return listingOf(await client.updateProduct(ref.externalProductId, body));
}

/**
 * Unpublishing sets the product's status to `draft`, not the trash (`DELETE /products/<id>`):
 * a draft is off sale at once, stays in the merchant's admin (with its sales history, and the
 * ids its past orders carry) and is published again with one click, while the trash is emptied
 * for good after 30 days. A product already gone is no error.
 */
export async function unpublishWooProduct(client: WooCommerceClient, ref: ListingRef): Promise<void> {
  try {
    await client.updateProduct(ref.externalProductId, { status: 'draft' });
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return;
    throw err;
  }
}

export async function getWooProduct(client: WooCommerceClient, ref: ListingRef): Promise<PublishedListing> {
  const found = await client.getProduct(ref.externalProductId);
  if (found === null)
    throw new ConnectorError('invalid_payload', `The store has no product ${ref.externalProductId} any more.`, {
      status: 404,
    });
  return listingOf(found);
}

/** The store's currency, from `GET /data/currencies/current`. */
export async function wooStoreCurrency(client: WooCommerceClient): Promise<string> {
  return parsePayload(currency, await client.currentCurrency(), 'WooCommerce currency').code.toUpperCase();
}

/**
 * The store's country: WooCommerce > Settings > General > Store Address, kept as "NL" or, with
 * a state, "US:CA" (WooCommerce's `woocommerce_default_country`); null when it is not set.
 */
export async function wooStoreCountry(client: WooCommerceClient): Promise<string | null> {
  const { value } = parsePayload(setting, await client.defaultCountry(), 'WooCommerce default country');
  const country = typeof value === 'string' ? value.split(':')[0]! : '';
  return /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null;
}

function listingOf(raw: unknown): PublishedListing {
  const p = parsePayload(product, raw, 'WooCommerce product');
  return {
    externalProductId: p.id,
    externalVariantId: null,
    status: p.status === 'publish' ? 'active' : 'draft',
    ...(p.permalink ? { url: p.permalink } : {}),
  };
}
