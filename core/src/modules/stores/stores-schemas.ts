import { z } from 'zod';
import { openApiComponent } from '../../web/openapi-component.ts';

/** The stores routes' schemas and shared pieces (OpenAPI components, path parameters, the 404). */
export const tags = ['Stores'];
export const storeSchema = openApiComponent(
  z.object({
    id: z.string(),
    platform: z.string(),
    externalId: z.string(),
    name: z.string(),
    status: z
      .enum(['connected', 'disconnected'])
      .meta({ description: '`connected`: its orders are ingested; `disconnected`: ingestion stopped (history kept).' }),
    testMode: z.boolean(),
    lastPolledAt: z.string().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    disconnectedAt: z.string().nullable(),
    country: z.string().nullable().meta({
      description:
        "The store's own country (ISO 3166-1 alpha-2: its address, where it sells from), as its platform says it; asked once, with its first listings sync or publish. Null until then, or when the platform does not say.",
    }),
    currency: z.string().nullable().meta({
      description:
        "The currency the store sells in (ISO 4217), as its platform says it; asked with its country. Listings' prices and margins are in it.",
    }),
    notices: z.array(z.string()).meta({
      description:
        "Reminders from the store's platform (an authorisation to renew before a date), and for a week what a poll found and repaired (a webhook the platform had disabled after failed deliveries, created anew); empty when there are none.",
    }),
  }),
  'Store',
);
export const linkSchema = openApiComponent(
  z.object({
    id: z.string(),
    resellerProductId: z.string(),
    sku: z.string(),
    externalProductId: z.string().nullable(),
    externalVariantId: z.string().nullable(),
    discovered: z.boolean().meta({
      description:
        'Found by a listing sync or an order (the SKUs matched), not made by POST /stores/{id}/links. Only links you made map a listing: a discovered one guards the product but never makes a listing print as it.',
    }),
    createdAt: z.string(),
  }),
  'StoreLink',
);
export const INGEST_STATUSES = [
  'received',
  'placed',
  'waiting_payment',
  'waiting_address',
  'no_print_lines',
  'cancelled',
  'failed',
  'redacted',
] as const;
export const INGEST_STATUS_DESCRIPTION =
  '`received`: stored, not handled yet; `placed`: a print order was placed (`orderId`); `waiting_payment`: the store order is not paid yet; `waiting_address`: paid, but the platform withheld the shipping address (`error` says why), placed once an update or a retry brings it; `no_print_lines`: none of its lines is one of your products (`skippedLines` says why); `cancelled`: cancelled in the store; `failed`: placing failed (`error`), retried; `redacted`: erased on the customer’s request.';
export const ingestSchema = openApiComponent(
  z.object({
    id: z.string(),
    externalOrderId: z.string(),
    externalName: z.string().nullable(),
    status: z.enum(INGEST_STATUSES).meta({ description: INGEST_STATUS_DESCRIPTION }),
    orderId: z.string().nullable(),
    skippedLines: z.array(z.object({ sku: z.string().nullable(), quantity: z.number(), reason: z.string() })),
    error: z.string().nullable(),
    attempts: z.number().int(),
    storeUpdatedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  'StoreIngest',
);
export const listingSchema = openApiComponent(
  z.object({
    id: z.string(),
    externalProductId: z.string(),
    externalVariantId: z.string().nullable().meta({ description: 'Null for a product sold without variants.' }),
    sku: z.string().nullable(),
    title: z.string(),
    active: z.boolean().meta({ description: 'Whether the store sells it now (published, not a draft or archived).' }),
    resellerProduct: z.object({ id: z.string(), sku: z.string() }).nullable().meta({
      description:
        'The product of yours its orders print as (`match` says how it was found), or null: orders for it are skipped until you create a product with its SKU or map it (POST /stores/{id}/links).',
    }),
    match: z
      .object({
        by: z.enum(['sku', 'link']).nullable().meta({
          description:
            "`sku`: your product with the listing's SKU (case-insensitive, in the store's mode; it always wins); `link`: the listing is mapped to your product (POST /stores/{id}/links: a link to its variant before a link to its product); null: not matched.",
        }),
        resellerProduct: z.object({ id: z.string(), sku: z.string() }).nullable(),
        linkId: z
          .string()
          .nullable()
          .meta({ description: 'The link that maps it (`by: link`): DELETE /stores/{id}/links/{linkId} unmaps it.' }),
      })
      .meta({ description: 'How the listing is matched to one of your products.' }),
    seenAt: z.string().meta({ description: 'When the sync that last saw it began.' }),
  }),
  'StoreListing',
);

export const installLinkSchema = z.object({
  data: openApiComponent(z.object({ installUrl: z.string(), expiresAt: z.string() }), 'InstallLink'),
});
export const storeId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Store id (`sto_…`).', example: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE' });
export const idParams = z.object({ id: storeId });
export const notFound = { status: 404, code: 'not_found', description: 'Unknown store.' };
