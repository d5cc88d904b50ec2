import { z } from 'zod';
import { examplePage } from '../../http/api-examples.ts';
import { openApiComponent } from '../../http/openapi.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../http/pagination.ts';
import { defineRoute, type AnyRoute } from '../../http/route.ts';
import type { Tenant } from '../orders/orders-service.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import { returnUrlSchema, type CredentialRequests } from './credential-requests.ts';
import { platformBody } from './platform-bodies.ts';
import { BULK_RETRY_MAX, type IngestRetrier } from './ingest-retrier.ts';
import type { OAuthInstalls } from './oauth-installs.ts';
import { SYNC_LEASE_MS, type StorePoller } from './store-poller.ts';
import { INGEST_EXAMPLE, LINK_EXAMPLE, LISTING_EXAMPLE, STORE_EXAMPLE } from './stores-examples.ts';
import type { StoresService } from './stores-service.ts';

const tags = ['Stores'];
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
const linkSchema = openApiComponent(
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
const INGEST_STATUSES = [
  'received',
  'placed',
  'waiting_payment',
  'waiting_address',
  'no_print_lines',
  'cancelled',
  'failed',
  'redacted',
] as const;
const INGEST_STATUS_DESCRIPTION =
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
const listingSchema = openApiComponent(
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
const storeId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Store id (`sto_…`).', example: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE' });
const idParams = z.object({ id: storeId });
const notFound = { status: 404, code: 'not_found', description: 'Unknown store.' };

