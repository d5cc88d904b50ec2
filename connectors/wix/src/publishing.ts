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
const appInstance = z.object({ site: z.object({ paymentCurrency: z.string().nullish() }).nullish() });
const siteProperties = z.object({
  properties: z.object({ address: z.object({ country: z.string().nullish() }).nullish() }).nullish(),
});

/**
 * Publishing writes Catalog V1 products (`/stores/v1/products`). A site on Catalog V3 answers
 * V1 writes with 428: it is refused here with the reason, before anything is written.
 */
async function requireCatalogV1(client: WixClient): Promise<void> {
  const answer = await client.call<{ catalogVersion?: string }>(
    'getCatalogVersion',
    'GET',
    '/stores/v3/provision/version',
  );
  if (answer.catalogVersion === 'STORES_NOT_INSTALLED')
    throw new ConnectorError(
      'invalid_payload',
      'The Wix site has no Wix Stores: add Wix Stores to the site, then publish again.',
    );
  if (answer.catalogVersion !== 'V1_CATALOG')
    throw new ConnectorError(
      'invalid_payload',
      'The Wix site runs Catalog V3, which publishing does not write yet: create the product in the Wix dashboard; it is matched to yours by its SKU.',
    );
}

/**
 * The site's payment currency (the app instance's `site.paymentCurrency`), upper case; undefined before the merchant
 * sets one.
 */
async function paymentCurrency(client: WixClient): Promise<string | undefined> {
  const app = parsePayload(
    appInstance,
    await client.call<unknown>('getAppInstance', 'GET', '/apps/v1/instance'),
    'Wix app instance',
  );
  return app.site?.paymentCurrency?.toUpperCase();
}

const NO_CURRENCY = 'The Wix site has no payment currency yet: set one in its dashboard, then publish again.';

/** What a listing's price is written in (the connector's `storeCurrency`): the site's payment currency. */
export async function wixSiteCurrency(client: WixClient): Promise<string> {
  const currency = await paymentCurrency(client);
  if (!currency) throw new ConnectorError('invalid_payload', NO_CURRENCY);
  return currency;
}

/**
 * The site's country: its business address (Site Properties' `address.country`, ISO 3166-1 alpha-2); null when the site
 * has none.
 */
export async function wixSiteCountry(client: WixClient): Promise<string | null> {
  const answer = parsePayload(
    siteProperties,
    await client.call<unknown>('getSiteProperties', 'GET', '/site-properties/v4/properties'),
    'Wix site properties',
  );
  return answer.properties?.address?.country?.toUpperCase() || null;
}

/**
 * Wix prices a product in the site's payment currency only (`priceData.currency` is read-only); `asked` absent: that
 * one.
 */
async function priceIn(client: WixClient, priceCents: number, asked: string | undefined): Promise<number> {
  const siteCurrency = await paymentCurrency(client);
  const currency = asked?.toUpperCase() ?? siteCurrency;
  if (!currency) throw new ConnectorError('invalid_payload', NO_CURRENCY);
  if (siteCurrency && siteCurrency !== currency)
    throw new ConnectorError(
      'invalid_payload',
      `The Wix site sells in ${siteCurrency}, not ${currency}: give the price in ${siteCurrency}.`,
    );
  // A JSON number, as Wix takes it: the decimal string's shortest form is the same digits (24.95 -> 24.95).
  return Number(minorUnitsToDecimal(priceCents, currency));
}

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
export async function publishWixListing(client: WixClient, draft: ListingDraft): Promise<PublishedListing> {
  await requireCatalogV1(client);
  const price = await priceIn(client, draft.priceCents, draft.currency);
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
    await client.call('addProductMedia', 'POST', `/stores/v1/products/${encodeURIComponent(made.id)}/media`, {
      media: draft.imageUrls.map((url) => ({ url })),
    });
  }
  return listingOf(made, draft.published);
}

/** Name, price and visibility with `PATCH /stores/v1/products/{id}` (only the fields given change). */
export async function updateWixListing(
  client: WixClient,
  ref: ListingRef,
  changes: ListingChanges,
): Promise<PublishedListing> {
  const product: Record<string, unknown> = {};
  if (changes.title !== undefined) product.name = changes.title;
  if (changes.published !== undefined) product.visible = changes.published;
  if (changes.priceCents !== undefined)
    product.priceData = { price: await priceIn(client, changes.priceCents, changes.currency) };
  if (Object.keys(product).length === 0)
    throw new ConnectorError('invalid_payload', 'Nothing to change: give a title, a price or whether it is published');
  const updated = parsePayload(
    productAnswer,
    await client.call<unknown>(
      'updateProduct',
      'PATCH',
      `/stores/v1/products/${encodeURIComponent(ref.externalProductId)}`,
      { product },
    ),
    'Wix updateProduct',
  ).product;
  return listingOf(updated, updated.visible !== false);
}

/**
 * Hides the product (`visible: false`) instead of deleting it: past orders keep pointing at it
 * (their `catalogReference`), and the merchant can show it again from the dashboard. A product
 * already deleted (404) is not an error.
 */
export async function unpublishWixListing(client: WixClient, ref: ListingRef): Promise<void> {
  try {
    await client.call('updateProduct', 'PATCH', `/stores/v1/products/${encodeURIComponent(ref.externalProductId)}`, {
      product: { visible: false },
    });
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return;
    throw err;
  }
}
