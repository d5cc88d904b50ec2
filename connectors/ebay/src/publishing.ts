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
import { MARKETPLACES, type EbayCredentials, type EbaySettings } from './config.ts';
import type { EbayClient } from './ebay-client.ts';

const NO_PICTURE =
  'eBay lists nothing without a picture: the offer is made but not published. Add a picture to the inventory item in Seller Hub (or publish again with imageUrls), then PATCH the listing with published true.';
/** An inventory item printed on demand never sells out: the quantity eBay shows as available. */
const ON_DEMAND_QUANTITY = 99;
const INVENTORY = '/sell/inventory/v1';
const digits = z.coerce.string().regex(/^\d+$/, 'must be an eBay id (digits)');
/** `draft.platformOptions` for eBay: the category, and a business policy or location where the seller has several. */
const optionsSchema = z.strictObject({
  categoryId: digits.optional(),
  fulfillmentPolicyId: digits.optional(),
  paymentPolicyId: digits.optional(),
  returnPolicyId: digits.optional(),
  merchantLocationKey: z.string().min(1).max(36).optional(),
});
const offerSchema = z.looseObject({
  offerId: z.string(),
  sku: z.string(),
  status: z.string().nullish(),
  listing: z.object({ listingId: z.string().nullish() }).nullish(),
});
type Offer = z.infer<typeof offerSchema>;
type Choice = { id: string; name: string };
const choiceList = (idField: string) =>
  z.array(z.looseObject({ [idField]: z.string(), name: z.string().nullish() })).nullish();

export function marketplaceOf(credentials: EbayCredentials) {
  return { id: credentials.marketplaceId, ...(MARKETPLACES[credentials.marketplaceId] ?? MARKETPLACES.EBAY_US!) };
}

const fail = (message: string) => new ConnectorError('invalid_payload', `eBay: ${message}`);
const named = (list: Choice[]) => list.map((c) => `${c.id} (${c.name})`).join(', ') || 'none';

/**
 * One of the seller's business policies or locations, chosen as Etsy's profiles are: the one named in
 * platformOptions, else the seller's only one; none, or several and none named, is refused naming the choices.
 */
function choose(what: string, option: string, marketplace: string, list: Choice[], given?: string): string {
  if (given && list.some((c) => c.id === given)) return given;
  if (given) throw fail(`the seller has no ${what} ${given} on ${marketplace} (the choices: ${named(list)})`);
  if (list.length === 1) return list[0]!.id;
  if (list.length === 0)
    throw fail(`the seller has no ${what} on ${marketplace}: create one in Seller Hub, then publish again`);
  throw fail(
    `the seller has ${list.length} ${what}s on ${marketplace}: name one in platformOptions.${option} (${named(list)})`,
  );
}

/** The seller's choices of one kind: `fulfillment`, `payment` or `return` policies (Account API), or locations. */
async function choices(client: EbayClient, kind: string, marketplace: string): Promise<Choice[]> {
  const location = kind === 'location';
  const idField = location ? 'merchantLocationKey' : `${kind}PolicyId`;
  const body = await client.call<Record<string, unknown>>({
    method: 'GET',
    path: location ? `${INVENTORY}/location` : `/sell/account/v1/${kind}_policy`,
    query: location ? { limit: 100 } : { marketplace_id: marketplace },
    operation: location ? 'getInventoryLocations' : `get${kind[0]!.toUpperCase()}${kind.slice(1)}Policies`,
  });
  const list = parsePayload(choiceList(idField), body?.[location ? 'locations' : `${kind}Policies`], `eBay ${kind}s`);
  return (list ?? [])
    .filter((c) => c.merchantLocationStatus !== 'DISABLED')
    .map((c) => ({ id: String(c[idField]), name: String(c.name ?? '') }));
}

