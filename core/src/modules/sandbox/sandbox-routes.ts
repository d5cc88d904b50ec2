import { z } from 'zod';
import { examplePage } from '../../web/api-examples.ts';
import { openApiComponent } from '../../web/openapi-component.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { recipientSchema, recipientViewSchema } from '../orders/orders-schemas.ts';
import type { SandboxStores } from './sandbox-stores.ts';

const tags = ['Sandbox stores'];
const sandboxOrderSchema = openApiComponent(
  z.object({
    externalOrderId: z
      .string()
      .meta({ description: "The store order's id in the sandbox store: the print order's `externalOrderId`." }),
    name: z.string(),
    paid: z.boolean(),
    cancelled: z.boolean(),
    lines: z.array(
      z.object({
        externalLineId: z.string(),
        sku: z.string().nullable(),
        quantity: z.number().int(),
        title: z.string().nullable(),
        externalProductId: z.string().nullable(),
      }),
    ),
    recipient: recipientViewSchema.nullable(),
    fulfillments: z
      .array(
        z.object({
          carrier: z.string(),
          trackingNumber: z.string(),
          trackingUrl: z.string(),
          lines: z.array(
            z.object({ externalLineId: z.string().nullable(), sku: z.string().nullable(), quantity: z.number().int() }),
          ),
          createdAt: z.string(),
        }),
      )
      .meta({
        description:
          'What the service pushed back to the store once the print order shipped: the carrier, tracking and the lines it printed.',
      }),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  'SandboxStoreOrder',
);
const sandboxListingSchema = openApiComponent(
  z.object({
    externalProductId: z.string(),
    sku: z.string().nullable(),
    title: z.string(),
    status: z.enum(['active', 'draft', 'archived']),
    createdAt: z.string(),
  }),
  'SandboxListing',
);

const ORDER_EXAMPLE = {
  externalOrderId: '1001',
  name: '#1001',
  paid: true,
  cancelled: false,
  lines: [
    { externalLineId: '1001-1', sku: 'BC-CLASSIC-250', quantity: 1, title: 'Business cards', externalProductId: null },
    { externalLineId: '1001-2', sku: 'MUG-DELFT', quantity: 2, title: 'Delft blue mug', externalProductId: null },
  ],
  recipient: {
    name: 'Sanne de Vries',
    email: 'sanne@example.nl',
    phone: '+31 6 12345678',
    address1: 'Keizersgracht 123',
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    country: 'NL',
  },
  fulfillments: [
    {
      carrier: 'PostNL',
      trackingNumber: '3SPRNT0123456789',
      trackingUrl: 'https://jouw.postnl.nl/track-and-trace/3SPRNT0123456789-NL-1015CJ',
      lines: [{ externalLineId: '1001-1', sku: 'BC-CLASSIC-250', quantity: 1 }],
      createdAt: '2026-11-25T10:52:31.204Z',
    },
  ],
  createdAt: '2026-11-25T10:51:07.402Z',
  updatedAt: '2026-11-25T10:51:07.402Z',
};
const LISTING_EXAMPLE = {
  externalProductId: 'sbp_01M89R3A0C5T2W8Q6N4K1Z7YHD',
  sku: 'BC-CLASSIC-250',
  title: 'Business cards, 250 pieces',
  status: 'active' as const,
  createdAt: '2026-11-25T10:45:00.112Z',
};
const storeId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'A sandbox store id (`sto_…`).', example: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE' });
const idParams = z.object({ id: storeId });
const orderParams = z.object({
  id: storeId,
  externalOrderId: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "The store order's id in the sandbox store.", example: '1001' }),
});
const errors = {
  notFound: { status: 404, code: 'not_found', description: 'Unknown store (or another account’s or mode’s).' },
  orderNotFound: { status: 404, code: 'not_found', description: 'Unknown store, or no such store order in it.' },
  notSandbox: { status: 422, code: 'unsupported_platform', description: 'The store is not a sandbox store.' },
  disconnected: { status: 409, code: 'store_disconnected', description: 'The sandbox store is disconnected.' },
};

/**
 * A sandbox store's side of the platform, for trying the connector half offline (test keys:
 * sandbox stores connect in test mode only): store orders and listings made in the store, which
 * reach the service as a platform's would (signed webhooks), and what the store holds.
 */
