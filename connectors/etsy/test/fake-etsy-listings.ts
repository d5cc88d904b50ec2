import { decimalToMinorUnits } from '@print-api/connector-kit';
import type { FakeReply } from '@print-api/connector-kit/testing';
import type { FakeEtsyShop, ListingJson, SeenCall } from './fake-etsy.ts';

/** What a shop has set up in Shop Manager that listings refer to, and the images its listings have. */
export interface ShopSetup {
  currency: string;
  /** Where the shop is located (`shop_location_country_iso`; Etsy answers null when it is not set). */
  country: string | null;
  shippingProfiles: number[];
  readinessStates: number[];
  returnPolicies: number[];
  /** What Shop Manager calls each profile and policy, by id (an id without a name gets one made of it). */
  names: Map<number, string>;
  /** The images of each listing, by listing id: uploaded through `uploadListingImage`, or in Shop Manager. */
  images: Map<string, ListingImage[]>;
}

/** A listing's image as Etsy keeps it: what was uploaded, and where it shows. */
export interface ListingImage {
  listing_image_id: number;
  rank: number;
  alt_text: string;
  filename: string;
  /** What the file's bytes are (Etsy reads them, not the part's Content-Type). */
  type: 'jpeg' | 'png' | 'gif';
  bytes: Buffer;
}

export const shopSetup = (): ShopSetup => ({
  currency: 'USD',
  country: 'US',
  shippingProfiles: [190712345],
  readinessStates: [1402345678],
  returnPolicies: [1203456789],
  names: new Map(),
  images: new Map(),
});

/** A listing the connector wrote, with the fields Etsy keeps that the fixture's listings do not show. */
type WrittenListing = ListingJson & {
  shipping_profile_id: number | null;
  readiness_state_id: number | null;
  taxonomy_id: number;
  who_made: string;
  when_made: string;
};

let nextListing = 4_100_000_001;
let nextImage = 6_200_000_001;
let nextProduct = 9_100_000_001;
const bad = (error: string): FakeReply => [400, { error }];
const form = (c: SeenCall) => Object.fromEntries(new URLSearchParams(c.body));

/**
 * Etsy's title rule (its document): letters, digits, punctuation, maths symbols, spaces, ™©®; %, :, & and + once each.
 */
function titleProblem(title: string): string | null {
  if (title.trim() === '') return 'title must not be empty';
  if (title.length > 140) return 'title must be at most 140 characters';
  if (/[^\p{L}\p{Nd}\p{P}\p{Sm}\p{Zs}™©®]/u.test(title))
    return 'title may only contain letters, numbers, punctuation, mathematical symbols, whitespace, ™, © and ®';
  for (const c of ['%', ':', '&', '+'])
    if (title.split(c).length > 2) return `title may use the ${c} character only once`;
  return null;
}

const money = (setup: ShopSetup, price: number) => ({
  amount: decimalToMinorUnits(price, setup.currency) ?? Math.round(price * 100),
  divisor: 100,
  currency_code: setup.currency,
});
/** A ShopListing as createDraftListing, updateListing and getListing answer it: no inventory unless asked. */
const withoutInventory = (l: ListingJson): Record<string, unknown> =>
  Object.fromEntries(Object.entries(l).filter(([k]) => k !== 'inventory'));

