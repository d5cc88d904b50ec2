import { z } from 'zod';
import { EXAMPLE_RESELLER_PRODUCT, examplePage } from '../../web/api-examples.ts';
import { openApiComponent } from '../../web/openapi-component.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { ResellerProductsService } from './reseller-products-service.ts';

const tags = ['Reseller products'];
/** Said on every reseller-product route: which products a key sees. */
const perMode =
  'Test and live products are separate, like orders: a `prk_test_` key lists, reads, prices with and changes only its test products, a `prk_live_` key only its live ones, and a store uses the products of the mode it was connected with. The same SKU may exist in both modes.';
const optionValues = z.record(z.string().max(64), z.union([z.string().max(100), z.number().finite()]));
const sku = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'may contain letters, digits, dot, underscore and hyphen only');
// Any scheme parses; the file check answers a non-https one with 422 invalid_file_url, like every file URL problem.
const httpsUrl = z.url({ message: 'must be a URL' }).max(2048);

const resellerProductSchema = openApiComponent(
  z.object({
    id: z.string(),
    sku: z.string(),
    title: z.string(),
    productId: z.string(),
    options: z.record(z.string(), z.union([z.string(), z.number()])),
    fileUrl: z.string().nullable(),
    active: z.boolean(),
    links: z.number().int().meta({ description: 'Number of store listings linked to this product.' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  'ResellerProduct',
);

const inputSchema = openApiComponent(
  z.strictObject({
    sku: sku.meta({ description: '1-64 characters [A-Za-z0-9._-], unique per account and mode regardless of case.' }),
    title: z.string().trim().min(1).max(200),
    productId: z.string().min(1).max(200).meta({ description: 'Catalogue product id or slug.' }),
    options: optionValues
      .optional()
      .meta({ description: 'Customer options only, validated like quote options; defaults are added and stored.' }),
    fileUrl: httpsUrl
      .nullable()
      .optional()
      .meta({ description: 'Default artwork, checked like an order file; used when an order line brings none.' }),
    active: z.boolean().default(true).meta({
      description:
        'An inactive product is refused in quotes and orders (inactive_reseller_product), and its store orders are skipped.',
    }),
  }),
  'ResellerProductInput',
);

const patchSchema = openApiComponent(
  z
    .strictObject({
      sku: sku.optional(),
      title: z.string().trim().min(1).max(200).optional(),
      productId: z.string().min(1).max(200).optional(),
      options: optionValues.optional(),
      fileUrl: httpsUrl.nullable().optional(),
      active: z.boolean().optional(),
    })
    .refine((p) => Object.keys(p).length > 0, { message: 'send at least one field to change' }),
  'ResellerProductPatch',
);

const idParams = z.object({ id: z.string().min(1).max(64).meta({ description: 'Reseller product id or SKU.' }) });
const notFound = { status: 404, code: 'not_found', description: "Unknown reseller product (in this key's mode)." };
const skuExists = {
  status: 409,
  code: 'sku_exists',
  description: 'Another of your products in this mode has this SKU.',
};
const invalid = {
  status: 422,
  code: 'invalid_options',
  description: 'Unknown product, invalid options or file (details as for quotes).',
};

/** The five reseller-product endpoints of the spec. */
export function resellerProductsRoutes(deps: { resellerProducts: ResellerProductsService }): AnyRoute[] {
  const service = deps.resellerProducts;
  return [
    defineRoute({
      method: 'get',
      path: '/reseller-products',
      operationId: 'listResellerProducts',
      summary: 'List own products',
      description: perMode,
      tags,
      auth: 'apiKey',
      scope: 'reseller-products:read',
      query: z.strictObject({
        q: z.string().trim().min(1).max(100).optional().meta({ description: 'Search SKU or title.' }),
        active: z
          .enum(['true', 'false'])
          .transform((v) => v === 'true')
          .optional()
          .meta({ description: 'Only active (`true`) or inactive (`false`) products; both when left out.' }),
        ...pageQueryShape,
      }),
      responses: {
        200: {
          description: 'A page of products',
          schema: listEnvelopeSchema(resellerProductSchema),
          example: examplePage([EXAMPLE_RESELLER_PRODUCT]),
        },
      },
      handle: async ({ auth, query }) => ({ status: 200, body: await service.list(auth, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/reseller-products',
      operationId: 'createResellerProduct',
      summary: 'Create own product',
      description: perMode,
      tags,
      auth: 'apiKey',
      scope: 'reseller-products:write',
      body: inputSchema,
      bodyExample: {
        sku: EXAMPLE_RESELLER_PRODUCT.sku,
        title: EXAMPLE_RESELLER_PRODUCT.title,
        productId: 'business-cards',
        options: { paper: 'mc350', sides: '4/4' },
        fileUrl: EXAMPLE_RESELLER_PRODUCT.fileUrl,
      },
      responses: {
        201: {
          description: 'Created',
          schema: z.object({ data: resellerProductSchema }),
          example: { data: EXAMPLE_RESELLER_PRODUCT },
        },
      },
      errors: [skuExists, invalid],
      handle: async ({ auth, body }) => ({ status: 201, body: { data: await service.create(auth, body) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/reseller-products/{id}',
      operationId: 'getResellerProduct',
      summary: 'Get own product (id or SKU)',
      description: perMode,
      tags,
      auth: 'apiKey',
      scope: 'reseller-products:read',
      params: idParams,
      responses: {
        200: {
          description: 'The product',
          schema: z.object({ data: resellerProductSchema }),
          example: { data: EXAMPLE_RESELLER_PRODUCT },
        },
      },
      errors: [notFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await service.get(auth, params.id) } }),
    }),
    defineRoute({
      method: 'patch',
      path: '/reseller-products/{id}',
      operationId: 'updateResellerProduct',
      summary: 'Update own product',
      description: perMode,
      tags,
      auth: 'apiKey',
      scope: 'reseller-products:write',
      params: idParams,
      body: patchSchema,
      bodyExample: { title: 'Business cards, matt laminate', options: { finish: 'matt-laminate' } },
      responses: {
        200: {
          description: 'The product',
          schema: z.object({ data: resellerProductSchema }),
          example: {
            data: {
              ...EXAMPLE_RESELLER_PRODUCT,
              title: 'Business cards, matt laminate',
              options: { ...EXAMPLE_RESELLER_PRODUCT.options, finish: 'matt-laminate' },
              updatedAt: '2026-11-25T10:31:12.004Z',
            },
          },
        },
      },
      errors: [notFound, skuExists, invalid],
      handle: async ({ auth, params, body }) => ({
        status: 200,
        body: { data: await service.update(auth, params.id, body) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/reseller-products/{id}',
      operationId: 'deleteResellerProduct',
      summary: 'Delete own product',
      description: perMode,
      tags,
      auth: 'apiKey',
      scope: 'reseller-products:write',
      params: idParams,
      responses: {
        200: {
          description: 'Deleted',
          schema: z.object({ data: z.object({ id: z.string(), deleted: z.boolean() }) }),
          example: { data: { id: EXAMPLE_RESELLER_PRODUCT.id, deleted: true } },
        },
      },
      errors: [
        notFound,
        { status: 409, code: 'reseller_product_linked', description: 'Still linked to a connected store.' },
      ],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await service.delete(auth, params.id) } }),
    }),
  ];
}