/** Connected stores, their links and ingests (extensions of the spec; scopes stores:read / stores:write). */
export function storesRoutes(deps: {
  /** The stores' services by job (routes call them directly). */
  stores: Pick<StoresService, 'connections' | 'links' | 'listings' | 'ingests'>;
  /** The loaded connectors: the platforms and fields `POST /stores` takes. */
  connectors: ConnectorRegistry;
  /** The caller's reseller product (by id or SKU) in the caller's mode, as stores are. */
  resolveProduct: (tenant: Tenant, idOrSku: string) => Promise<{ id: string; sku: string }>;
  credentialRequests?: CredentialRequests;
  installs?: OAuthInstalls;
  poller?: StorePoller;
  retrier?: IngestRetrier;
}): AnyRoute[] {
  const { stores, credentialRequests, installs, poller, retrier } = deps;
  const connect = platformBody(
    deps.connectors.all().map((c) => ({
      platform: c.manifest.platform,
      displayName: c.manifest.displayName,
      fields: c.manifest.connectSchema,
      example: c.manifest.examples.connect,
    })),
    {},
    'ConnectStore',
  );
  return [
    ...(credentialRequests ? [credentialRequestRoute(credentialRequests, deps.connectors)] : []),
    ...(installs ? [installLinkRoute(installs)] : []),
    ...(poller ? [syncRoute(poller)] : []),
    ...(retrier ? [retryRoute(retrier), bulkRetryRoute(retrier)] : []),
    defineRoute({
      method: 'get',
      path: '/stores',
      operationId: 'listStores',
      summary: 'List connected stores',
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      query: z.strictObject(pageQueryShape),
      responses: {
        200: {
          description: 'A page of stores',
          schema: listEnvelopeSchema(storeSchema),
          example: examplePage([STORE_EXAMPLE]),
        },
      },
      handle: async ({ auth, query }) => ({ status: 200, body: await stores.connections.list(auth, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/stores',
      operationId: 'connectStore',
      summary: 'Connect a store with pasted credentials',
      description:
        "`{platform, ...connection fields}`: the fields depend on the platform (one branch per enabled connector); the platform's connector verifies them with the platform. OAuth platforms connect through /connectors/<platform>/install.",
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      body: connect.body,
      bodyExamples: connect.examples,
      responses: {
        201: {
          description: 'Connected',
          schema: z.object({ data: storeSchema }),
          example: { data: { ...STORE_EXAMPLE, lastPolledAt: null } },
        },
      },
      errors: [
        { status: 422, code: 'store_credentials_rejected', description: 'The platform refused the credentials.' },
        {
          status: 422,
          code: 'store_not_connectable',
          description:
            'The store cannot be connected as given (not a store of the platform, an address that is not public, or set up in a way the connection cannot use); the message says what to change.',
        },
        { status: 409, code: 'store_connected_elsewhere', description: 'The store is connected to another account.' },
        { status: 502, code: 'store_unreachable', description: 'The platform could not be reached.' },
      ],
      handle: async ({ auth, body }) => {
        const { platform, ...fields } = body;
        return { status: 201, body: { data: await stores.connections.connect(auth, String(platform), fields) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}',
      operationId: 'getStore',
      summary: 'Get a store',
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: idParams,
      responses: {
        200: { description: 'The store', schema: z.object({ data: storeSchema }), example: { data: STORE_EXAMPLE } },
      },
      errors: [notFound],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await stores.connections.get(auth, params.id) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/stores/{id}',
      operationId: 'disconnectStore',
      summary: 'Disconnect a store (history kept; ingestion stops; links no longer guard deletion)',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: idParams,
      responses: {
        200: {
          description: 'The disconnected store',
          schema: z.object({ data: storeSchema }),
          example: { data: { ...STORE_EXAMPLE, status: 'disconnected', disconnectedAt: '2026-11-26T09:02:13.550Z' } },
        },
      },
      errors: [notFound],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await stores.connections.disconnect(auth, params.id) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/links',
      operationId: 'listStoreLinks',
      summary: 'Store listings linked to your products',
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: idParams,
      responses: {
        200: {
          description: 'Links',
          schema: z.object({ data: z.array(linkSchema) }),
          example: { data: [LINK_EXAMPLE] },
        },
      },
      errors: [notFound],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await stores.links.listLinks(auth, params.id) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/stores/{id}/links',
      operationId: 'createStoreLink',
      summary: 'Map a store listing to one of your products',
      description:
        'Maps an existing listing to your product without touching the store: its orders\' lines print as that product whatever SKU the store sends (or none). Ingestion matches each line by SKU first (your product with that SKU, in the store\'s mode), then by a link to its variant (`externalProductId` and `externalVariantId`), then by a link to its product (`externalProductId` only: every variant of it). Links found by ingestion or a listing sync (`discovered`) never map: only links made here do. A listing maps to one product: to map it to another, delete its link first. The product cannot be deleted (nor its SKU changed) while the link exists. Then retry the store orders skipped before: POST /stores/{id}/ingests/retry `{status: "skipped", externalProductId}`. Without `externalProductId`, the link only says the store sells the product.',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: idParams,
      body: z
        .strictObject({
          resellerProduct: z.string().min(1).max(64).meta({ description: 'Reseller product id or SKU.' }),
          externalProductId: z.string().min(1).max(100).optional().meta({
            description: "The listing's product id on the platform (`externalProductId` of GET /stores/{id}/listings).",
          }),
          externalVariantId: z.string().min(1).max(100).optional().meta({
            description:
              'One variant of it only (`externalVariantId` of GET /stores/{id}/listings); needs `externalProductId`.',
          }),
        })
        .refine((b) => b.externalVariantId === undefined || b.externalProductId !== undefined, {
          path: ['externalProductId'],
          message: 'externalProductId is required with externalVariantId',
        }),
      bodyExample: { resellerProduct: 'BC-CLASSIC-250', externalProductId: '412' },
      responses: {
        201: {
          description: 'The link',
          schema: z.object({ data: linkSchema }),
          example: { data: { ...LINK_EXAMPLE, discovered: false } },
        },
      },
      errors: [
        {
          status: 404,
          code: 'not_found',
          description: "Unknown store, or no product of yours (in the key's mode) has this id or SKU.",
        },
        {
          status: 409,
          code: 'listing_already_mapped',
          description:
            'The listing is mapped to another of your products (the link is named in `details`): delete that link first.',
        },
        {
          status: 422,
          code: 'unknown_listing',
          description:
            "The store's synced catalogue has no such listing (or variant): use ids from GET /stores/{id}/listings, or sync first.",
        },
      ],
      handle: async ({ auth, params, body }) => {
        const product = await deps.resolveProduct(auth, body.resellerProduct);
        const link = await stores.links.addLink(auth, params.id, {
          resellerProductId: product.id,
          sku: product.sku,
          externalProductId: body.externalProductId,
          externalVariantId: body.externalVariantId,
        });
        return { status: 201, body: { data: link } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/stores/{id}/links/{linkId}',
      operationId: 'deleteStoreLink',
      summary: 'Remove a link (unmaps its listing)',
      description:
        'A listing the link mapped is matched by its SKU again, or not at all: its next orders are skipped unless the SKU is one of your products. Orders placed already stay placed.',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: z.object({
        id: storeId,
        linkId: z
          .string()
          .min(1)
          .max(64)
          .meta({ description: 'Link id (`lnk_…`).', example: 'lnk_01M89R3A1Y8G2ZK6W4QJ5N7PXB' }),
      }),
      responses: {
        200: {
          description: 'Deleted',
          schema: z.object({ data: z.object({ id: z.string(), deleted: z.boolean() }) }),
          example: { data: { id: LINK_EXAMPLE.id, deleted: true } },
        },
      },
      errors: [notFound],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await stores.links.removeLink(auth, params.id, params.linkId) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/listings',
      operationId: 'listStoreListings',
      summary: "The store's catalogue: every listing with its SKU and the product of yours it matches",
      description:
        "Synced from the platform on connect, on POST /stores/{id}/sync, on the platform's product webhooks and hourly. Each listing says how its orders print (`match`): by SKU (your product with its SKU), by link (mapped with POST /stores/{id}/links), or not at all. `matched=false` lists what you must fix before its orders can print: create a product with its SKU, or map it to one of yours. A matched listing links its product to the store, so the product cannot be deleted (nor its SKU changed) while the store sells it.",
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: idParams,
      query: z.strictObject({
        ...pageQueryShape,
        matched: z
          .enum(['true', 'false'])
          .transform((v) => v === 'true')
          .optional()
          .meta({
            description: 'Only listings that match one of your products, by SKU or by link (true), or none (false).',
          }),
      }),
      responses: {
        200: {
          description: 'A page of listings',
          schema: listEnvelopeSchema(listingSchema),
          example: examplePage([LISTING_EXAMPLE]),
        },
      },
      errors: [notFound],
      handle: async ({ auth, params, query }) => ({
        status: 200,
        body: await stores.listings.listListings(auth, params.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/ingests',
      operationId: 'listStoreIngests',
      summary: 'Every store order seen: the order placed, the lines skipped, or the precise error',
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: idParams,
      query: z.strictObject({
        ...pageQueryShape,
        status: z
          .enum([...INGEST_STATUSES, 'skipped'])
          .optional()
          .meta({
            description:
              'Only ingests with this outcome. `skipped`: store orders of which nothing was placed (`no_print_lines`) and at least one line was skipped because its SKU is none of your active products (or, without a matching SKU, its listing is mapped to none); create (or activate) the product or map the listing, then POST /stores/{id}/ingests/{ingestId}/retry (or POST /stores/{id}/ingests/retry for all). `waiting_address`: paid, but the platform withheld the shipping address (the error says why): placed once an update or a retry brings it, never without one.',
          }),
        externalProductId: z.string().min(1).max(100).optional().meta({
          description: 'Only store orders with a line of this listing (store product id) skipped as unmatched.',
        }),
      }),
      responses: {
        200: {
          description: 'A page of ingests',
          schema: listEnvelopeSchema(ingestSchema),
          example: examplePage([INGEST_EXAMPLE]),
        },
      },
      errors: [notFound],
      handle: async ({ auth, params, query }) => ({
        status: 200,
        body: await stores.ingests.listIngests(auth, params.id, query),
      }),
    }),
  ];
}

/** `POST /stores/{id}/ingests/{ingestId}/retry`: a skipped (or failed) store order ingested again. */
function retryRoute(retrier: IngestRetrier): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/{id}/ingests/{ingestId}/retry',
    operationId: 'retryStoreIngest',
    summary: 'Ingest a skipped store order again, once its SKUs are your products',
    description:
      "Fetches the store order again from the platform (or, where the platform cannot be asked, takes the newest delivery of it we stored) and ingests it as if it had just arrived: its lines whose SKUs are now your active products are placed. The idempotency key is the store order's, as on every ingest: never a second print order, and an order already placed is not placed again. Answers the ingest as recorded after.",
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    params: z.object({
      id: storeId,
      ingestId: z.string().min(1).max(64).meta({
        description: 'Ingest id (`ing_…`), from GET /stores/{id}/ingests.',
        example: 'ing_01M89R4D2F6X8P3K7T5Q9W1NCM',
      }),
    }),
    responses: {
      200: {
        description: 'The ingest after the retry',
        schema: z.object({ data: ingestSchema }),
        example: { data: { ...INGEST_EXAMPLE, attempts: 2 } },
      },
    },
    errors: [
      { status: 404, code: 'not_found', description: 'Unknown store or ingest.' },
      {
        status: 409,
        code: 'ingest_not_retryable',
        description: 'The store order was placed already, cancelled, is waiting for payment or was erased.',
      },
      {
        status: 409,
        code: 'store_order_not_found',
        description:
          'The platform no longer has the order (or, for a platform that cannot be asked, no delivery of it is stored).',
      },
      { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' },
      {
        status: 503,
        code: 'store_rate_limited',
        description:
          "The platform's request budget for this store is spent for now; Retry-After says when to try again.",
      },
    ],
    handle: async ({ auth, params }) => ({
      status: 200,
      body: { data: await retrier.retry(auth, params.id, params.ingestId) },
    }),
  });
}

/** `POST /stores/{id}/ingests/retry`: every skipped store order (of one listing) retried, in the background. */
function bulkRetryRoute(retrier: IngestRetrier): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/{id}/ingests/retry',
    operationId: 'retrySkippedStoreIngests',
    summary: 'Retry the skipped store orders, once their listings are mapped or their SKUs are your products',
    description: `Queues a retry of each skipped store order of the store (\`status: skipped\`, as GET /stores/{id}/ingests?status=skipped lists them), or of those with a line of one listing (\`externalProductId\`): the oldest first, at most ${BULK_RETRY_MAX} per request (\`more\`: call again for the rest). Each is retried as POST /stores/{id}/ingests/{ingestId}/retry does it (the order fetched again, the same idempotency key): never a second print order. Watch them in GET /stores/{id}/ingests.`,
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    params: idParams,
    body: z.strictObject({
      status: z
        .enum(['skipped'])
        .meta({ description: 'Which store orders: `skipped` (nothing placed, a line unmatched).' }),
      externalProductId: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'Only the store orders with a line of this listing (store product id) skipped.' }),
    }),
    bodyExample: { status: 'skipped', externalProductId: '412' },
    responses: {
      202: {
        description: 'Queued',
        schema: z.object({
          data: z.object({
            storeId: z.string(),
            status: z.enum(['skipped']),
            externalProductId: z.string().nullable(),
            queued: z.number().int().meta({ description: 'How many store orders were queued for a retry.' }),
            more: z.boolean().meta({ description: 'More skipped orders are left: call again once these are retried.' }),
          }),
        }),
        example: {
          data: { storeId: STORE_EXAMPLE.id, status: 'skipped', externalProductId: '412', queued: 3, more: false },
        },
      },
    },
    errors: [notFound, { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' }],
    handle: async ({ auth, params, body }) => ({
      status: 202,
      body: { data: await retrier.retrySkipped(auth, params.id, { externalProductId: body.externalProductId }) },
    }),
  });
}

/**
 * `POST /stores/install-links`: begins an OAuth install (its old path, `/connectors/<platform>/install-links`, stays as
 * an alias: connector-routes.ts).
 */
function installLinkRoute(installs: OAuthInstalls): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/install-links',
    operationId: 'createStoreInstallLink',
    summary: 'Make a link that installs our app on a store (OAuth platforms)',
    description:
      "`{platform, returnUrl?, ...fields}` (SHOPIFY: `shop`). Send the merchant to `installUrl` within 30 minutes: they approve on the platform's consent screen, the store is connected as with POST /stores, and they are sent to `returnUrl` with `?store=<id>&platform=<platform>` (or shown a JSON confirmation). No API key travels in the link.",
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    body: z.looseObject({
      platform: z.string().min(1).max(40).meta({ description: 'A platform with an OAuth install (SHOPIFY).' }),
      returnUrl: z
        .string()
        .optional()
        .meta({ description: 'http(s) URL the merchant is sent to once the store is connected.' }),
    }),
    bodyExample: {
      platform: 'SHOPIFY',
      shop: 'tulip-prints.myshopify.com',
      returnUrl: 'https://reseller.example.com/stores/connected',
    },
    responses: {
      201: {
        description: 'Where to send the merchant',
        schema: installLinkSchema,
        example: {
          data: {
            installUrl: 'https://print-api.example/connectors/shopify/install/v1.Q2hKc3dHb0.4kXz9T',
            expiresAt: '2026-11-25T10:50:41.730Z',
          },
        },
      },
    },
    errors: [
      {
        status: 422,
        code: 'unsupported_platform',
        description: 'No enabled connector installs through OAuth on this platform.',
      },
    ],
    handle: async ({ auth, body }) => {
      const { platform, ...fields } = body;
      return { status: 201, body: { data: await installs.createLink(auth, platform, fields) } };
    },
  });
}

/** `POST /stores/{id}/sync`: polls the store now instead of at its next interval. */
function syncRoute(poller: StorePoller): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/stores/{id}/sync',
    operationId: 'syncStore',
    summary: 'Ask the store for its orders now, instead of at the next poll',
    description: `Queues a poll of the store's orders changed since the last one (every platform that lists orders; on a platform without webhooks, this is how a new order shows at once). The orders appear in GET /stores/{id}/ingests as they are ingested; \`lastPolledAt\` on the store says when the poll ended. One sync at a time per store: another asked for while one runs is answered 409 (a poll that stops answering frees the store after ${SYNC_LEASE_MS / 60_000} minutes).`,
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    params: idParams,
    responses: {
      202: {
        description: 'Queued',
        schema: z.object({
          data: z.object({
            storeId: z.string(),
            requestedAt: z.string(),
            pollsAt: z.string().meta({
              description:
                "When the poll calls the platform: now, or, where the platform allows only so many order searches (Amazon: one every 3 minutes, a burst of 20) and the store's are spent, when the next one is allowed (the poll is queued and waits till then).",
            }),
          }),
        }),
        example: {
          data: {
            storeId: STORE_EXAMPLE.id,
            requestedAt: '2026-11-25T10:46:30.018Z',
            pollsAt: '2026-11-25T10:46:30.018Z',
          },
        },
      },
    },
    errors: [
      notFound,
      {
        status: 409,
        code: 'sync_in_progress',
        description: 'A sync (or scheduled poll) of this store runs: try again once it ends.',
      },
      { status: 409, code: 'store_disconnected', description: 'The store is disconnected.' },
      { status: 422, code: 'sync_not_supported', description: "The store's platform cannot be asked for its orders." },
    ],
    handle: async ({ auth, params }) => ({ status: 202, body: { data: await poller.requestSync(auth, params.id) } }),
  });
}