function createDraftListing(shop: FakeEtsyShop, c: SeenCall): FakeReply {
  const f = form(c);
  const problem = titleProblem(f.title ?? '');
  if (problem) return bad(problem);
  const price = Number(f.price);
  if (!(price > 0)) return bad('price must be greater than 0');
  const quantity = Number(f.quantity);
  if (!(quantity >= 1 && quantity <= 999)) return bad('quantity must be between 1 and 999');
  const setup = shop.setup;
  // What Etsy's document says in prose, beyond its schema.
  if ((f.type ?? 'physical') === 'physical' && !f.shipping_profile_id)
    return bad('A shipping_profile_id is required for physical listings.');
  const made = ['who_made', 'when_made', 'is_supply'].filter((k) => f[k] !== undefined);
  if (made.length > 0 && made.length < 3) return bad('who_made, when_made and is_supply must be given together.');
  if (f.shipping_profile_id && !setup.shippingProfiles.includes(Number(f.shipping_profile_id)))
    return [404, { error: `Shipping profile ${f.shipping_profile_id} not found for this shop` }];
  if (f.readiness_state_id && !setup.readinessStates.includes(Number(f.readiness_state_id)))
    return [404, { error: `Readiness state ${f.readiness_state_id} not found for this shop` }];
  if (f.return_policy_id && !setup.returnPolicies.includes(Number(f.return_policy_id)))
    return [404, { error: `Return policy ${f.return_policy_id} not found for this shop` }];
  const id = nextListing++;
  const now = Math.floor(Date.now() / 1000);
  const slug = f
    .title!.toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const listing: WrittenListing = {
    listing_id: id,
    user_id: Number(shop.userId),
    shop_id: Number(shop.shopId),
    title: f.title!,
    description: f.description!,
    state: 'draft',
    creation_timestamp: now,
    created_timestamp: now,
    quantity,
    url: `https://www.etsy.com/listing/${id}/${slug}`,
    skus: [],
    has_variations: false,
    is_digital: false,
    shipping_profile_id: f.shipping_profile_id ? Number(f.shipping_profile_id) : null,
    readiness_state_id: f.readiness_state_id ? Number(f.readiness_state_id) : null,
    taxonomy_id: Number(f.taxonomy_id),
    who_made: f.who_made!,
    when_made: f.when_made!,
    inventory: {
      products: [
        {
          product_id: nextProduct++,
          sku: '',
          is_deleted: false,
          offerings: [
            { offering_id: nextProduct++, quantity, is_enabled: true, is_deleted: false, price: money(setup, price) },
          ],
          property_values: [],
        },
      ],
      price_on_property: [],
      quantity_on_property: [],
      sku_on_property: [],
    },
  };
  shop.listings.push(listing);
  return [201, withoutInventory(listing)];
}

/** Etsy replaces the whole inventory; each product gets a product id again. */
function updateInventory(shop: FakeEtsyShop, listing: ListingJson, c: SeenCall): FakeReply {
  const body = JSON.parse(c.body) as {
    products: Array<{
      sku?: string | null;
      property_values?: ListingJson['inventory']['products'][number]['property_values'];
      offerings: Array<{ price: number; quantity: number; is_enabled: boolean; readiness_state_id: number | null }>;
    }>;
  };
  if (body.products.length === 0) return bad('products must contain at least one product');
  for (const p of body.products) {
    if (!p.property_values?.length && p.offerings.length !== 1)
      return bad('a product without property values has exactly one offering');
    for (const o of p.offerings) {
      if (!(o.price >= 0.2)) return bad(`price ${o.price} is below the minimum of 0.20`);
      if (!(o.quantity >= 0 && o.quantity <= 999)) return bad('quantity must be between 0 and 999');
      // A physical listing's offerings each need their processing profile (a null one read from a draft is refused).
      if (o.readiness_state_id === null && shop.setup.readinessStates.length > 0)
        return bad('readiness_state_id is required for the offerings of a physical listing');
      if (o.readiness_state_id !== null && !shop.setup.readinessStates.includes(o.readiness_state_id))
        return [404, { error: `Readiness state ${o.readiness_state_id} not found for this shop` }];
    }
  }
  const products = body.products.map((p) => ({
    product_id: nextProduct++,
    sku: p.sku ?? '',
    is_deleted: false,
    offerings: p.offerings.map((o) => ({
      offering_id: nextProduct++,
      quantity: o.quantity,
      is_enabled: o.is_enabled,
      is_deleted: false,
      price: money(shop.setup, o.price),
      readiness_state_id: o.readiness_state_id,
    })),
    property_values: p.property_values ?? [],
  }));
  listing.inventory = { products, price_on_property: [], quantity_on_property: [], sku_on_property: [] };
  listing.skus = products.map((p) => p.sku).filter(Boolean);
  listing.quantity = products.flatMap((p) => p.offerings).reduce((n, o) => n + (o.is_enabled ? o.quantity : 0), 0);
  return [200, listing.inventory];
}

/** The image types Etsy lists (its Shop Manager takes JPEG, PNG and GIF), by their first bytes. */
function imageType(bytes: Buffer): ListingImage['type'] | null {
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'png';
  if (/^GIF8[79]a/.test(bytes.subarray(0, 6).toString('latin1'))) return 'gif';
  return null;
}