async function findOffer(client: EbayClient, sku: string, marketplace: string): Promise<Offer | null> {
  const body = await client.call({
    method: 'GET',
    path: `${INVENTORY}/offer`,
    query: { sku, marketplace_id: marketplace },
    operation: 'getOffers',
    allow: [404],
  });
  return body
    ? (parsePayload(z.object({ offers: z.array(offerSchema).nullish() }), body, 'eBay offers').offers?.[0] ?? null)
    : null;
}

function price(asked: string | undefined, currency: string, cents: number) {
  if (asked && asked.toUpperCase() !== currency)
    throw fail(`the seller sells in ${currency}, not ${asked}: give the price in ${currency}.`);
  return { value: minorUnitsToDecimal(cents, currency), currency };
}

async function publishOffer(client: EbayClient, offerId: string): Promise<PublishedListing['url']> {
  const body = await client.call<{ listingId?: string }>({
    method: 'POST',
    path: `${INVENTORY}/offer/${encodeURIComponent(offerId)}/publish`,
    operation: 'publishOffer',
  });
  return body?.listingId ? `https://www.ebay.com/itm/${body.listingId}` : undefined;
}

const listingOf = (sku: string, active: boolean, url?: string): PublishedListing => ({
  externalProductId: sku,
  externalVariantId: null,
  status: active ? 'active' : 'draft',
  ...(url ? { url } : {}),
});

/**
 * The Inventory API's three steps: the inventory item (PUT by SKU: title, description, pictures, new, quantity on
 * hand), its offer on the seller's marketplace (price, category, the seller's fulfilment, payment and return policies
 * and inventory location) and, when published, the offer's publication (the eBay listing). A retry finds the offer made
 * before and goes on from it.
 */
