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
import { assertNoUserErrors, type ShopifyClient } from './shopify-client.ts';

/**
 * The shop's currency (prices are written in it) and its publications, among them the Online
 * Store's. `name` is deprecated in favour of the catalog's title; both are read, as shops
 * created before catalogs may title theirs differently.
 */
export const PUBLISHING_CONTEXT_QUERY = `query PublishingContext {
  shop { currencyCode shopAddress { countryCodeV2 } }
  publications(first: 50) { nodes { id name catalog { title } } }
}`;

const PRODUCT_FIELDS =
  'id legacyResourceId status handle variants(first: 1) { nodes { id legacyResourceId sku price } }';

/** One product, one variant, in one synchronous call (the product model's `productSet`). */
export const CREATE_LISTING_MUTATION = `mutation CreateListing($input: ProductSetInput!) {
  productSet(input: $input, synchronous: true) {
    product { ${PRODUCT_FIELDS} }
    userErrors { field message code }
  }
}`;

export const PUBLISH_LISTING_MUTATION = `mutation PublishListing($id: ID!, $input: [PublicationInput!]!) {
  publishablePublish(id: $id, input: $input) { userErrors { field message } }
}`;

export const UPDATE_LISTING_MUTATION = `mutation UpdateListing($product: ProductUpdateInput!) {
  productUpdate(product: $product) {
    product { ${PRODUCT_FIELDS} }
    userErrors { field message }
  }
}`;

export const UPDATE_LISTING_PRICE_MUTATION = `mutation UpdateListingPrice($productId: ID!, $variants: [ProductVariantsBulkInput!]!) {
  productVariantsBulkUpdate(productId: $productId, variants: $variants) {
    product { ${PRODUCT_FIELDS} }
    userErrors { field message }
  }
}`;

const ONLINE_STORE = 'Online Store';
/** A product without options has one option, "Title", whose only value is "Default Title". */
const DEFAULT_OPTION = { name: 'Title', value: 'Default Title' };

const userErrors = z.array(z.object({ field: z.array(z.string()).nullish(), message: z.string() }));
const product = z.object({
  id: z.string(),
  legacyResourceId: z.string(),
  status: z.enum(['ACTIVE', 'DRAFT', 'ARCHIVED', 'UNLISTED']),
  handle: z.string(),
  variants: z.object({ nodes: z.array(z.object({ id: z.string(), legacyResourceId: z.string() })) }),
});
type Product = z.infer<typeof product>;
const context = z.object({
  shop: z.object({ currencyCode: z.string(), shopAddress: z.object({ countryCodeV2: z.string().nullish() }) }),
  publications: z.object({
    nodes: z.array(
      z.object({ id: z.string(), name: z.string().nullish(), catalog: z.object({ title: z.string() }).nullish() }),
    ),
  }),
});
const created = z.object({ productSet: z.object({ product: product.nullish(), userErrors }) });
const updated = z.object({ productUpdate: z.object({ product: product.nullish(), userErrors }) });
const repriced = z.object({ productVariantsBulkUpdate: z.object({ product: product.nullish(), userErrors }) });
const published = z.object({ publishablePublish: z.object({ userErrors }) });

const productGid = (id: string) => `gid://shopify/Product/${id}`;
const variantGid = (id: string) => `gid://shopify/ProductVariant/${id}`;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The shop's currency and its Online Store publication (null: the shop has no Online Store channel). */
async function publishingContext(
  client: ShopifyClient,
): Promise<{ currency: string; country: string | null; onlineStore: string | null }> {
  const data = parsePayload(context, await client.graphql<unknown>(PUBLISHING_CONTEXT_QUERY), 'Shopify publications');
  const onlineStore = data.publications.nodes.find((p) => p.catalog?.title === ONLINE_STORE || p.name === ONLINE_STORE);
  return {
    currency: data.shop.currencyCode,
    country: data.shop.shopAddress.countryCodeV2 ?? null,
    onlineStore: onlineStore?.id ?? null,
  };
}

/**
 * The shop's currency (`shop.currencyCode`): what a listing's price is written in (the connector's `storeCurrency`).
 */
export async function shopifyShopCurrency(client: ShopifyClient): Promise<string> {
  return (await publishingContext(client)).currency;
}

/**
 * The shop's country (`shop.shopAddress.countryCodeV2`, the address buyers see; null when unset): the connector's
 * `storeCountry`.
 */
export async function shopifyShopCountry(client: ShopifyClient): Promise<string | null> {
  return (await publishingContext(client)).country;
}

/** Shopify prices a product in the shop's currency only: another one would be sold at the wrong price. */
function priceIn(currency: string, priceCents: number, asked: string): string {
  if (asked.toUpperCase() !== currency)
    throw new ConnectorError(
      'invalid_payload',
      `The shop sells in ${currency}, not ${asked}: give the price in ${currency}.`,
    );
  return minorUnitsToDecimal(priceCents, currency);
}

/**
 * Makes the product visible on the Online Store; a shop without one keeps it active on its other channels, and says so.
 */
async function publishToOnlineStore(
  client: ShopifyClient,
  productId: string,
  onlineStore: string | null,
): Promise<string | undefined> {
  if (!onlineStore)
    return 'The shop has no Online Store channel: the product is active but published to no sales channel; publish it from the Shopify admin.';
  const data = parsePayload(
    published,
    await client.graphql<unknown>(PUBLISH_LISTING_MUTATION, {
      id: productGid(productId),
      input: [{ publicationId: onlineStore }],
    }),
    'Shopify publishablePublish',
  );
  assertNoUserErrors(data.publishablePublish.userErrors, 'publish the product to the Online Store');
  return undefined;
}