/** The merchant uploads an image to the listing in Shop Manager (what `completeListing` does). */
export function uploadInShopManager(shop: FakeEtsyShop, listingId: string): void {
  const images = shop.setup.images.get(listingId) ?? [];
  images.push({
    listing_image_id: nextImage++,
    rank: images.length + 1,
    alt_text: '',
    filename: 'photo.jpg',
    type: 'jpeg',
    bytes: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
  });
  shop.setup.images.set(listingId, images);
}

/** Etsy's answer when a listing has all its images ("Listings are only allowed 10 images", etsy/open-api#606). */
const MAX_IMAGES = 10;
/** Etsy's answer to a part that is not an image it reads, or no part at all (etsy/open-api#180, #233). */
const NO_IMAGE = 'Either a valid image file or a listing_image_id must be provided.';

/**
 * `uploadListingImage` (its form checked against the document before): a new file in `image`, at `rank` (1 unless
 * given), replacing the image there with `overwrite`, else moving the others right. What the document says in
 * prose: `listing_image_id` re-assigns a deleted image (we keep none, so it is not found), `image` wins when both are
 * given, alt text is at most 500 characters; and what Etsy answers in its issue threads: the file must be an image it
 * reads, a listing has at most 10.
 */
async function uploadImage(listing: WrittenListing, images: ListingImage[], c: SeenCall): Promise<FakeReply> {
  const form = c.multipart!;
  const file = form.get('image');
  if (!(file instanceof File)) {
    const reassigned = form.get('listing_image_id');
    return reassigned
      ? [404, { error: `Listing image ${reassigned} not found for listing ${listing.listing_id}` }]
      : bad(NO_IMAGE);
  }
  const bytes = Buffer.from(await file.arrayBuffer());
  const type = imageType(bytes);
  if (!type) return bad(NO_IMAGE);
  const altText = String(form.get('alt_text') ?? '');
  if (altText.length > 500) return bad('alt_text must be at most 500 characters.');
  const rank = Math.max(1, Number(form.get('rank') ?? 1));
  const overwrite = form.get('overwrite') === 'true';
  if (!overwrite && images.length >= MAX_IMAGES)
    return bad(
      `Listings are only allowed ${MAX_IMAGES} images. Please delete a ListingImage before trying to upload another.`,
    );
  const kept = overwrite ? images.filter((i) => i.rank !== rank) : images;
  for (const i of kept) if (i.rank >= rank && !overwrite) i.rank++;
  const image: ListingImage = {
    listing_image_id: nextImage++,
    rank,
    alt_text: altText,
    filename: file.name,
    type,
    bytes,
  };
  images.splice(0, images.length, ...[...kept, image].sort((a, b) => a.rank - b.rank));
  const url = (size: string) =>
    `https://i.etsystatic.com/${listing.shop_id}/r/il/${image.listing_image_id}/il_${size}.jpg`;
  const now = Math.floor(Date.now() / 1000);
  // Colours and sizes are null at first: Etsy works them out after answering.
  return [
    201,
    {
      listing_id: listing.listing_id,
      listing_image_id: image.listing_image_id,
      hex_code: null,
      red: null,
      green: null,
      blue: null,
      hue: null,
      saturation: null,
      brightness: null,
      is_black_and_white: null,
      creation_tsz: now,
      created_timestamp: now,
      rank,
      url_75x75: url('75x75'),
      url_170x135: url('170x135'),
      url_570xN: url('570xN'),
      url_fullxfull: url('fullxfull'),
      full_height: null,
      full_width: null,
      alt_text: altText,
    },
  ];
}

/** Etsy's rules for going on sale: an image, and for a physical listing a shipping profile. */
function updateListing(shop: FakeEtsyShop, listing: WrittenListing, c: SeenCall): FakeReply {
  const f = form(c);
  if (f.title !== undefined) {
    const problem = titleProblem(f.title);
    if (problem) return bad(problem);
  }
  if (f.state === 'active') {
    if (!shop.setup.images.get(String(listing.listing_id))?.length)
      return bad('A listing must have at least one image before it can be activated');
    if (!listing.shipping_profile_id)
      return bad('A physical listing needs a shipping profile before it can be activated');
  }
  if (f.title !== undefined) listing.title = f.title;
  if (f.state) listing.state = f.state;
  return [200, withoutInventory(listing)];
}

