import { z } from 'zod';
import { idempotencyKeyOf } from '../../../web/idempotency-key.ts';
import { openApiComponent } from '../../../web/openapi-component.ts';
import { defineRoute, type AnyRoute } from '../../../web/route.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import type { PublicationView } from './publication-view.ts';
import type { StorePublishing } from './store-publishing.ts';
import type { ListingMargin } from './listing-margins.ts';

const tags = ['Stores'];
const storeId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Store id (`sto_…`).', example: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE' });
const listingParams = z.object({
  id: storeId,
  listingId: z.string().min(1).max(64).meta({
    description: 'Published listing id (`pub_…`), from POST /stores/{id}/listings.',
    example: 'pub_01M89R5B7K2W9X4Q6N3T8Z1CVE',
  }),
});

const marginSchema = openApiComponent(
  z.object({
    currency: z
      .string()
      .meta({ description: "The store's currency (ISO 4217): every amount here is in its minor units." }),
    retailCents: z.number().int().meta({ description: 'The retail price (`priceCents`).' }),
    costCents: z.number().int().nullable().meta({
      description:
        "Our price for one piece, delivered to the store's country (discount, shipping and VAT included), converted from euros at `rate`; null when it cannot be worked out (`notice` says why).",
    }),
    marginCents: z.number().int().nullable().meta({
      description: '`retailCents` - `costCents` (negative: the price does not cover ours); null with `costCents`.',
    }),
    country: z
      .string()
      .nullable()
      .meta({ description: "The store's country the quote is for; null while its platform has not said it." }),
    rate: z
      .object({
        base: z.literal('EUR'),
        quote: z.string().meta({ description: "The store's currency." }),
        value: z
          .string()
          .meta({ description: 'Units of `quote` one euro buys, as the ECB wrote it (a decimal string).' }),
        date: z.string().meta({ description: 'The day the ECB set the rate (YYYY-MM-DD).' }),
        source: z.literal('ECB'),
        stale: z.boolean().meta({ description: 'Set more than 4 days ago: no newer rate has been fetched since.' }),
      })
      .nullable()
      .meta({
        description:
          "The European Central Bank's euro reference rate the cost was converted at; null for a store selling in euros (1 implied), or when there is no rate yet.",
      }),
    notice: z.string().nullable().meta({
      description:
        "Why the margin cannot be worked out (no ECB rate for the currency yet, the store's country unknown, a product we cannot quote one piece of), or that its rate is stale.",
    }),
  }),
  'ListingMargin',
);