/** `POST /stores/credential-requests`: begins a key-issuing connect flow (WooCommerce's /wc-auth/v1/authorize). */
function credentialRequestRoute(credentialRequests: CredentialRequests, connectors: ConnectorRegistry): AnyRoute {
  const request = platformBody(
    connectors.all().flatMap((c) =>
      c.credentialRequest
        ? [
            {
              platform: c.manifest.platform,
              displayName: c.manifest.displayName,
              fields: c.credentialRequest.inputSchema,
              example: c.manifest.examples.credentialRequest ?? {},
            },
          ]
        : [],
    ),
    {
      returnUrl: returnUrlSchema.meta({
        description: 'Where the merchant goes once the platform is done (with its query).',
      }),
    },
    'StoreCredentialRequest',
  );
  return defineRoute({
    method: 'post',
    path: '/stores/credential-requests',
    operationId: 'requestStoreCredentials',
    summary: 'Ask a store to issue credentials to us',
    description:
      "`{platform, returnUrl?, ...fields}`: the platforms with a key-issuing flow, each with its fields. Send the merchant to `redirectUrl`: once they approve, the platform hands the credentials to us, the store is connected as with POST /stores, and the merchant is sent to `returnUrl` (with the platform's query).",
    tags,
    auth: 'apiKey',
    scope: 'stores:write',
    body: request.body,
    bodyExamples: request.examples,
    responses: {
      201: {
        description: 'Where to send the merchant',
        schema: z.object({ data: z.object({ redirectUrl: z.string(), expiresAt: z.string() }) }),
        example: {
          data: {
            redirectUrl:
              'https://tulip-prints.example.com/wc-auth/v1/authorize?app_name=Print+API&scope=read_write&user_id=v1.Q2hKc3dHb0&return_url=https%3A%2F%2Fprint-api.example%2Fconnectors%2Fwoocommerce%2Fcredentials%2Fv1.Q2hKc3dHb0%2Freturn&callback_url=https%3A%2F%2Fprint-api.example%2Fconnectors%2Fwoocommerce%2Fcredentials%2Fv1.Q2hKc3dHb0',
            expiresAt: '2026-11-25T11:20:41.730Z',
          },
        },
      },
    },
    handle: async ({ auth, body }) => {
      const { platform, ...fields } = body;
      return { status: 201, body: { data: await credentialRequests.begin(auth, String(platform), fields) } };
    },
  });
}
