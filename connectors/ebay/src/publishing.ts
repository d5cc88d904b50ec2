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

/** What keeps an offer without a picture from going on sale (eBay lists nothing without one). */
const NO_PICTURE =
  'eBay lists nothing without a picture: the offer is made but not published. Add a picture to the inventory item in Seller Hub (or publish again with imageUrls), then PATCH the listing with published true.';
/** An inventory item printed on demand never sells out: the quantity eBay shows as available. */
const ON_DEMAND_QUANTITY = 99;
const digits = z.coerce.string().regex(/^\d+$/, 'must be an eBay id (digits)');
/** `draft.platformOptions` for eBay: the category, and a business policy or location where the seller has several. */
const optionsSchema = z.strictObject({
  categoryId: digits.optional(),
  fulfillmentPolicyId: digits.optional(),
  paymentPolicyId: digits.optional(),
  returnPolicyId: digits.optional(),
  merchantLocationKey: z.string().min(1).max(36).optional(),
});
type Options = z.infer<typeof optionsSchema>;

const offerSchema = z.looseObject({
  offerId: z.string(),
  sku: z.string(),
  status: z.string().nullish(),
  listing: z.object({ listingId: z.string().nullish() }).nullish(),
});
type Offer = z.infer<typeof offerSchema>;
const offersSchema = z.object({ offers: z.array(offerSchema).nullish() });

export function marketplaceOf(credentials: EbayCredentials) {
  return { id: credentials.marketplaceId, ...(MARKETPLACES[credentials.marketplaceId] ?? MARKETPLACES.EBAY_US!) };
}

function optionsOf(draft: ListingDraft): Options {
  const parsed = optionsSchema.safeParse(draft.platformOptions ?? {});
  if (!parsed.success)
    throw new ConnectorError(
      'invalid_payload',
      `eBay's platformOptions: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/**
 * One of the seller's choices, as Etsy's profiles are chosen: the one named in platformOptions, else the seller's only
 * one; none, or several and none named, is refused with what to do (the choices named).
 */
function choose(
  what: string,
  option: string,
  marketplace: string,
  list: Array<{ id: string; name: string }>,
  given?: string,
) {
  if (given) {
    if (list.some((c) => c.id === given)) return given;
    throw new ConnectorError(
      'invalid_payload',
      `eBay: the seller has no ${what} ${given} on ${marketplace}: ${choices(list)}`,
    );
  }
  if (list.length === 1) return list[0]!.id;
  if (list.length === 0)
    throw new ConnectorError(
      'invalid_payload',
      `eBay: the seller has no ${what} on ${marketplace}: create one in Seller Hub (business policies are opted into under Account > Business policies), then publish again`,
    );
  throw new ConnectorError(
    'invalid_payload',
    `eBay: the seller has ${list.length} ${what}s on ${marketplace}: name one in platformOptions.${option} (${choices(list)})`,
  );
}

const choices = (list: Array<{ id: string; name: string }>) =>
  list.length ? `choose one of ${list.map((c) => `${c.id} (${c.name})`).join(', ')}` : 'it has none';

async function policies(client: EbayClient, kind: 'fulfillment' | 'payment' | 'return', marketplace: string) {
  const key = `${kind}Policies`;
  const body = await client.call<Record<string, unknown>>({
    method: 'GET',
    path: `/sell/account/v1/${kind}_policy`,
    query: { marketplace_id: marketplace },
    operation: `get${kind[0]!.toUpperCase()}${kind.slice(1)}Policies`,
  });
  const list = parsePayload(
    z.array(z.looseObject({ [`${kind}PolicyId`]: z.string(), name: z.string().nullish() })).nullish(),
    body?.[key],
    `eBay ${kind} policies`,
  );
  return (list ?? []).map((p) => ({ id: String(p[`${kind}PolicyId`]), name: String(p.name ?? '') }));
}

async function locations(client: EbayClient) {
  const body = parsePayload(
    z.object({
      locations: z
        .array(
          z.object({
            merchantLocationKey: z.string(),
            name: z.string().nullish(),
            merchantLocationStatus: z.string().nullish(),
          }),
        )
        .nullish(),
    }),
    await client.call({
      method: 'GET',
      path: '/sell/inventory/v1/location',
      query: { limit: 100 },
      operation: 'getInventoryLocations',
    }),
    'eBay inventory locations',
  );
  return (body.locations ?? [])
    .filter((l) => l.merchantLocationStatus !== 'DISABLED')
    .map((l) => ({ id: l.merchantLocationKey, name: l.name ?? '' }));
}

async function findOffer(client: EbayClient, sku: string, marketplace: string): Promise<Offer | null> {
  const body = await client.call({
    method: 'GET',
    path: '/sell/inventory/v1/offer',
    query: { sku, marketplace_id: marketplace },
    operation: 'getOffers',
    allow: [404],
  });
  return body ? (parsePayload(offersSchema, body, 'eBay offers').offers?.[0] ?? null) : null;
}

function price(draftCurrency: string | undefined, currency: string, cents: number) {
  if (draftCurrency && draftCurrency.toUpperCase() !== currency)
    throw new ConnectorError(
      'invalid_payload',
      `The eBay seller sells in ${currency}, not ${draftCurrency}: give the price in ${currency}.`,
    );
  return { value: minorUnitsToDecimal(cents, currency), currency };
}

async function publishOffer(client: EbayClient, offerId: string): Promise<string | null> {
  const body = await client.call<{ listingId?: string }>({
    method: 'POST',
    path: `/sell/inventory/v1/offer/${encodeURIComponent(offerId)}/publish`,
    operation: 'publishOffer',
  });
  return body?.listingId ?? null;
}

const listingOf = (sku: string, listingId: string | null | undefined, active: boolean): PublishedListing => ({
  externalProductId: sku,
  externalVariantId: null,
  status: active ? 'active' : 'draft',
  ...(listingId ? { url: `https://www.ebay.com/itm/${listingId}` } : {}),
});

