import { z } from 'zod';
import { examplePage } from '../../web/api-examples.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { Tenant } from '../../kernel/tenant.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import type { CredentialRequests } from './connect/credential-requests.ts';
import { platformBody } from './connect/platform-bodies.ts';
import type { IngestRetrier } from './inbound/ingest-retrier.ts';
import type { OAuthInstalls } from './connect/oauth-installs.ts';
import type { StorePoller } from './inbound/store-poller.ts';
import { INGEST_EXAMPLE, LINK_EXAMPLE, LISTING_EXAMPLE, STORE_EXAMPLE } from './stores-examples.ts';
import type { StoresService } from './stores-service.ts';
import {
  tags,
  storeSchema,
  linkSchema,
  INGEST_STATUSES,
  ingestSchema,
  listingSchema,
  storeId,
  idParams,
  notFound,
} from './stores-schemas.ts';
import { credentialRequestRoute, installLinkRoute } from './connect/connect-routes.ts';
import { bulkRetryRoute, retryRoute, syncRoute } from './inbound/ingest-routes.ts';

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
