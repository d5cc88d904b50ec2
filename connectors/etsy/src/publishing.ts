import {
  ConnectorError,
  minorUnitsToDecimal,
  type HttpClient,
  parsePayload,
  type ListingChanges,
  type ListingDraft,
  type ListingRef,
  type PublishedListing,
} from '@print-api/connector-kit';
import { z } from 'zod';
import type { EtsySettings } from './config.ts';
import type { EtsyClient } from './etsy-client.ts';
import { downloadImages, uploadImages } from './listing-images.ts';
import { shopProfiles, type ShopProfiles } from './shop-profiles.ts';

/** Etsy's largest offering quantity: a listing printed on demand never sells out. */
const ON_DEMAND_QUANTITY = 999;
const WHO_MADE = ['i_did', 'someone_else', 'collective'] as const;
const WHEN_MADE = [
  'made_to_order',
  '2020_2026',
  '2010_2019',
  '2007_2009',
  'before_2007',
  '2000_2006',
  '1990s',
  '1980s',
  '1970s',
  '1960s',
  '1950s',
  '1940s',
  '1930s',
  '1920s',
  '1910s',
  '1900s',
  '1800s',
  '1700s',
  'before_1700',
] as const;

const positiveId = z.coerce.number().int().positive();
/** `draft.platformOptions` for Etsy: what a listing needs that the draft does not carry. */
const optionsSchema = z.strictObject({
  taxonomyId: positiveId.optional(),
  shippingProfileId: positiveId.optional(),
  returnPolicyId: positiveId.optional(),
  readinessStateId: positiveId.optional(),
  whoMade: z.enum(WHO_MADE).optional(),
  whenMade: z.enum(WHEN_MADE).optional(),
});

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const listingSchema = z.object({ listing_id: id, state: z.string(), url: z.string().nullish() });
type EtsyListing = z.infer<typeof listingSchema>;
const inventorySchema = z.object({
  products: z.array(
    z.object({
      product_id: id,
      sku: z.string().nullish(),
      is_deleted: z.boolean().nullish(),
      property_values: z
        .array(
          z.object({
            property_id: z.number(),
            value_ids: z.array(z.number()),
            values: z.array(z.string()),
            scale_id: z.number().nullish(),
            property_name: z.string().nullish(),
          }),
        )
        .nullish(),
      offerings: z
        .array(
          z.object({
            quantity: z.number(),
            is_enabled: z.boolean(),
            is_deleted: z.boolean().nullish(),
            readiness_state_id: z.number().nullish(),
          }),
        )
        .nullish(),
    }),
  ),
  price_on_property: z.array(z.number()).nullish(),
  quantity_on_property: z.array(z.number()).nullish(),
  sku_on_property: z.array(z.number()).nullish(),
});
const shopSchema = z.object({ currency_code: z.string(), shop_location_country_iso: z.string().nullish() });

/** The draft's options, else the connector's settings; refused (with the reason) when Etsy could not take them. */
function listingOptions(settings: EtsySettings, draft: ListingDraft) {
  const parsed = optionsSchema.safeParse(draft.platformOptions ?? {});
  if (!parsed.success)
    throw new ConnectorError(
      'invalid_payload',
      `Etsy's platformOptions: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ')}`,
    );
  const o = parsed.data;
  return {
    taxonomyId: o.taxonomyId ?? settings.defaultTaxonomyId,
    shippingProfileId: o.shippingProfileId,
    returnPolicyId: o.returnPolicyId,
    readinessStateId: o.readinessStateId,
    whoMade: o.whoMade ?? settings.defaultWhoMade,
    whenMade: o.whenMade ?? settings.defaultWhenMade,
  };
}

async function getShop(client: EtsyClient, shopId: string): Promise<z.infer<typeof shopSchema>> {
  return parsePayload(
    shopSchema,
    await client.call({ method: 'GET', path: `/shops/${shopId}`, operation: 'getShop' }),
    'Etsy shop',
  );
}

/**
 * The shop's currency (`getShop`'s `currency_code`), upper case: what its listings are priced in (the connector's
 * `storeCurrency`).
 */