/**
 * The listing writes of Etsy's Open API v3 (after the fake's key, token and contract checks):
 * `createDraftListing`, `updateListing`, `uploadListingImage`, `getListing`, `getListingInventory`,
 * `updateListingInventory`, each on the token owner's shop only. Null: not one of these.
 */
export async function listingRoute(
  shops: Map<string, FakeEtsyShop>,
  userId: string,
  c: SeenCall,
): Promise<FakeReply | null> {
  const created = /^\/v3\/application\/shops\/(\d+)\/listings$/.exec(c.path);
  const patched = /^\/v3\/application\/shops\/(\d+)\/listings\/(\d+)$/.exec(c.path);
  const imaged = /^\/v3\/application\/shops\/(\d+)\/listings\/(\d+)\/images$/.exec(c.path);
  const byId = /^\/v3\/application\/listings\/(\d+)(\/inventory)?$/.exec(c.path);
  if (
    !(created && c.method === 'POST') &&
    !(patched && c.method === 'PATCH') &&
    !(imaged && c.method === 'POST') &&
    !byId
  )
    return null;
  const shopId = created?.[1] ?? patched?.[1] ?? imaged?.[1];
  const listingId = patched?.[2] ?? imaged?.[2] ?? byId?.[1];
  const shop = shopId
    ? shops.get(shopId)
    : [...shops.values()].find((s) => s.listings.some((l) => String(l.listing_id) === listingId));
  const listing = shop?.listings.find((l) => String(l.listing_id) === listingId) as WrittenListing | undefined;
  if (created) {
    if (!shop) return [404, { error: `Shop ${shopId} not found` }];
    return shop.userId === userId
      ? createDraftListing(shop, c)
      : [403, { error: 'You do not have permission to access this shop' }];
  }
  if (!shop || !listing) return [404, { error: `Listing ${listingId} not found` }];
  if (shop.userId !== userId)
    return listing.state === 'active' && c.method === 'GET' && !byId?.[2]
      ? [200, withoutInventory(listing)]
      : [403, { error: 'You do not have permission to access this listing' }];
  if (patched) return updateListing(shop, listing, c);
  if (imaged) {
    const images = shop.setup.images.get(listingId!) ?? [];
    shop.setup.images.set(listingId!, images);
    return uploadImage(listing, images, c);
  }
  if (!byId![2]) return [200, withoutInventory(listing)];
  if (c.method === 'PUT') return updateInventory(shop, listing, c);
  // Etsy returns readiness_state_id only for active physical listings: a draft's offerings read null.
  if (listing.state === 'active') return [200, listing.inventory];
  return [
    200,
    {
      ...listing.inventory,
      products: listing.inventory.products.map((p) => ({
        ...p,
        offerings: p.offerings.map((o) => ({ ...o, readiness_state_id: null })),
      })),
    },
  ];
}

/** The shop's shipping profiles, processing profiles and return policies, as Shop Manager names them. */
export function shopSetupRoute(shop: FakeEtsyShop, c: SeenCall, rest: string): FakeReply | null {
  if (c.method !== 'GET') return null;
  const name = (id: number, fallback: string) => shop.setup.names.get(id) ?? `${fallback} ${id}`;
  const list = (results: unknown[]): FakeReply => [200, { count: results.length, results }];
  if (rest === '/shipping-profiles')
    return list(
      shop.setup.shippingProfiles.map((id) => ({
        shipping_profile_id: id,
        title: name(id, 'Shipping'),
        user_id: Number(shop.userId),
        origin_country_iso: shop.setup.country ?? 'US',
        is_deleted: false,
        profile_type: 'manual',
      })),
    );
  if (rest === '/readiness-state-definitions')
    return list(
      shop.setup.readinessStates.map((id) => ({
        shop_id: Number(shop.shopId),
        readiness_state_id: id,
        readiness_state: 'made_to_order',
        min_processing_days: 1,
        max_processing_days: 3,
        processing_days_display_label: name(id, 'Processing'),
      })),
    );
  if (rest === '/policies/return')
    return list(
      shop.setup.returnPolicies.map((id) => ({
        return_policy_id: id,
        shop_id: Number(shop.shopId),
        accepts_returns: true,
        accepts_exchanges: false,
        return_deadline: 30,
      })),
    );
  return null;
}