const publishedListingSchema = openApiComponent(
  z.object({
    id: z.string().meta({ description: 'Our id of the published listing (`pub_…`).' }),
    storeId: z.string(),
    resellerProduct: z.object({ id: z.string(), sku: z.string() }),
    title: z.string(),
    priceCents: z.number().int().meta({ description: "The retail price, in minor units of `currency` (the store's)." }),
    currency: z.string(),
    status: z.enum(['publishing', 'pending', 'active', 'draft']).meta({
      description:
        '`publishing`: asked of the platform, no answer yet (or the answer was lost: publishing again finds the product first); `pending`: the platform is still creating it (read it again with GET); `active`: on sale; `draft`: in the store, not on sale.',
    }),
    externalProductId: z
      .string()
      .nullable()
      .meta({ description: "The platform's id of the product (null while publishing)." }),
    externalVariantId: z
      .string()
      .nullable()
      .meta({ description: 'Null for a product without a variant id of its own.' }),
    url: z.string().nullable(),
    notice: z.string().nullable().meta({ description: 'Something the platform wants you to know about the product.' }),
    matchedBy: z.enum(['sku', 'link']).meta({
      description:
        "How the store's orders for it reach your product: `sku`, the product carries your SKU (a store link backs it up if the SKU is changed in the store).",
    }),
    linkId: z.string().nullable().meta({
      description:
        'The store link made with it (`lnk_…`, `discovered` false): your product cannot be deleted while it stands.',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
    margin: marginSchema.meta({
      description: "What the price leaves per piece in the store's currency, at the ECB's rate of the day it names.",
    }),
  }),
  'PublishedListing',
);

const EXAMPLE = {
  id: 'pub_01M89R5B7K2W9X4Q6N3T8Z1CVE',
  storeId: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE',
  resellerProduct: { id: 'rp_01M89QQTZZ1YGD3FM43WMN96Q2', sku: 'BC-CLASSIC-250' },
  title: 'Business cards, 250 pieces',
  priceCents: 2495,
  currency: 'EUR',
  status: 'active',
  externalProductId: '418',
  externalVariantId: null,
  url: 'https://tulip-prints.example.com/product/business-cards-250-pieces/',
  notice: null,
  matchedBy: 'sku',
  linkId: 'lnk_01M89R5B9D3F7H1K5M8P2R4T6V',
  createdAt: '2026-11-25T11:02:17.301Z',
  updatedAt: '2026-11-25T11:02:18.044Z',
  margin: {
    currency: 'EUR',
    retailCents: 2495,
    costCents: 1532,
    marginCents: 963,
    country: 'NL',
    rate: null,
    notice: null,
  },
};

const notFound = { status: 404, code: 'not_found', description: 'Unknown store or listing (or another account’s).' };
const platformErrors = [
  { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' },
  {
    status: 422,
    code: 'not_supported_by_platform',
    description:
      "The store's platform offers no publishing here (TikTok Shop, Amazon): the message says what to do instead (create the listing on the platform, then POST /stores/{id}/links).",
  },
  {
    status: 422,
    code: 'listing_rejected',
    description:
      'The platform refused the product: its reason is in the message (a SKU the store has already, an image it cannot load…).',
  },
  {
    status: 422,
    code: 'store_credentials_rejected',
    description: "The platform refused the store's credentials: connect it again.",
  },
  {
    status: 502,
    code: 'store_unreachable',
    description: 'The platform did not answer: try again (a product is never created twice).',
  },
  {
    status: 503,
    code: 'store_rate_limited',
    description: "The store's request budget is spent for now; Retry-After says when to try again.",
  },
];

/** Publishing reseller products to stores: POST, GET, PATCH and DELETE /stores/{id}/listings[/{listingId}]. */
export function publishingRoutes(deps: {
  publishing: StorePublishing;
  resolveProduct: (tenant: Tenant, idOrSku: string) => Promise<{ id: string; sku: string }>;
  /** The listing's margin in its store's currency. */
  marginOf: (tenant: Tenant & { discountBps: number }, listing: PublicationView) => Promise<ListingMargin>;
}): AnyRoute[] {
  const { publishing } = deps;
  const withMargin = async (tenant: Tenant & { discountBps: number }, listing: PublicationView) => ({
    ...listing,
    margin: await deps.marginOf(tenant, listing),
  });
  const one = (status: number) => ({
    description: 'The published listing',
    schema: z.object({ data: publishedListingSchema }),
    example: { data: status === 202 ? { ...EXAMPLE, status: 'pending' } : EXAMPLE },
  });
  return [
    defineRoute({
      method: 'post',
      path: '/stores/{id}/listings',
      operationId: 'publishStoreListing',
      summary: 'Publish one of your products to the store: the listing is created there with your SKU and your price',
      description:
        "Creates the product in the store through its platform (a simple product carrying your product's SKU, at `priceCents` in the store's currency, published unless `published` is false) and links it to your product, so its orders print and the product cannot be deleted while it is listed. 201 with the listing; 202 where the platform creates it in the background (`status: pending`: read it again with GET /stores/{id}/listings/{listingId}). A product is published once per store: a second request answers 409 with the first. Image URLs must be public https addresses (checked before the platform is given them). With an `Idempotency-Key`, a repeat answers 200 with the same listing; without one, a retry after an error never creates a second product either: the product is looked for in the store first.",
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: z.object({ id: storeId }),
      body: z.strictObject({
        resellerProduct: z
          .string()
          .min(1)
          .max(64)
          .meta({ description: 'Your product, by id or SKU: the listing carries its SKU.' }),
        title: z.string().trim().min(1).max(200),
        description: z
          .string()
          .max(20_000)
          .optional()
          .meta({ description: 'The product description (the platform may take HTML).' }),
        priceCents: z
          .number()
          .int()
          .min(1)
          .max(100_000_000)
          .meta({ description: "Your retail price, in minor units of the store's currency (cents)." }),
        currency: z
          .string()
          .regex(/^[A-Z]{3}$/)
          .optional()
          .meta({ description: "ISO 4217; the store's currency when absent, and refused when it is another." }),
        imageUrls: z.array(z.string().max(2000)).max(10).default([]).meta({
          description:
            'Public https image URLs (at most 10), in order: the platform fetches them, or, where it takes files (Etsy), they are downloaded (JPEG, PNG or GIF, at most 10 MB each) and uploaded. Etsy lists nothing without one: the listing then stays a draft and its `notice` says so.',
        }),
        published: z.boolean().default(true).meta({ description: 'false: created as a draft, not on sale.' }),
        platformOptions: z.record(z.string(), z.unknown()).optional().meta({
          description:
            'Per-platform extras, checked by the platform’s connector (WooCommerce: `categoryIds`, `shortDescription`).',
        }),
      }),
      bodyExample: {
        resellerProduct: 'BC-CLASSIC-250',
        title: 'Business cards, 250 pieces',
        priceCents: 2495,
        imageUrls: ['https://cdn.tulip-prints.example.com/cards-front.jpg'],
      },
      headers: [
        {
          name: 'Idempotency-Key',
          required: false,
          description:
            'A repeat with the same key (1-255 printable characters) answers the first listing with 200; the same key with another body gives 422 idempotency_key_reused.',
          example: '0f8b2c1e-3d4a-4b5c-9e6f-7a8b9c0d1e2f',
        },
      ],
      responses: {
        201: one(201),
        202: one(202),
        200: { ...one(200), description: 'A repeat of an earlier request with the same Idempotency-Key' },
      },
      errors: [
        notFound,
        {
          status: 409,
          code: 'listing_exists',
          description:
            'The product is published to this store already (or being published): `details[0].listing` is that listing.',
        },
        {
          status: 422,
          code: 'invalid_image_url',
          description: 'An image URL is not a public https address (`details` names it).',
        },
        { status: 422, code: 'currency_mismatch', description: "`currency` is not the store's." },
        {
          status: 422,
          code: 'platform_options_required',
          description:
            "The store has several shipping profiles (or processing profiles, return policies) and none was chosen: `details[].field` names the `platformOptions` key, `details[].choices` the store's choices (id and name).",
        },
        {
          status: 422,
          code: 'idempotency_key_reused',
          description: 'The Idempotency-Key was used for a different request.',
        },
        ...platformErrors,
      ],
      handle: async ({ auth, params, body, headers }) => {
        const key = idempotencyKeyOf(headers, { required: false, what: 'publishing' });
        const resellerProduct = await deps.resolveProduct(auth, body.resellerProduct);
        const { listing, created } = await publishing.publish(auth, params.id, { ...body, resellerProduct }, key);
        return {
          status: !created ? 200 : listing.status === 'pending' ? 202 : 201,
          body: { data: await withMargin(auth, listing) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/listings/{listingId}',
      operationId: 'getStoreListing',
      summary: 'A listing published to the store (a pending one is read again from the platform)',
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: listingParams,
      responses: { 200: one(200) },
      errors: [
        notFound,
        ...platformErrors.filter(
          (e) => e.status !== 409 && e.code !== 'not_supported_by_platform' && e.code !== 'listing_rejected',
        ),
      ],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await withMargin(auth, await publishing.get(auth, params.id, params.listingId)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/stores/{id}/listings/{listingId}',
      operationId: 'updateStoreListing',
      summary: 'Change a published listing in the store: its title, price or whether it is on sale',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: listingParams,
      body: z
        .strictObject({
          title: z.string().trim().min(1).max(200).optional(),
          priceCents: z.number().int().min(1).max(100_000_000).optional(),
          published: z.boolean().optional(),
        })
        .refine((b) => b.title !== undefined || b.priceCents !== undefined || b.published !== undefined, {
          message: 'Give at least one of title, priceCents, published.',
        }),
      bodyExample: { priceCents: 2695 },
      responses: { 200: { ...one(200), example: { data: { ...EXAMPLE, priceCents: 2695 } } } },
      errors: [
        notFound,
        { status: 409, code: 'publish_in_progress', description: 'The listing is still being published.' },
        ...platformErrors,
      ],
      handle: async ({ auth, params, body }) => ({
        status: 200,
        body: { data: await withMargin(auth, await publishing.update(auth, params.id, params.listingId, body)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/stores/{id}/listings/{listingId}',
      operationId: 'unpublishStoreListing',
      summary: 'Take a published listing off sale in the store (archived there) and remove its link',
      description:
        'The platform keeps the product, off sale (WooCommerce: a draft), with its sales history; your product is no longer linked to it by this listing.',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: listingParams,
      responses: {
        200: {
          description: 'Unpublished',
          schema: z.object({ data: z.object({ id: z.string(), deleted: z.boolean() }) }),
          example: { data: { id: EXAMPLE.id, deleted: true } },
        },
      },
      errors: [
        notFound,
        { status: 409, code: 'publish_in_progress', description: 'The listing is still being published.' },
        ...platformErrors,
      ],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await publishing.unpublish(auth, params.id, params.listingId) },
      }),
    }),
  ];
}
