import { randomUUID } from 'node:crypto';
import {
  ConnectorError,
  currencyDigits,
  minorUnitsToDecimal,
  parseJsonPayload,
  parsePayload,
  type ListingChanges,
  type ListingDraft,
  type ListingRef,
  type PublishedListing,
} from '@print-api/connector-kit';
import { z } from 'zod';
import { shopwareId } from './config.ts';
import type { ShopwareClient } from './shopware-client.ts';

/** `Defaults::CURRENCY`: the system currency, in which Shopware requires every product to have a price. */
const SYSTEM_CURRENCY_ID = 'b7d2554b0ce847cd82f3ac9bd1c0dfca';
/** `ProductVisibilityDefinition::VISIBILITY_ALL`: listed and found in the storefront. */
const VISIBLE_EVERYWHERE = 30;

const newId = () => randomUUID().replace(/-/g, '');

const salesChannel = z.object({
  id: z.string(),
  name: z.string().nullish(),
  currency: z.object({
    id: z.string(),
    isoCode: z.string(),
    factor: z.number(),
    isSystemDefault: z.boolean().nullish(),
  }),
  country: z.object({ iso: z.string().nullish() }).nullish(),
});
const tax = z.object({ id: z.string(), taxRate: z.number() });
const product = z.object({ id: z.string(), taxId: z.string(), active: z.boolean().nullish() });

/** What a merchant may add for Shopware (`platformOptions`): the tax, the stock, the product's manufacturer. */
export const shopwarePlatformOptions = z.strictObject({
  taxId: shopwareId.optional(),
  stock: z.number().int().min(0).max(1_000_000).optional(),
  manufacturerId: shopwareId.optional(),
});

/** The storefront a store publishes to, with its currency and country (`POST /api/search/sales-channel`). */
export async function salesChannelOf(client: ShopwareClient, id: string) {
  const rows = await client.search(
    'sales-channel',
    { ids: [id], associations: { currency: {}, country: {} } },
    'searchSalesChannels',
  );
  if (rows.length === 0)
    throw new ConnectorError('invalid_payload', `The shop has no sales channel ${id} any more.`, { status: 404 });
  return parsePayload(salesChannel, rows[0], 'Shopware sales channel');
}

/** A tax by id, or the shop's first (by position: Shopware's standard rate comes first). */
async function taxOf(client: ShopwareClient, id: string | undefined) {
  const rows = await client.search(
    'tax',
    id ? { ids: [id] } : { limit: 1, sort: [{ field: 'position', order: 'ASC' }] },
    'searchTaxes',
  );
  if (rows.length === 0)
    throw new ConnectorError('invalid_payload', id ? `The shop has no tax ${id}.` : 'The shop has no tax rate.', {
      status: 422,
    });
  return parsePayload(tax, rows[0], 'Shopware tax');
}

/**
 * `price` of a product: gross in the storefront's currency, net by the tax rate, linked (Shopware recomputes one from
 * the other); plus the system currency's (converted by the currency's factor) where the storefront sells in another.
 */
async function priceOf(client: ShopwareClient, salesChannelId: string, priceCents: number, taxRate: number) {
  const { currency } = await salesChannelOf(client, salesChannelId);
  const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
  const digits = currencyDigits(currency.isoCode);
  const gross = Number(minorUnitsToDecimal(priceCents, currency.isoCode));
  const entry = (currencyId: string, g: number) => ({
    currencyId,
    gross: round(g, digits),
    net: round(g / (1 + taxRate / 100), digits),
    linked: true,
  });
  const prices = [entry(currency.id, gross)];
  if (currency.id !== SYSTEM_CURRENCY_ID && !currency.isSystemDefault)
    prices.push(entry(SYSTEM_CURRENCY_ID, gross / currency.factor));
  return prices;
}

/**
 * `POST /api/product`: a product without variants whose product number is the SKU, priced in the storefront's
 * currency, visible everywhere in that storefront, active when published. Its id is ours (Shopware takes a client's
 * id), so nothing needs reading back. Not a closeout: Shopware sells it whatever the stock (printed on demand).
 */