export async function publishEbayListing(
  client: EbayClient,
  settings: EbaySettings,
  credentials: EbayCredentials,
  draft: ListingDraft,
): Promise<PublishedListing> {
  const parsed = optionsSchema.safeParse(draft.platformOptions ?? {});
  if (!parsed.success)
    throw fail(`platformOptions: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const o = parsed.data;
  const m = marketplaceOf(credentials);
  const categoryId = o.categoryId ?? settings.defaultCategoryId;
  if (!categoryId) throw fail('every offer is in a leaf category: give platformOptions.categoryId (140: Art Posters).');
  const pick = async (kind: string, option: keyof typeof o) =>
    choose(
      `${kind} ${kind === 'location' ? '' : 'policy'}`.trim(),
      option,
      m.id,
      await choices(client, kind, m.id),
      o[option],
    );
  const offer = {
    availableQuantity: ON_DEMAND_QUANTITY,
    categoryId,
    listingDescription: draft.description?.trim() || draft.title,
    listingPolicies: {
      fulfillmentPolicyId: await pick('fulfillment', 'fulfillmentPolicyId'),
      paymentPolicyId: await pick('payment', 'paymentPolicyId'),
      returnPolicyId: await pick('return', 'returnPolicyId'),
    },
    merchantLocationKey: await pick('location', 'merchantLocationKey'),
    pricingSummary: { price: price(draft.currency, m.currency, draft.priceCents) },
  };
  const live = draft.published && draft.imageUrls.length > 0;
  await client.call({
    method: 'PUT',
    path: `${INVENTORY}/inventory_item/${encodeURIComponent(draft.sku)}`,
    headers: { 'content-language': m.language },
    json: {
      availability: { shipToLocationAvailability: { quantity: live ? ON_DEMAND_QUANTITY : 0 } },
      condition: 'NEW',
      product: { title: draft.title.slice(0, 80), description: offer.listingDescription, imageUrls: draft.imageUrls },
    },
    operation: 'createOrReplaceInventoryItem',
  });
  let offerId = (await findOffer(client, draft.sku, m.id))?.offerId;
  if (!offerId) {
    const made = await client.call<{ offerId?: string }>({
      method: 'POST',
      path: `${INVENTORY}/offer`,
      headers: { 'content-language': m.language },
      json: { sku: draft.sku, marketplaceId: m.id, format: 'FIXED_PRICE', ...offer },
      operation: 'createOffer',
    });
    offerId = made?.offerId;
    if (!offerId) throw fail('the offer was created without its id');
  }
  if (!live) return { ...listingOf(draft.sku, false), ...(draft.published ? { notice: NO_PICTURE } : {}) };
  return listingOf(draft.sku, true, await publishOffer(client, offerId));
}

/** A new title (the inventory item), price (the offer) or visibility (published or withdrawn). */
export async function updateEbayListing(
  client: EbayClient,
  credentials: EbayCredentials,
  ref: ListingRef,
  changes: ListingChanges,
): Promise<PublishedListing> {
  const m = marketplaceOf(credentials);
  const sku = ref.externalProductId;
  if (changes.title !== undefined) {
    const title = changes.title.slice(0, 80);
    await rewriteItem(client, m.language, sku, (item) => ({ ...item, product: { ...item.product, title } }));
  }
  const offer = await findOffer(client, sku, m.id);
  if (!offer) throw fail(`no offer sells SKU ${sku} on ${m.id}`);
  if (changes.priceCents !== undefined) {
    const { offerId, sku: _s, marketplaceId: _m, format: _f, status: _st, listing: _l, ...writable } = offer;
    await client.call({
      method: 'PUT',
      path: `${INVENTORY}/offer/${encodeURIComponent(offerId)}`,
      headers: { 'content-language': m.language },
      json: { ...writable, pricingSummary: { price: price(changes.currency, m.currency, changes.priceCents) } },
      operation: 'updateOffer',
    });
  }
  const url = offer.listing?.listingId ? `https://www.ebay.com/itm/${offer.listing.listingId}` : undefined;
  if (changes.published === true) {
    await onHand(client, m.language, sku, ON_DEMAND_QUANTITY);
    return listingOf(sku, true, await publishOffer(client, offer.offerId));
  }
  if (changes.published === false && offer.status === 'PUBLISHED') {
    await withdraw(client, m.language, offer);
    return listingOf(sku, false, url);
  }
  return listingOf(sku, offer.status === 'PUBLISHED', url);
}

/**
 * The item's quantity on hand: what the listings sync reads as on sale (an inventory item carries no offer status), so
 * a withdrawn offer's item is set to 0 and a published one's back to ON_DEMAND_QUANTITY.
 */
async function onHand(client: EbayClient, language: string, sku: string, quantity: number): Promise<void> {
  await rewriteItem(client, language, sku, (item) => ({
    ...item,
    availability: { ...item.availability, shipToLocationAvailability: { quantity } },
  }));
}

/** The inventory item read, changed and written back whole (createOrReplaceInventoryItem replaces it). */
async function rewriteItem(client: EbayClient, language: string, sku: string, change: (item: any) => object) {
  const path = `${INVENTORY}/inventory_item/${encodeURIComponent(sku)}`;
  const item = await client.call<any>({ method: 'GET', path, operation: 'getInventoryItem', allow: [404] });
  if (!item) return;
  const { sku: _s, locale: _l, groupIds: _g, inventoryItemGroupKeys: _k, ...writable } = item;
  const headers = { 'content-language': language };
  await client.call({
    method: 'PUT',
    path,
    headers,
    json: change(writable),
    operation: 'createOrReplaceInventoryItem',
  });
}

/** Ends the offer's eBay listing and takes its item off hand. */
async function withdraw(client: EbayClient, language: string, offer: Offer): Promise<void> {
  const path = `${INVENTORY}/offer/${encodeURIComponent(offer.offerId)}/withdraw`;
  await client.call({ method: 'POST', path, operation: 'withdrawOffer', allow: [404] });
  await onHand(client, language, offer.sku, 0);
}

/** Ends the eBay listing (withdraws the offer); one already gone or never published is not an error. */
export async function unpublishEbayListing(client: EbayClient, credentials: EbayCredentials, ref: ListingRef) {
  const m = marketplaceOf(credentials);
  const offer = await findOffer(client, ref.externalProductId, m.id);
  if (offer?.status === 'PUBLISHED') await withdraw(client, m.language, offer);
}
