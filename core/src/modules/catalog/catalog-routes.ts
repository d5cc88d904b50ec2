import { z } from 'zod';
import { notFound } from '../../kernel/refusal.ts';
import {
  listEnvelope,
  listEnvelopeSchema,
  pageQueryShape,
  resolvePage,
  type CursorCodec,
} from '../../kernel/pagination.ts';
import { examplePage } from '../../web/api-examples.ts';
import { EXAMPLE_PRODUCT_DETAIL, EXAMPLE_PRODUCT_SUMMARY } from './catalog-examples.ts';
import { openApiComponent } from '../../web/openapi-component.ts';
import { constantBody, defineRoute, type AnyRoute } from '../../web/route.ts';
import type { SampleFiles } from '../print-files/sample-files.ts';
import type { Catalog } from './catalog.ts';
import type { Product } from './catalog-schema.ts';
import { toProductDetail, toProductSummary } from './product-views.ts';

const LANGS = ['nl', 'en', 'de', 'fr'] as const;
const tags = ['Catalogue'];

const productSummarySchema = openApiComponent(
  z.looseObject({
    id: z.string(),
    slugs: z.object({ nl: z.string(), en: z.string(), de: z.string(), fr: z.string() }),
    name: z.string(),
    category: z.string(),
    quantity: z.looseObject({
      pricedBy: z.enum(['copies', 'piece']).meta({
        description:
          '`copies`: priced per run, quantity must be one of `runs`; `piece`: priced per piece between `min` and `max`, cheaper per volume tier.',
      }),
    }),
    options: z.array(
      openApiComponent(
        z
          .looseObject({
            key: z.string(),
            name: z.string(),
            default: z.union([z.string(), z.number()]),
            values: z.array(z.looseObject({ value: z.union([z.string(), z.number()]), label: z.string() })),
          })
          .meta({
            description:
              'A customer option as the product page shows it: send `key` with one of `values[].value` in a line’s options; left out, it gets `default`.',
          }),
        'ProductOption',
      ),
    ),
  }),
  'Product',
);
const sampleFileSchema = openApiComponent(
  z.object({
    format: z
      .string()
      .meta({ description: 'The value of the size option it fits, or `standard` for a product of one size.' }),
    trimSizeMm: z.object({ width: z.number(), height: z.number() }),
    bleedMm: z.number(),
    pageSizeMm: z
      .object({ width: z.number(), height: z.number() })
      .meta({ description: 'The PDF page: the trim size with the bleed on every side.' }),
    url: z.string().meta({
      description:
        "Use it as a line's fileUrl with a prk_test_ key: resolved by the service itself, nothing is fetched.",
    }),
  }),
  'SampleFile',
);
const productDetailSchema = openApiComponent(
  productSummarySchema.extend({
    fileRequirements: z.looseObject({}),
    sampleFiles: z.array(sampleFileSchema).optional().meta({
      description:
        'Test keys only: a print-ready sample PDF per format of the product, so a sandbox order completes without a file host.',
    }),
  }),
  'ProductDetail',
);

/** GET /products and GET /products/{id}: the catalogue, in four languages. */
export function catalogRoutes(deps: { catalog: Catalog; cursors: CursorCodec; samples?: SampleFiles }): AnyRoute[] {
  const { catalog, cursors, samples } = deps;
  // The catalogue is fixed for the life of the process: each product page is built once per
  // language (and, with the sample files test keys see, once more per language for them).
  const details = new Map<string, { data: unknown }>();
  const detail = (product: Product, lang: (typeof LANGS)[number], test: boolean) => {
    const key = `${product.id}\u0000${lang}\u0000${test}`;
    let body = details.get(key);
    if (!body) {
      const view = toProductDetail(product, lang);
      details.set(
        key,
        (body = constantBody({ data: test && samples ? { ...view, sampleFiles: samples.list(product) } : view })),
      );
    }
    return body;
  };
  return [
    defineRoute({
      method: 'get',
      path: '/products',
      operationId: 'listProducts',
      summary: 'List catalogue products',
      tags,
      auth: 'apiKey',
      scope: 'catalog:read',
      query: z.strictObject({
        q: z.string().trim().min(1).max(100).optional().meta({
          description:
            'Search term, accents ignored: matches names in the chosen language and slugs in every language.',
          example: 'business',
        }),
        category: z.string().min(1).max(100).optional().meta({
          description: 'Storefront category slug (a product’s `category`), e.g. `business-cards`, `flyers`, `posters`.',
        }),
        lang: z.enum(LANGS).default('nl').meta({ description: 'Language of names and options (default nl).' }),
        ...pageQueryShape,
      }),
      responses: {
        200: {
          description: 'A page of products',
          schema: listEnvelopeSchema(productSummarySchema),
          example: examplePage([EXAMPLE_PRODUCT_SUMMARY], 'WyJwcm9kdWN0cyIsImJ1c2luZXNzLWNhcmRzIl0.1v9qk3', 1),
        },
      },
      handle: async ({ query }) => {
        const page = resolvePage(cursors, 'products', query);
        const after = page.after?.[0];
        const matches = catalog
          .search({ q: query.q, category: query.category, lang: query.lang })
          .filter((p) => after === undefined || p.id > String(after));
        const body = listEnvelope(
          cursors,
          'products',
          page,
          matches.slice(0, page.limit + 1),
          (p) => [p.id],
          (p) => toProductSummary(p, query.lang),
        );
        return { status: 200, body };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/products/{id}',
      operationId: 'getProduct',
      summary: 'Product with options and file requirements',
      description:
        'The id may be the product id or its slug in any language. Options are exactly those of the product page, each with its default and allowed values. For a test (prk_test_) key, sampleFiles lists a print-ready sample PDF per format, served by the service itself: use its url as a fileUrl and a sandbox order runs to DELIVERED with no file host.',
      tags,
      auth: 'apiKey',
      scope: 'catalog:read',
      params: z.object({
        id: z.string().min(1).max(200).meta({
          description: 'Product id (`business-cards`) or its slug in any language (`visitekaartjes`).',
          example: 'business-cards',
        }),
      }),
      query: z.strictObject({
        lang: z.enum(LANGS).default('nl').meta({ description: 'Language of names and options (default nl).' }),
      }),
      responses: {
        200: {
          description: 'The product',
          schema: z.object({ data: productDetailSchema }),
          example: { data: EXAMPLE_PRODUCT_DETAIL },
        },
      },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown product.' }],
      handle: async ({ params, query, auth }) => {
        const product = catalog.find(params.id);
        if (!product) throw notFound('product', params.id);
        return { status: 200, body: detail(product, query.lang, auth.mode === 'test') };
      },
    }),
  ];
}