export function sandboxRoutes(sandbox: SandboxStores): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/stores/{id}/sandbox-orders',
      operationId: 'createSandboxStoreOrder',
      summary: 'Make a store order in a sandbox store',
      description:
        "A customer orders in the sandbox store: the store order is made (numbered from 1001) and arrives as a real platform's does, a signed webhook verified, stored and ingested: lines whose SKU is one of your test products are placed as a test print order (`source: SANDBOX`), the others skipped and recorded (GET /stores/{id}/ingests). `paid: false` makes an order that waits for payment (POST …/pay). Without `recipient`, it ships to a sample address in Amsterdam.",
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: idParams,
      body: z.strictObject({
        lines: z
          .array(
            z.strictObject({
              sku: z
                .string()
                .trim()
                .min(1)
                .max(100)
                .optional()
                .meta({ description: 'The SKU the store sells it under; none: a line that is not a print item.' }),
              quantity: z.number().int().min(1).max(100_000),
              title: z.string().trim().min(1).max(255).optional(),
              externalProductId: z.string().trim().min(1).max(100).optional().meta({
                description:
                  "A listing of the store (POST /stores/{id}/sandbox-listings): the line carries its SKU and title. A line with only a SKU carries the id of the store's active listing of that SKU, if any, as a real platform's line would.",
              }),
            }),
          )
          .min(1)
          .max(100),
        recipient: recipientSchema.optional(),
        paid: z.boolean().default(true),
      }),
      bodyExample: {
        lines: [
          { sku: 'BC-CLASSIC-250', quantity: 1, title: 'Business cards' },
          { sku: 'MUG-DELFT', quantity: 2, title: 'Delft blue mug' },
        ],
      },
      responses: {
        201: {
          description: 'The store order, as the sandbox store holds it',
          schema: z.object({ data: sandboxOrderSchema }),
          example: { data: { ...ORDER_EXAMPLE, fulfillments: [] } },
        },
      },
      errors: [
        errors.notFound,
        errors.notSandbox,
        errors.disconnected,
        {
          status: 422,
          code: 'unknown_listing',
          description: 'A line names a listing the sandbox store does not have.',
        },
      ],
      handle: async ({ auth, params, body }) => ({
        status: 201,
        body: { data: await sandbox.createOrder(auth, params.id, body) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/sandbox-orders',
      operationId: 'listSandboxStoreOrders',
      summary: "A sandbox store's orders, newest first, with what was pushed back",
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: idParams,
      query: z.strictObject(pageQueryShape),
      responses: {
        200: {
          description: 'A page of store orders',
          schema: listEnvelopeSchema(sandboxOrderSchema),
          example: examplePage([ORDER_EXAMPLE]),
        },
      },
      errors: [errors.notFound, errors.notSandbox],
      handle: async ({ auth, params, query }) => ({
        status: 200,
        body: await sandbox.listOrders(auth, params.id, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/sandbox-orders/{externalOrderId}',
      operationId: 'getSandboxStoreOrder',
      summary: 'A store order as the sandbox store holds it, with the tracking pushed back',
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: orderParams,
      responses: {
        200: {
          description: 'The store order',
          schema: z.object({ data: sandboxOrderSchema }),
          example: { data: ORDER_EXAMPLE },
        },
      },
      errors: [errors.orderNotFound, errors.notSandbox],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await sandbox.getOrder(auth, params.id, params.externalOrderId) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/stores/{id}/sandbox-orders/{externalOrderId}/pay',
      operationId: 'paySandboxStoreOrder',
      summary: 'The customer pays an unpaid sandbox store order',
      description:
        'The store order becomes paid and the store sends its update (a signed webhook): the order waiting for payment is placed. An order paid already is answered as it is.',
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: orderParams,
      responses: {
        200: {
          description: 'The store order, paid',
          schema: z.object({ data: sandboxOrderSchema }),
          example: { data: { ...ORDER_EXAMPLE, fulfillments: [], updatedAt: '2026-11-25T10:53:12.019Z' } },
        },
      },
      errors: [errors.orderNotFound, errors.notSandbox, errors.disconnected],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await sandbox.payOrder(auth, params.id, params.externalOrderId) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/stores/{id}/sandbox-listings',
      operationId: 'listSandboxListings',
      summary: "A sandbox store's listings (active and draft), in the order they were made",
      description:
        "What the sandbox store sells: a store order line of a listing (`externalProductId`) carries its SKU and title, as a real platform's does.",
      tags,
      auth: 'apiKey',
      scope: 'stores:read',
      params: idParams,
      query: z.strictObject(pageQueryShape),
      responses: {
        200: {
          description: 'A page of listings',
          schema: listEnvelopeSchema(sandboxListingSchema),
          example: examplePage([LISTING_EXAMPLE]),
        },
      },
      errors: [errors.notFound, errors.notSandbox],
      handle: async ({ auth, params, query }) => ({
        status: 200,
        body: await sandbox.listListings(auth, params.id, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/stores/{id}/sandbox-listings',
      operationId: 'createSandboxListing',
      summary: 'Make a listing (a product) in a sandbox store',
      description:
        "The store's catalogue gains an active listing, and the store tells the service (a product webhook): the store's listings are synced a few seconds later (GET /stores/{id}/listings), matched to your products by SKU, or mapped with a store link.",
      tags,
      auth: 'apiKey',
      scope: 'stores:write',
      params: idParams,
      body: z.strictObject({
        sku: z.string().trim().min(1).max(100).optional(),
        title: z.string().trim().min(1).max(255),
      }),
      bodyExample: { sku: 'BC-CLASSIC-250', title: 'Business cards, 250 pieces' },
      responses: {
        201: {
          description: 'The listing',
          schema: z.object({ data: sandboxListingSchema }),
          example: { data: LISTING_EXAMPLE },
        },
      },
      errors: [errors.notFound, errors.notSandbox, errors.disconnected],
      handle: async ({ auth, params, body }) => ({
        status: 201,
        body: { data: await sandbox.createListing(auth, params.id, body) },
      }),
    }),
  ];
}
