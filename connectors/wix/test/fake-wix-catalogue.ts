import { randomUUID } from 'node:crypto';
import type { FakeReply } from '@print-api/connector-kit/testing';
import { catalogueV3Route, type CatalogueSiteV3 } from './fake-wix-catalogue-v3.ts';

/** A Catalog V1 product as the fake keeps it (the fields Wix answers that we read or write). */
export interface WixProductV1 {
  id: string;
  name: string;
  sku: string;
  visible: boolean;
  productType: string;
  manageVariants: boolean;
  description?: string;
  priceData?: { currency: string; price: number };
  media?: { items: Array<{ id: string; mediaType: 'image'; image: { url: string } }> };
  productPageUrl?: { base: string; path: string };
  variants: Array<{
    id: string;
    choices: Record<string, string>;
    variant: { sku: string; visible: boolean; priceData?: { currency: string; price: number } };
  }>;
}

/** The catalogue a site runs (Get Catalog Version's answer). */
export type CatalogVersion = 'V1_CATALOG' | 'V3_CATALOG' | 'STORES_NOT_INSTALLED';

/** The site the catalogue belongs to: its Catalog version, currency, products (V1's, V3's). */
export interface CatalogueSite extends CatalogueSiteV3 {
  catalogVersion: CatalogVersion;
  readonly products: WixProductV1[];
}

export type CatalogueRoute = {
  operation: string;
  id: string;
  handle: (site: CatalogueSite, body: any, id: string) => FakeReply;
};

const DEFAULT_VARIANT_ID = '00000000-0000-0000-0000-000000000000';
const invalid = (field: string, description: string): FakeReply => [
  400,
  {
    message: `${field}: ${description}`,
    details: { validationError: { fieldViolations: [{ field, description, violatedRule: 'OTHER' }] } },
  },
];
const notFound = (id: string): FakeReply => [
  404,
  {
    message: `Product ${id} not found`,
    details: { applicationError: { code: 'PRODUCT_NOT_FOUND', description: `Product ${id} not found`, data: {} } },
  },
];
const v1Only = (s: CatalogueSite) => s.catalogVersion === 'V1_CATALOG';
/** What Wix answers a call to the other catalogue's API. */
const otherCatalog = (site: 'V1' | 'V3'): FakeReply => [
  428,
  {
    message: `Site uses catalog ${site}`,
    details: {
      applicationError: {
        code: `CATALOG_${site}_SITE_CALLING_CATALOG_${site === 'V1' ? 'V3' : 'V1'}_API`,
        description: `Site uses catalog ${site}`,
        data: {},
      },
    },
  },
];
const v3Site = () => otherCatalog('V3');

/**
 * Wix's checks on a V1 product's fields (name 1-80 characters, SKU up to 40, a price that is a non-negative number).
 */
function refusal(
  product: Partial<WixProductV1> & { priceData?: { price?: unknown } },
  creating: boolean,
): FakeReply | null {
  if (creating || product.name !== undefined) {
    if (typeof product.name !== 'string' || product.name.trim() === '')
      return invalid('product.name', 'must not be empty');
    if (product.name.length > 80) return invalid('product.name', 'must be at most 80 characters');
  }
  if (product.sku !== undefined && (typeof product.sku !== 'string' || product.sku.length > 40))
    return invalid('product.sku', 'must be a string of at most 40 characters');
  if (creating && product.productType !== 'physical' && product.productType !== 'digital')
    return invalid('product.productType', 'must be physical or digital');
  if (creating && product.priceData?.price === undefined) return invalid('product.priceData.price', 'is required');
  const price = product.priceData?.price;
  if (price !== undefined && (typeof price !== 'number' || !(price >= 0)))
    return invalid('product.priceData.price', 'must be a non-negative number');
  return null;
}

