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
import {
  DEFAULT_ATTRIBUTE_SET_ID,
  STATUS_DISABLED,
  STATUS_ENABLED,
  VISIBLE_IN_CATALOG_AND_SEARCH,
  type MagentoCredentials,
} from './config.ts';
import { searchQuery, type MagentoClient } from './magento-client.ts';
import { productSchema, productsPage, type MagentoProduct } from './listings.ts';

/** What a merchant may add for Magento (`platformOptions`): the attribute set and the websites to sell on. */
export const magentoPlatformOptions = z.strictObject({
  attributeSetId: z.number().int().positive().optional(),
  websiteIds: z.array(z.number().int().nonnegative()).min(1).max(50).optional(),
});

/** `store-data-store-config-interface`, the fields we read. */
const storeConfigs = z.array(z.object({ code: z.string(), base_currency_code: z.string().regex(/^[A-Za-z]{3}$/) }));

/** A URL key of the title and SKU: Magento refuses a second product whose URL key (made from its name) is taken. */
const urlKey = (title: string, sku: string) =>
  `${title}-${sku}`
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);

/** A price as the number Magento's `price` takes (a decimal in the store's base currency, exact from the cents). */
const price = (cents: number, currency: string) => Number(minorUnitsToDecimal(cents, currency));

/**
 * `POST /V1/products`: a simple product (the "Default" attribute set unless the merchant names one) carrying the SKU
 * at its price, enabled or disabled, visible in catalogue and search, in stock without stock management (printed on
 * demand: never sold out). Magento takes no image URL (a gallery entry is the file itself): the notice says so.
 */
export async function publishMagentoProduct(client: MagentoClient, draft: ListingDraft): Promise<PublishedListing> {
  const parsed = magentoPlatformOptions.safeParse(draft.platformOptions ?? {});
  if (!parsed.success)
    throw new ConnectorError(
      'invalid_payload',
      `platformOptions for Magento: ${z.prettifyError(parsed.error).replace(/\n+/g, '; ')}`,
    );
  const options = parsed.data;
  const custom = [{ attribute_code: 'url_key', value: urlKey(draft.title, draft.sku) }];
  if (draft.description) custom.push({ attribute_code: 'description', value: draft.description });
  const created = await client.json(productSchema, {
    method: 'POST',
    path: '/products',
    body: {
      product: {
        sku: draft.sku,
        name: draft.title,
        price: price(draft.priceCents, draft.currency),
        status: draft.published ? STATUS_ENABLED : STATUS_DISABLED,
        visibility: VISIBLE_IN_CATALOG_AND_SEARCH,
        type_id: 'simple',
        attribute_set_id: options.attributeSetId ?? DEFAULT_ATTRIBUTE_SET_ID,
        extension_attributes: {
          ...(options.websiteIds ? { website_ids: options.websiteIds } : {}),
          stock_item: { is_in_stock: true, use_config_manage_stock: false, manage_stock: false },
        },
        custom_attributes: custom,
      },
    },
    operation: 'createProduct',
  });
  const listing = listingOf(created!);
  return draft.imageUrls.length > 0
    ? { ...listing, notice: 'Magento takes no image URL: add the images to the product in the Magento admin.' }
    : listing;
}

/** `PUT /V1/products/{sku}` with what changed: `name`, `price`, `status`. */
export async function updateMagentoProduct(
  client: MagentoClient,
  ref: ListingRef,
  changes: ListingChanges,
  storeCurrency: () => Promise<string>,
): Promise<PublishedListing> {
  const current = await productById(client, ref);
  const product: Record<string, unknown> = { sku: current.sku };
  if (changes.title !== undefined) product.name = changes.title;
  if (changes.priceCents !== undefined)
    product.price = price(changes.priceCents, changes.currency ?? (await storeCurrency()));
  if (changes.published !== undefined) product.status = changes.published ? STATUS_ENABLED : STATUS_DISABLED;
  if (Object.keys(product).length === 1) return listingOf(current);
  return listingOf((await putProduct(client, current.sku, product))!);
}

/**
 * Unpublishing disables the product (`status` 2): off sale at once, kept in the admin with its order history, one
 * switch from sale again. A product already gone is no error.
 */
export async function unpublishMagentoProduct(client: MagentoClient, ref: ListingRef): Promise<void> {
  const current = await productById(client, ref, true);
  if (current) await putProduct(client, current.sku, { sku: current.sku, status: STATUS_DISABLED });
}

export async function getMagentoProduct(client: MagentoClient, ref: ListingRef): Promise<PublishedListing> {
  return listingOf(await productById(client, ref));
}

/**
 * The store's currency: `base_currency_code` of its store view (`GET /V1/store/storeConfigs`, the one of the
 * connection's store code, else `default`, else the first), the currency `price` is in.
 */
export async function magentoStoreCurrency(client: MagentoClient, c: MagentoCredentials): Promise<string> {
  const configs = (await client.json(storeConfigs, {
    method: 'GET',
    path: '/store/storeConfigs',
    operation: 'storeConfigs',
  }))!;
  const config = configs.find((s) => s.code === (c.storeCode ?? 'default')) ?? configs[0];
  if (!config) throw new ConnectorError('invalid_payload', 'Magento answered no store configuration');
  return config.base_currency_code.toUpperCase();
}

const putProduct = (client: MagentoClient, sku: string, product: Record<string, unknown>) =>
  client.json(productSchema, {
    method: 'PUT',
    path: `/products/${encodeURIComponent(sku)}`,
    body: { product },
    operation: 'updateProduct',
  });

/** Products are addressed by SKU: the product of our id, found by `entity_id` (null when gone, where `orNull`). */
async function productById(client: MagentoClient, ref: ListingRef, orNull?: false): Promise<MagentoProduct>;
async function productById(client: MagentoClient, ref: ListingRef, orNull: true): Promise<MagentoProduct | null>;
async function productById(client: MagentoClient, ref: ListingRef, orNull = false): Promise<MagentoProduct | null> {
  const page = (await client.json(productsPage, {
    method: 'GET',
    path: '/products',
    query: searchQuery({
      filters: [{ field: 'entity_id', value: ref.externalProductId, conditionType: 'eq' }],
      pageSize: 1,
      currentPage: 1,
    }),
    operation: 'searchProducts',
  }))!;
  const found = page.total_count > 0 ? page.items?.[0] : undefined;
  if (found) return found;
  if (orNull) return null;
  throw new ConnectorError('invalid_payload', `The store has no product ${ref.externalProductId} any more.`, {
    status: 404,
  });
}

function listingOf(raw: unknown): PublishedListing {
  const p = parsePayload(productSchema, raw, 'Magento product');
  return { externalProductId: String(p.id), externalVariantId: null, status: p.status === 1 ? 'active' : 'draft' };
}