export async function publishShopwareProduct(
  client: ShopwareClient,
  salesChannelId: string,
  draft: ListingDraft,
): Promise<PublishedListing> {
  const parsed = shopwarePlatformOptions.safeParse(draft.platformOptions ?? {});
  if (!parsed.success)
    throw new ConnectorError(
      'invalid_payload',
      `platformOptions for Shopware: ${z.prettifyError(parsed.error).replace(/\n+/g, '; ')}`,
    );
  const options = parsed.data;
  const { id: taxId, taxRate } = await taxOf(client, options.taxId);
  const id = newId();
  await client.call({
    method: 'POST',
    path: '/product',
    operation: 'createProduct',
    body: {
      id,
      productNumber: draft.sku,
      name: draft.title,
      ...(draft.description !== undefined ? { description: draft.description } : {}),
      stock: options.stock ?? 0,
      isCloseout: false,
      taxId,
      price: await priceOf(client, salesChannelId, draft.priceCents, taxRate),
      active: draft.published,
      visibilities: [{ id: newId(), productId: id, salesChannelId, visibility: VISIBLE_EVERYWHERE }],
      ...(options.manufacturerId ? { manufacturerId: options.manufacturerId } : {}),
    },
  });
  return {
    externalProductId: id,
    externalVariantId: null,
    status: draft.published ? 'active' : 'draft',
    url: adminUrl(client, id),
    ...(draft.imageUrls.length
      ? { notice: "Shopware: the images are not uploaded; add them in the product's Media tab in the admin." }
      : {}),
  };
}

/** `PATCH /api/product/<id>` with what changed: `name`, `price` (net by the product's tax), `active`. */
export async function updateShopwareProduct(
  client: ShopwareClient,
  salesChannelId: string,
  ref: ListingRef,
  changes: ListingChanges,
): Promise<PublishedListing> {
  const current = await readProduct(client, ref.externalProductId);
  const body: Record<string, unknown> = {};
  if (changes.title !== undefined) body.name = changes.title;
  if (changes.priceCents !== undefined)
    body.price = await priceOf(
      client,
      salesChannelId,
      changes.priceCents,
      (await taxOf(client, current.taxId)).taxRate,
    );
  if (changes.published !== undefined) body.active = changes.published;
  if (Object.keys(body).length > 0)
    await client.call({ method: 'PATCH', path: `/product/${ref.externalProductId}`, operation: 'updateProduct', body });
  return listingOf(client, { ...current, active: changes.published ?? current.active });
}

/** Unpublishing deactivates the product (kept, with the ids its orders carry); one already gone is no error. */
export async function unpublishShopwareProduct(client: ShopwareClient, ref: ListingRef): Promise<void> {
  await client.call(
    { method: 'PATCH', path: `/product/${ref.externalProductId}`, operation: 'updateProduct', body: { active: false } },
    [404],
  );
}

export async function getShopwareProduct(client: ShopwareClient, ref: ListingRef): Promise<PublishedListing> {
  return listingOf(client, await readProduct(client, ref.externalProductId));
}

async function readProduct(client: ShopwareClient, id: string) {
  const res = await client.call({ method: 'GET', path: `/product/${id}`, operation: 'getProduct' }, [404]);
  if (res.status === 404)
    throw new ConnectorError('invalid_payload', `The shop has no product ${id} any more.`, { status: 404 });
  return parseJsonPayload(z.object({ data: product }), res.body, 'Shopware product').data;
}

function listingOf(client: ShopwareClient, p: { id: string; active?: boolean | null | undefined }): PublishedListing {
  return {
    externalProductId: p.id,
    externalVariantId: null,
    status: p.active ? 'active' : 'draft',
    url: adminUrl(client, p.id),
  };
}

const adminUrl = (client: ShopwareClient, id: string) => `${client.credentials.shopUrl}/admin#/sw/product/detail/${id}`;