export async function etsyShopCurrency(client: EtsyClient, shopId: string): Promise<string> {
  return (await getShop(client, shopId)).currency_code.toUpperCase();
}

/**
 * Where the shop is located (`getShop`'s `shop_location_country_iso`; null when the shop has not said): the connector's
 * `storeCountry`.
 */
export async function etsyShopCountry(client: EtsyClient, shopId: string): Promise<string | null> {
  return (await getShop(client, shopId)).shop_location_country_iso?.toUpperCase() || null;
}

/**
 * The price as Etsy takes it, in the shop's currency: the exact decimal string made from the
 * cents (2495 -> "24.95"; form fields are text, and the JSON number of that string has the same
 * digits). A draft in another currency is refused: Etsy prices a listing in the shop's only.
 */
async function shopPrice(
  client: EtsyClient,
  shopId: string,
  priceCents: number,
  asked: string | undefined,
): Promise<string> {
  const currency = await etsyShopCurrency(client, shopId);
  if (asked && asked.toUpperCase() !== currency)
    throw new ConnectorError(
      'invalid_payload',
      `The Etsy shop sells in ${currency}, not ${asked}: give the price in ${currency}.`,
    );
  return minorUnitsToDecimal(priceCents, currency);
}

const offering = (
  price: string,
  readinessStateId: number | null | undefined,
  quantity = ON_DEMAND_QUANTITY,
  enabled = true,
) => ({ price: Number(price), quantity, is_enabled: enabled, readiness_state_id: readinessStateId ?? null });

/** What keeps a listing from going on sale on Etsy, as the merchant can act on it. */
function missingForActivation(p: ShopProfiles, images: number, imageProblem: string | null): string[] {
  const missing: string[] = [];
  if (imageProblem)
    missing.push(`an image: ${imageProblem}; upload one to the listing in Shop Manager, then publish it again`);
  else if (images === 0)
    missing.push(
      'an image (Etsy lists nothing without one): give imageUrls, or upload one to the listing in Shop Manager, then publish it again',
    );
  if (!p.readinessStateId) missing.push('a processing profile (create one in Shop Manager)');
  if (!p.returnPolicyId) missing.push('a return policy, outside the EU (create one in Shop Manager)');
  return missing;
}

function listingOf(listing: EtsyListing, variantId: string | null, notice?: string): PublishedListing {
  return {
    externalProductId: listing.listing_id,
    externalVariantId: variantId,
    status: listing.state === 'active' ? 'active' : 'draft',
    ...(listing.url ? { url: listing.url } : {}),
    ...(notice ? { notice } : {}),
  };
}

/**
 * The product's images downloaded first (Etsy takes files, not URLs; a URL that gives no image refuses the publish
 * before anything is made), then `createDraftListing` (a physical draft in the shop's currency, the options' taxonomy,
 * who and when made, shipping and return profiles), `updateListingInventory` to put the SKU and the price on its only
 * product's offering (quantity 999: printed on demand), `uploadListingImage` for each image, and, when it is to be
 * published and Etsy has all it needs (an image above all: Etsy activates no listing without one), `updateListing`
 * with `state: active`. Otherwise it stays a draft, and `notice` says what it still needs.
 */