/**
 * The Inventory API's three steps: the inventory item (PUT by SKU: title, description, images, new, quantity on hand),
 * its offer on the seller's marketplace (price, category, the seller's fulfilment, payment and return policies and
 * inventory location) and, when published, the offer's publication (the eBay listing). A retry finds the offer made
 * before and goes on from it.
 */
export async function publishEbayListing(
  client: EbayClient,
  settings: EbaySettings,
  credentials: EbayCredentials,
  draft: ListingDraft,
): Promise<PublishedListing> {
  const o = optionsOf(draft);
  const m = marketplaceOf(credentials);
  const categoryId = o.categoryId ?? settings.defaultCategoryId;
  if (!categoryId)
    throw new ConnectorError(
      'invalid_payload',
      'eBay lists every offer in a leaf category: give platformOptions.categoryId (e.g. 140, Art Posters, on EBAY_US).',
    );
  const amount = price(draft.currency, m.currency, draft.priceCents);
  const listingPolicies = {
    fulfillmentPolicyId: choose(
      'fulfillment policy',
      'fulfillmentPolicyId',
      m.id,
      await policies(client, 'fulfillment', m.id),
      o.fulfillmentPolicyId,
    ),
    paymentPolicyId: choose(
      'payment policy',
      'paymentPolicyId',
      m.id,
      await policies(client, 'payment', m.id),
      o.paymentPolicyId,
    ),
    returnPolicyId: choose(
      'return policy',
      'returnPolicyId',
      m.id,
      await policies(client, 'return', m.id),
      o.returnPolicyId,
    ),
  };
  const merchantLocationKey = choose(
    'inventory location',
    'merchantLocationKey',
    m.id,
    await locations(client),
    o.merchantLocationKey,
  );
  const description = draft.description?.trim() || draft.title;
  const goesLive = draft.published && draft.imageUrls.length > 0;
  await client.call({
    method: 'PUT',
    path: `/sell/inventory/v1/inventory_item/${encodeURIComponent(draft.sku)}`,
    headers: { 'content-language': m.language },
    json: {
      availability: { shipToLocationAvailability: { quantity: goesLive ? ON_DEMAND_QUANTITY : 0 } },
      condition: 'NEW',
      product: { title: draft.title.slice(0, 80), description, imageUrls: draft.imageUrls.slice(0, 24) },
    },
    operation: 'createOrReplaceInventoryItem',
  });
  const offer = {
    availableQuantity: ON_DEMAND_QUANTITY,
    categoryId,
    listingDescription: description,
    listingPolicies,
    merchantLocationKey,
    pricingSummary: { price: amount },
  };
  let held = await findOffer(client, draft.sku, m.id);
  if (!held) {
    const made = await client.call<{ offerId?: string }>({
      method: 'POST',
      path: '/sell/inventory/v1/offer',
      headers: { 'content-language': m.language },
      json: { sku: draft.sku, marketplaceId: m.id, format: 'FIXED_PRICE', ...offer },
      operation: 'createOffer',
    });
    if (!made?.offerId) throw new ConnectorError('invalid_payload', 'eBay created the offer without answering its id');
    held = { offerId: made.offerId, sku: draft.sku, status: 'UNPUBLISHED' };
  }
  if (!goesLive) return { ...listingOf(draft.sku, null, false), ...(draft.published ? { notice: NO_PICTURE } : {}) };
  return listingOf(draft.sku, await publishOffer(client, held.offerId), true);
}