function listingOf(client: ShopifyClient, p: Product, notice?: string): PublishedListing {
  const variant = p.variants.nodes[0];
  const store = client.shop.replace(/\.myshopify\.com$/, '');
  return {
    externalProductId: p.legacyResourceId,
    externalVariantId: variant?.legacyResourceId ?? null,
    status: p.status === 'ACTIVE' || p.status === 'UNLISTED' ? 'active' : 'draft',
    url: `https://admin.shopify.com/store/${store}/products/${p.legacyResourceId}`,
    ...(notice ? { notice } : {}),
  };
}

/**
 * Creates the product with `productSet` (synchronous: the product exists when it answers): one
 * variant carrying the SKU and the price in the shop's currency, not inventory-tracked (printed
 * on demand), the images fetched by Shopify from their URLs; ACTIVE and published to the
 * Online Store, or DRAFT.
 */
export async function publishShopifyListing(client: ShopifyClient, draft: ListingDraft): Promise<PublishedListing> {
  const ctx = await publishingContext(client);
  const price = priceIn(ctx.currency, draft.priceCents, draft.currency);
  const input = {
    title: draft.title,
    ...(draft.description ? { descriptionHtml: `<p>${escapeHtml(draft.description)}</p>` } : {}),
    status: draft.published ? 'ACTIVE' : 'DRAFT',
    productOptions: [{ name: DEFAULT_OPTION.name, values: [{ name: DEFAULT_OPTION.value }] }],
    variants: [
      {
        optionValues: [{ optionName: DEFAULT_OPTION.name, name: DEFAULT_OPTION.value }],
        sku: draft.sku,
        price,
        inventoryItem: { tracked: false, requiresShipping: true },
      },
    ],
    ...(draft.imageUrls.length
      ? { files: draft.imageUrls.map((originalSource) => ({ originalSource, contentType: 'IMAGE', alt: draft.title })) }
      : {}),
  };
  const data = parsePayload(
    created,
    await client.graphql<unknown>(CREATE_LISTING_MUTATION, { input }),
    'Shopify productSet',
  );
  assertNoUserErrors(data.productSet.userErrors, 'create the product');
  const made = data.productSet.product;
  if (!made) throw new ConnectorError('upstream_unavailable', 'Shopify answered productSet without the product');
  const notice = draft.published
    ? await publishToOnlineStore(client, made.legacyResourceId, ctx.onlineStore)
    : undefined;
  return listingOf(client, made, notice);
}

/**
 * Title and status with `productUpdate`, the price on the variant with `productVariantsBulkUpdate`; published again to
 * the Online Store when it goes on sale.
 */
export async function updateShopifyListing(
  client: ShopifyClient,
  ref: ListingRef,
  changes: ListingChanges,
): Promise<PublishedListing> {
  const ctx = changes.priceCents !== undefined || changes.published ? await publishingContext(client) : null;
  let latest: Product | null | undefined;
  if (changes.title !== undefined || changes.published !== undefined) {
    const fields = {
      id: productGid(ref.externalProductId),
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.published !== undefined ? { status: changes.published ? 'ACTIVE' : 'DRAFT' } : {}),
    };
    const data = parsePayload(
      updated,
      await client.graphql<unknown>(UPDATE_LISTING_MUTATION, { product: fields }),
      'Shopify productUpdate',
    );
    assertNoUserErrors(data.productUpdate.userErrors, 'update the product');
    latest = data.productUpdate.product;
  }
  if (changes.priceCents !== undefined && ctx) {
    if (!ref.externalVariantId)
      throw new ConnectorError('invalid_payload', "A Shopify price is a variant's: the listing has no variant id");
    const price = priceIn(ctx.currency, changes.priceCents, changes.currency ?? ctx.currency);
    const data = parsePayload(
      repriced,
      await client.graphql<unknown>(UPDATE_LISTING_PRICE_MUTATION, {
        productId: productGid(ref.externalProductId),
        variants: [{ id: variantGid(ref.externalVariantId), price }],
      }),
      'Shopify productVariantsBulkUpdate',
    );
    assertNoUserErrors(data.productVariantsBulkUpdate.userErrors, 'change the price');
    latest = data.productVariantsBulkUpdate.product;
  }
  if (!latest)
    throw new ConnectorError('invalid_payload', 'Nothing to change: give a title, a price or whether it is published');
  const notice =
    changes.published && ctx ? await publishToOnlineStore(client, ref.externalProductId, ctx.onlineStore) : undefined;
  return listingOf(client, latest, notice);
}

/**
 * Archives the product (status ARCHIVED): off every sales channel, kept with its variant and
 * SKU so past orders still name it, and the merchant can restore it from the admin. Deleting
 * would be final and break those links. A product already deleted is not an error.
 */
export async function unpublishShopifyListing(client: ShopifyClient, ref: ListingRef): Promise<void> {
  const data = parsePayload(
    updated,
    await client.graphql<unknown>(UPDATE_LISTING_MUTATION, {
      product: { id: productGid(ref.externalProductId), status: 'ARCHIVED' },
    }),
    'Shopify productUpdate',
  );
  const errors = data.productUpdate.userErrors.filter((e) => !/does not exist|not found/i.test(e.message));
  assertNoUserErrors(errors, 'archive the product');
}