export async function publishEtsyListing(
  client: EtsyClient,
  http: HttpClient,
  settings: EtsySettings,
  shopId: string,
  draft: ListingDraft,
): Promise<PublishedListing> {
  const o = listingOptions(settings, draft);
  if (!o.taxonomyId)
    throw new ConnectorError(
      'invalid_payload',
      'Etsy needs a taxonomy for every listing: give platformOptions.taxonomyId (a seller taxonomy id, e.g. 2078 for Prints).',
    );
  const price = await shopPrice(client, shopId, draft.priceCents, draft.currency);
  const profiles = await shopProfiles(client, shopId, o);
  const images = await downloadImages(http, draft.imageUrls);
  const form: Record<string, string> = {
    quantity: String(ON_DEMAND_QUANTITY),
    title: draft.title,
    description: draft.description?.trim() || draft.title,
    price,
    who_made: o.whoMade,
    when_made: o.whenMade,
    taxonomy_id: String(o.taxonomyId),
    type: 'physical',
    is_supply: 'false',
    shipping_profile_id: String(profiles.shippingProfileId),
    ...(profiles.returnPolicyId ? { return_policy_id: String(profiles.returnPolicyId) } : {}),
    ...(profiles.readinessStateId ? { readiness_state_id: String(profiles.readinessStateId) } : {}),
  };
  const listing = parsePayload(
    listingSchema,
    await client.call({ method: 'POST', path: `/shops/${shopId}/listings`, form, operation: 'createDraftListing' }),
    'Etsy listing',
  );
  const inventory = {
    products: [{ sku: draft.sku, property_values: [], offerings: [offering(price, profiles.readinessStateId)] }],
    price_on_property: [],
    quantity_on_property: [],
    sku_on_property: [],
  };
  let written;
  try {
    written = parsePayload(
      inventorySchema,
      await client.call({
        method: 'PUT',
        path: `/listings/${listing.listing_id}/inventory`,
        json: inventory,
        operation: 'updateListingInventory',
      }),
      'Etsy listing inventory',
    );
  } catch (err) {
    // The draft exists without its SKU: say which, so the merchant can delete or fix it (deleting needs listings_d,
    // which we do not ask for).
    if (err instanceof ConnectorError)
      throw new ConnectorError(
        err.kind,
        `${err.message} (Etsy kept the draft listing ${listing.listing_id} without its SKU: delete it in Shop Manager)`,
        {
          ...(err.retryAfterMs ? { retryAfterMs: err.retryAfterMs } : {}),
          ...(err.status ? { status: err.status } : {}),
        },
      );
    throw err;
  }
  const product = written.products.find((p) => p.sku === draft.sku && !p.is_deleted) ?? written.products[0];
  const variantId = product?.product_id ?? null;
  const imageProblem = await uploadImages(client, shopId, listing.listing_id, images, draft.title);
  const missing = missingForActivation(profiles, images.length, imageProblem);
  if (!draft.published)
    return listingOf(listing, variantId, imageProblem ? `Etsy keeps the draft without ${imageProblem}.` : undefined);
  if (missing.length > 0)
    return listingOf(listing, variantId, `Etsy keeps the listing a draft: it needs ${missing.join(', ')}.`);
  return activate(client, shopId, listing, variantId);
}

/** Puts the complete draft on sale; Etsy's refusal keeps it a draft, its reason the notice (the listing exists). */
async function activate(
  client: EtsyClient,
  shopId: string,
  listing: EtsyListing,
  variantId: string | null,
): Promise<PublishedListing> {
  try {
    const active = parsePayload(
      listingSchema,
      await client.call({
        method: 'PATCH',
        path: `/shops/${shopId}/listings/${listing.listing_id}`,
        form: { state: 'active' },
        operation: 'updateListing',
      }),
      'Etsy listing',
    );
    return listingOf(active, variantId);
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    return listingOf(
      listing,
      variantId,
      `Etsy keeps the listing a draft: putting it on sale failed (${err.message}); publish it again.`,
    );
  }
}

/** The listing as Etsy holds it now; null when it is gone. */
async function readListing(client: EtsyClient, listingId: string): Promise<EtsyListing | null> {
  try {
    return parsePayload(
      listingSchema,
      await client.call({ method: 'GET', path: `/listings/${listingId}`, operation: 'getListing' }),
      'Etsy listing',
    );
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return null;
    throw err;
  }
}

export async function getEtsyListing(client: EtsyClient, ref: ListingRef): Promise<PublishedListing> {
  const listing = await readListing(client, ref.externalProductId);
  if (!listing)
    throw new ConnectorError('invalid_payload', `Etsy has no listing ${ref.externalProductId}`, { status: 404 });
  return listingOf(listing, ref.externalVariantId);
}

/**
 * Every offering's price changed, the rest of the inventory written back as it was (Etsy
 * replaces the whole inventory, and may number its products anew): answers the product id the
 * listing's product has now.
 */