async function offerOf(client: EbayClient, credentials: EbayCredentials, ref: ListingRef): Promise<Offer> {
  const offer = await findOffer(client, ref.externalProductId, marketplaceOf(credentials).id);
  if (!offer) throw new ConnectorError('invalid_payload', `eBay has no offer for SKU ${ref.externalProductId}`);
  const full = await client.call({
    method: 'GET',
    path: `/sell/inventory/v1/offer/${encodeURIComponent(offer.offerId)}`,
    operation: 'getOffer',
  });
  return parsePayload(offerSchema, full, 'eBay offer');
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
  let offer = await offerOf(client, credentials, ref);
  if (changes.priceCents !== undefined) {
    const { offerId, sku: _s, marketplaceId: _m, format: _f, status: _st, listing: _l, ...writable } = offer;
    await client.call({
      method: 'PUT',
      path: `/sell/inventory/v1/offer/${encodeURIComponent(offerId)}`,
      headers: { 'content-language': m.language },
      json: { ...writable, pricingSummary: { price: price(changes.currency, m.currency, changes.priceCents) } },
      operation: 'updateOffer',
    });
  }
  if (changes.published === true) {
    await onHand(client, m.language, sku, ON_DEMAND_QUANTITY);
    return listingOf(sku, await publishOffer(client, offer.offerId), true);
  }
  if (changes.published === false && offer.status === 'PUBLISHED') {
    await withdraw(client, m.language, offer);
    offer = { ...offer, status: 'UNPUBLISHED' };
  }
  return listingOf(sku, offer.listing?.listingId, offer.status === 'PUBLISHED');
}

/**
 * The item's quantity on hand: what the listings sync reads as on sale (an inventory item carries no offer status), so a
 * withdrawn offer's item is set to 0 and a published one's back to ON_DEMAND_QUANTITY.
 */
async function onHand(client: EbayClient, language: string, sku: string, quantity: number): Promise<void> {
  await rewriteItem(client, language, sku, (item) => ({
    ...item,
    availability: { ...item.availability, shipToLocationAvailability: { quantity } },
  }));
}

/** The inventory item read, changed and written back whole (createOrReplaceInventoryItem replaces it). */
async function rewriteItem(
  client: EbayClient,
  language: string,
  sku: string,
  change: (item: Record<string, any>) => object,
) {
  const path = `/sell/inventory/v1/inventory_item/${encodeURIComponent(sku)}`;
  const item = await client.call<Record<string, unknown>>({
    method: 'GET',
    path,
    operation: 'getInventoryItem',
    allow: [404],
  });
  if (!item) return;
  const { sku: _s, locale: _l, groupIds: _g, inventoryItemGroupKeys: _k, ...writable } = item;
  await client.call({
    method: 'PUT',
    path,
    headers: { 'content-language': language },
    json: change(writable),
    operation: 'createOrReplaceInventoryItem',
  });
}

/** Ends the offer's eBay listing and takes its item off hand. */
async function withdraw(client: EbayClient, language: string, offer: Offer): Promise<void> {
  await client.call({
    method: 'POST',
    path: `/sell/inventory/v1/offer/${encodeURIComponent(offer.offerId)}/withdraw`,
    operation: 'withdrawOffer',
    allow: [404],
  });
  await onHand(client, language, offer.sku, 0);
}

/** Ends the eBay listing (withdraws the offer); one already gone or never published is not an error. */
export async function unpublishEbayListing(
  client: EbayClient,
  credentials: EbayCredentials,
  ref: ListingRef,
): Promise<void> {
  const m = marketplaceOf(credentials);
  const offer = await findOffer(client, ref.externalProductId, m.id);
  if (offer && offer.status === 'PUBLISHED') await withdraw(client, m.language, offer);
}