function createProduct(site: CatalogueSite, body: { product?: Record<string, any> }): FakeReply {
  const input = body?.product ?? {};
  const refused = refusal(input, true);
  if (refused) return refused;
  const id = randomUUID();
  const priceData = { currency: site.currency, price: input.priceData.price as number };
  const slug = String(input.name)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const product: WixProductV1 = {
    id,
    name: input.name,
    sku: input.sku ?? '',
    visible: input.visible ?? true,
    productType: input.productType,
    manageVariants: false,
    ...(input.description !== undefined ? { description: input.description } : {}),
    priceData,
    media: { items: [] },
    productPageUrl: { base: 'https://tulipprints.wixsite.com/shop', path: `/product-page/${slug}` },
    variants: [{ id: DEFAULT_VARIANT_ID, choices: {}, variant: { sku: input.sku ?? '', visible: true, priceData } }],
  };
  site.products.push(product);
  return [200, { product }];
}

function updateProduct(site: CatalogueSite, id: string, body: { product?: Record<string, any> }): FakeReply {
  const product = site.products.find((p) => p.id === id);
  if (!product) return notFound(id);
  const input = body?.product ?? {};
  const refused = refusal(input, false);
  if (refused) return refused;
  if (input.name !== undefined) product.name = input.name;
  if (input.visible !== undefined) product.visible = input.visible;
  if (input.priceData?.price !== undefined) {
    product.priceData = { currency: site.currency, price: input.priceData.price };
    for (const v of product.variants) v.variant.priceData = product.priceData;
  }
  return [200, { product }];
}

function addProductMedia(
  site: CatalogueSite,
  id: string,
  body: { media?: Array<{ url?: string; mediaId?: string }> },
): FakeReply {
  const product = site.products.find((p) => p.id === id);
  if (!product) return notFound(id);
  for (const [i, m] of (body?.media ?? []).entries()) {
    if (!m.url && !m.mediaId) return invalid(`media[${i}]`, 'url or mediaId is required');
    if (m.url && !/^https:\/\//.test(m.url)) return invalid(`media[${i}].url`, 'must be an https URL');
  }
  product.media!.items.push(
    ...(body?.media ?? []).map((m) => ({
      id: randomUUID(),
      mediaType: 'image' as const,
      image: { url: m.url ?? m.mediaId! },
    })),
  );
  return [200, {}];
}

/** Query Products (V1): offset pages of the catalogue, variants included. */
function queryProducts(site: CatalogueSite, body: any): FakeReply {
  const paging = body?.query?.paging ?? {};
  const offset = Number(paging.offset ?? 0);
  const products = site.products.slice(offset, offset + Math.min(Number(paging.limit ?? 100), 100));
  return [200, { products, metadata: { items: products.length, offset }, totalResults: site.products.length }];
}

/** The Wix Stores routes: catalogue version, V1 product query and writes, V3 products and variants. */
export function catalogueRoute(method: string, path: string): CatalogueRoute | null {
  if (method === 'GET' && path === '/stores/v3/provision/version')
    return { operation: 'getCatalogVersion', id: '', handle: (s) => [200, { catalogVersion: s.catalogVersion }] };
  const v3 = catalogueV3Route(method, path);
  if (v3)
    return {
      ...v3,
      handle: (s, b, id) => (s.catalogVersion === 'V3_CATALOG' ? v3.handle(s, b, id) : otherCatalog('V1')),
    };
  if (method === 'POST' && path === '/stores-reader/v1/products/query')
    return { operation: 'queryProducts', id: '', handle: (s, b) => (v1Only(s) ? queryProducts(s, b) : v3Site()) };
  if (method === 'POST' && path === '/stores/v1/products')
    return { operation: 'createProduct', id: '', handle: (s, b) => (v1Only(s) ? createProduct(s, b) : v3Site()) };
  let m = /^\/stores\/v1\/products\/([^/]+)$/.exec(path);
  if (method === 'PATCH' && m)
    return {
      operation: 'updateProduct',
      id: decodeURIComponent(m[1]!),
      handle: (s, b, id) => (v1Only(s) ? updateProduct(s, id, b) : v3Site()),
    };
  m = /^\/stores\/v1\/products\/([^/]+)\/media$/.exec(path);
  if (method === 'POST' && m)
    return {
      operation: 'addProductMedia',
      id: decodeURIComponent(m[1]!),
      handle: (s, b, id) => (v1Only(s) ? addProductMedia(s, id, b) : v3Site()),
    };
  return null;
}