async function reprice(
  client: EtsyClient,
  shopId: string,
  ref: ListingRef,
  priceCents: number,
  currency: string | undefined,
): Promise<string | null> {
  const listingId = ref.externalProductId;
  const price = await shopPrice(client, shopId, priceCents, currency);
  const current = parsePayload(
    inventorySchema,
    await client.call({ method: 'GET', path: `/listings/${listingId}/inventory`, operation: 'getListingInventory' }),
    'Etsy listing inventory',
  );
  // Etsy gives an offering's readiness_state_id for active physical listings only: a draft's reads null, and a null
  // written back would strip its processing profile. Such offerings get the shop's (its only one).
  const unknownReadiness = current.products.some((p) => (p.offerings ?? []).some((f) => f.readiness_state_id == null));
  const readiness = unknownReadiness
    ? (await shopProfiles(client, shopId, { shippingProfileId: 0, returnPolicyId: 0 })).readinessStateId
    : null;
  const products = current.products
    .filter((p) => !p.is_deleted)
    .map((p) => ({
      sku: p.sku ?? null,
      property_values: (p.property_values ?? []).map((v) => ({
        property_id: v.property_id,
        value_ids: v.value_ids,
        values: v.values,
        ...(v.scale_id ? { scale_id: v.scale_id } : {}),
      })),
      offerings: (p.offerings ?? [])
        .filter((f) => !f.is_deleted)
        .map((f) => offering(price, f.readiness_state_id ?? readiness, f.quantity, f.is_enabled)),
    }));
  const json = {
    products,
    price_on_property: current.price_on_property ?? [],
    quantity_on_property: current.quantity_on_property ?? [],
    sku_on_property: current.sku_on_property ?? [],
  };
  const written = parsePayload(
    inventorySchema,
    await client.call({
      method: 'PUT',
      path: `/listings/${listingId}/inventory`,
      json,
      operation: 'updateListingInventory',
    }),
    'Etsy listing inventory',
  );
  return written.products.length === 1 ? written.products[0]!.product_id : ref.externalVariantId;
}

/**
 * Title and state with `updateListing` (PATCH, form-encoded; `active` publishes it, which Etsy
 * refuses without an image: its reason comes back as `invalid_payload`; `inactive` takes it off
 * sale, and a draft stays a draft), the price in the inventory (`updateListingInventory`).
 */
export async function updateEtsyListing(
  client: EtsyClient,
  shopId: string,
  ref: ListingRef,
  changes: ListingChanges,
): Promise<PublishedListing> {
  if (changes.title === undefined && changes.priceCents === undefined && changes.published === undefined)
    throw new ConnectorError('invalid_payload', 'Nothing to change: give a title, a price or whether it is published');
  const variantId =
    changes.priceCents !== undefined
      ? await reprice(client, shopId, ref, changes.priceCents, changes.currency)
      : ref.externalVariantId;
  const form: Record<string, string> = {};
  if (changes.title !== undefined) form.title = changes.title;
  if (changes.published === true) form.state = 'active';
  if (changes.published === false && (await readListing(client, ref.externalProductId))?.state === 'active')
    form.state = 'inactive';
  if (Object.keys(form).length === 0) return getEtsyListing(client, { ...ref, externalVariantId: variantId });
  const listing = parsePayload(
    listingSchema,
    await client.call({
      method: 'PATCH',
      path: `/shops/${shopId}/listings/${ref.externalProductId}`,
      form,
      operation: 'updateListing',
    }),
    'Etsy listing',
  );
  return listingOf(listing, variantId);
}

/**
 * Deactivates an active listing (`state: inactive`): off sale, kept with its SKU for the
 * receipts that name it, and the merchant can renew it. Not deleted: `deleteListing` needs the
 * `listings_d` scope and is final. A draft or inactive listing is left as it is; one already
 * gone is not an error.
 */
export async function unpublishEtsyListing(client: EtsyClient, shopId: string, ref: ListingRef): Promise<void> {
  const listing = await readListing(client, ref.externalProductId);
  if (listing?.state !== 'active') return;
  await client.call({
    method: 'PATCH',
    path: `/shops/${shopId}/listings/${ref.externalProductId}`,
    form: { state: 'inactive' },
    operation: 'updateListing',
  });
}
