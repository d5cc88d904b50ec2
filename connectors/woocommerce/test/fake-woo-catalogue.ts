import type { Reply } from './fake-woo-store.ts';

// The store's catalogue as WooCommerce's REST API answers it: products (list, create, read, update) and variations, with
// WooCommerce's unique-SKU and image checks.

/** A product of the fake store's catalogue: simple (its own SKU) or variable (its variations'). */
export interface FakeWooProduct {
  id: number;
  name: string;
  type: 'simple' | 'variable';
  status: 'publish' | 'draft' | 'pending' | 'private';
  sku: string;
  variations?: Array<{
    id: number;
    sku: string;
    status: 'publish' | 'private';
    attributes: Array<{ name: string; option: string }>;
  }>;
  /** A decimal string in the store's currency ('' when unset), as WooCommerce keeps it. */
  regular_price?: string;
  description?: string;
  images?: Array<{ src: string }>;
}

/** The part of a store the catalogue reads and writes. */
export interface CatalogueStore {
  readonly url: string;
  readonly products: Map<number, FakeWooProduct>;
  nextId(): number;
}

/** WooCommerce's answer to a SKU another product has (`WC_REST_Products_Controller`, `product_invalid_sku`). */
const SKU_TAKEN = { code: 'product_invalid_sku', message: 'Invalid or duplicated SKU.', data: { status: 400 } };

/** The catalogue's answer to `method path`, or null when it is not a catalogue route; `page` pages a list as WP does. */
export function catalogueRoute(
  store: CatalogueStore,
  method: string,
  path: string,
  body: Record<string, unknown>,
  page: (items: unknown[]) => Reply,
): Reply | null {
  let m: RegExpMatchArray | null;
  if (method === 'GET' && path === '/wp-json/wc/v3/products') {
    return page([...store.products.values()].sort((a, b) => a.id - b.id).map((p) => productJson(store, p)));
  }
  if (method === 'POST' && path === '/wp-json/wc/v3/products') return createProduct(store, body);
  if ((m = path.match(/^\/wp-json\/wc\/v3\/products\/(\d+)$/))) {
    const product = store.products.get(Number(m[1]));
    if (!product)
      return [404, { code: 'woocommerce_rest_product_invalid_id', message: 'Invalid ID.', data: { status: 404 } }];
    if (method === 'PUT') {
      if (typeof body.sku === 'string' && skuTaken(store, body.sku, product.id)) return [400, SKU_TAKEN];
      Object.assign(product, pick(body, ['name', 'status', 'regular_price', 'description', 'sku']));
    }
    return [200, productJson(store, product)];
  }
  if (method === 'GET' && (m = path.match(/^\/wp-json\/wc\/v3\/products\/(\d+)\/variations$/))) {
    const product = store.products.get(Number(m[1]));
    if (!product)
      return [404, { code: 'woocommerce_rest_product_invalid_id', message: 'Invalid ID.', data: { status: 404 } }];
    return page([...(product.variations ?? [])].sort((a, b) => a.id - b.id));
  }
  return null;
}

/**
 * `WC_REST_Products_Controller::create_item`: a SKU must be unique in the store (`wc_product_has_unique_sku`), an
 * image URL must load.
 */
function createProduct(store: CatalogueStore, body: Record<string, unknown>): Reply {
  const sku = typeof body.sku === 'string' ? body.sku : '';
  if (sku && skuTaken(store, sku)) return [400, SKU_TAKEN];
  const images = Array.isArray(body.images) ? (body.images as Array<{ src?: unknown }>) : [];
  const unloadable = images.find((i) => typeof i.src !== 'string' || !i.src.startsWith('https://'));
  if (unloadable)
    return [
      400,
      {
        code: 'woocommerce_product_image_upload_error',
        message: `Error getting remote image ${String(unloadable.src)}.`,
        data: { status: 400 },
      },
    ];
  const product: FakeWooProduct = {
    id: store.nextId(),
    name: String(body.name ?? ''),
    type: (body.type as FakeWooProduct['type']) ?? 'simple',
    status: (body.status as FakeWooProduct['status']) ?? 'publish',
    sku,
    regular_price: typeof body.regular_price === 'string' ? body.regular_price : '',
    description: typeof body.description === 'string' ? body.description : '',
    images: images.map((i) => ({ src: String(i.src) })),
  };
  store.products.set(product.id, product);
  return [201, productJson(store, product)];
}

function skuTaken(store: CatalogueStore, sku: string, except?: number): boolean {
  return [...store.products.values()].some(
    (p) => p.id !== except && (p.sku === sku || (p.variations ?? []).some((v) => v.sku === sku)),
  );
}

/** A product as `GET /products` answers it (the fields the contract types; `price` is the regular price, no sale here). */
function productJson(store: CatalogueStore, { variations, images, ...p }: FakeWooProduct): Record<string, unknown> {
  const slug =
    p.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || `product-${p.id}`;
  return {
    ...p,
    slug,
    permalink: `${store.url}/product/${slug}/`,
    price: p.regular_price ?? '',
    regular_price: p.regular_price ?? '',
    description: p.description ?? '',
    images: (images ?? []).map((img, i) => ({ id: p.id * 100 + i, src: img.src, name: '', alt: '' })),
    variations: (variations ?? []).map((v) => v.id),
  };
}

function pick(body: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
}
