import { z } from 'zod';
import { notFound } from '../../http/api-error.ts';
import { listEnvelope, listEnvelopeSchema, pageQueryShape, resolvePage, type CursorCodec } from '../../http/pagination.ts';
import { constantBody, defineRoute, type AnyRoute } from '../../http/route.ts';
import type { Catalog } from './catalog.ts';
import type { Product } from './catalog-schema.ts';
import { toProductDetail, toProductSummary } from './product-views.ts';

const LANGS = ['nl', 'en', 'de', 'fr'] as const;
const tags = ['Catalogue'];

const productSummarySchema = z.looseObject({
  id: z.string(),
  slugs: z.object({ nl: z.string(), en: z.string(), de: z.string(), fr: z.string() }),
  name: z.string(),
  category: z.string(),
  quantity: z.looseObject({ pricedBy: z.enum(['copies', 'piece']) }),
  options: z.array(z.looseObject({ key: z.string(), name: z.string(), default: z.union([z.string(), z.number()]), values: z.array(z.looseObject({ value: z.union([z.string(), z.number()]), label: z.string() })) })),
});
const productDetailSchema = productSummarySchema.extend({ fileRequirements: z.looseObject({}) });

/** GET /products and GET /products/{id}: the catalogue, in four languages. */
export function catalogRoutes(deps: { catalog: Catalog; cursors: CursorCodec }): AnyRoute[] {
  const { catalog, cursors } = deps;
  // The catalogue is fixed for the life of the process: each product page is built once per language.
  const details = new Map<string, { data: unknown }>();
  const detail = (product: Product, lang: (typeof LANGS)[number]) => {
    const key = `${product.id}\u0000${lang}`;
    let body = details.get(key);
    if (!body) details.set(key, (body = constantBody({ data: toProductDetail(product, lang) })));
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
        q: z.string().trim().min(1).max(100).optional().meta({ description: 'Search term (names in the chosen language, and slugs).' }),
        category: z.string().min(1).max(100).optional().meta({ description: 'Storefront category slug.' }),
        lang: z.enum(LANGS).default('nl').meta({ description: 'Language of names and options (default nl).' }),
        ...pageQueryShape,
      }),
      responses: { 200: { description: 'A page of products', schema: listEnvelopeSchema(productSummarySchema) } },
      handle: async ({ query }) => {
        const page = resolvePage(cursors, 'products', query);
        const after = page.after?.[0];
        const matches = catalog.search({ q: query.q, category: query.category, lang: query.lang }).filter((p) => after === undefined || p.id > String(after));
        const body = listEnvelope(cursors, 'products', page, matches.slice(0, page.limit + 1), (p) => [p.id], (p) => toProductSummary(p, query.lang));
        return { status: 200, body };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/products/{id}',
      operationId: 'getProduct',
      summary: 'Product with options and file requirements',
      description: 'The id may be the product id or its slug in any language. Options are exactly those of the product page, each with its default and allowed values.',
      tags,
      auth: 'apiKey',
      scope: 'catalog:read',
      params: z.object({ id: z.string().min(1).max(200) }),
      query: z.strictObject({ lang: z.enum(LANGS).default('nl').meta({ description: 'Language of names and options (default nl).' }) }),
      responses: { 200: { description: 'The product', schema: z.object({ data: productDetailSchema }) } },
      errors: [{ status: 404, code: 'not_found', description: 'Unknown product.' }],
      handle: async ({ params, query }) => {
        const product = catalog.find(params.id);
        if (!product) throw notFound('product', params.id);
        return { status: 200, body: detail(product, query.lang) };
      },
    }),
  ];
}
