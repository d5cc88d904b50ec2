import { randomUUID } from 'node:crypto';
import type { FakeReply } from '@print-api/connector-kit/testing';
import { declaredLength } from './wix-contract.ts';

/** A Catalog V3 variant as the fake keeps it: REST's `Variant` (the fields Get Product answers). */
export interface WixVariantV3 {
  id: string;
  visible: boolean;
  sku?: string;
  choices: Array<Record<string, unknown>>;
  price: { actualPrice: { amount: string }; compareAtPrice?: { amount: string } };
  physicalProperties?: Record<string, unknown>;
  inventoryStatus: { inStock: boolean; preorderEnabled: boolean };
}

/** A Catalog V3 product as the fake keeps it: REST's `V3Product`, as Get Product answers it. */
export interface WixProductV3 {
  id: string;
  revision: string;
  name: string;
  slug: string;
  visible: boolean;
  productType: 'PHYSICAL' | 'DIGITAL';
  plainDescription?: string;
  physicalProperties?: Record<string, unknown>;
  media?: { itemsInfo: { items: Array<{ id: string; url: string; mediaType: 'IMAGE' }> } };
  options: Array<Record<string, unknown>>;
  variantsInfo: { variants: WixVariantV3[] };
}

/** The V3 side of a site: its products. */
export interface CatalogueSiteV3 {
  currency: string;
  readonly productsV3: WixProductV3[];
}

/** Wix's checks, from `@wix/auto_sdk_stores_products-v-3`'s annotations (`@minLength`, `@maxLength`). */
const NAME = declaredLength('v3:V3Product', 'name');
const SKU = declaredLength('v3:VariantWithInventory', 'sku');
const DESCRIPTION = declaredLength('v3:V3Product', 'plainDescription');
/** `FixedMonetaryAmount.amount`: `@decimalValue options { gte:0, lte:999999999.99, maxScale:3 }`. */
const AMOUNT = /^\d{1,9}(\.\d{1,3})?$/;
const SITE_URL = 'https://tulipprints.wixsite.com/shop';

const invalid = (field: string, description: string): FakeReply => [
  400,
  {
    message: `${field}: ${description}`,
    details: { validationError: { fieldViolations: [{ field, description, violatedRule: 'OTHER' }] } },
  },
];
const applicationError = (status: number, code: string, description: string): FakeReply => [
  status,
  { message: description, details: { applicationError: { code, description, data: {} } } },
];
const notFound = (id: string) => applicationError(404, 'PRODUCT_NOT_FOUND', `Product ${id} not found`);

/** A name, the variants' SKUs and prices and the media, as Wix checks them on a create and an update. */
function refusal(product: Record<string, any>, creating: boolean): FakeReply | null {
  if (creating || product.name !== undefined) {
    const name = product.name;
    if (typeof name !== 'string' || name.trim().length < NAME.min || name.length > NAME.max)
      return invalid('product.name', `must be ${NAME.min}-${NAME.max} characters`);
  }
  if (typeof product.plainDescription === 'string' && product.plainDescription.length > DESCRIPTION.max)
    return invalid('product.plainDescription', `must be at most ${DESCRIPTION.max} characters`);
  if (creating && product.productType === 'PHYSICAL' && !product.physicalProperties)
    return invalid('product.physicalProperties', 'is required when productType is PHYSICAL');
  for (const [i, item] of (product.media?.itemsInfo?.items ?? []).entries())
    if (!item.id && !/^https?:\/\/[^/\s]+/.test(String(item.url ?? '')))
      return invalid(`product.media.itemsInfo.items[${i}].url`, 'must be a web URL');
  const variants: Array<Record<string, any>> = product.variantsInfo?.variants ?? [];
  if (creating || product.variantsInfo !== undefined) {
    if (variants.length === 0) return invalid('product.variantsInfo', 'variants has size 0, expected 1 or more');
    const options = product.options ?? [];
    if (options.length === 0 && (variants.length !== 1 || (variants[0]!.choices ?? []).length !== 0))
      return invalid('product.variantsInfo.variants', 'a product without options has one variant with no choices');
  }
  for (const [i, v] of variants.entries()) {
    const at = `product.variantsInfo.variants[${i}]`;
    if (v.sku !== undefined && (typeof v.sku !== 'string' || v.sku.length < SKU.min || v.sku.length > SKU.max))
      return invalid(`${at}.sku`, `must be ${SKU.min}-${SKU.max} characters`);
    for (const kind of ['actualPrice', 'compareAtPrice'])
      if (v.price?.[kind] !== undefined && !AMOUNT.test(String(v.price[kind].amount)))
        return invalid(`${at}.price.${kind}.amount`, 'must be a decimal of at least 0 with at most 3 decimals');
    if (product.productType === 'PHYSICAL' && !v.physicalProperties)
      return invalid(`${at}.physicalProperties`, 'must be passed when productType is PHYSICAL');
    if (v.inventoryItem && (v.inventoryItem.inStock !== undefined) === (v.inventoryItem.quantity !== undefined))
      return invalid(`${at}.inventoryItem`, 'track either inStock or quantity');
  }
  return null;
}

/** A written variant as Wix keeps it: its id (new when none is given), its stock from `inventoryItem`. */
function variantOf(input: Record<string, any>, previous: WixVariantV3 | undefined, visible: boolean): WixVariantV3 {
  const { inventoryItem, ...fields } = input;
  return {
    ...fields,
    id: input.id ?? randomUUID(),
    visible: input.visible ?? visible,
    choices: input.choices ?? [],
    price: input.price,
    inventoryStatus: inventoryItem
      ? { inStock: Boolean(inventoryItem.inStock || inventoryItem.quantity > 0), preorderEnabled: false }
      : (previous?.inventoryStatus ?? { inStock: false, preorderEnabled: false }),
  };
}

/** The product as answered: the page's address (REST's `PageUrlV2`) only when `fields` asks for `URL`, as Wix does. */
function answerOf(p: WixProductV3, fields: unknown): Record<string, unknown> {
  const path = `/product-page/${p.slug}`;
  return Array.isArray(fields) && fields.includes('URL')
    ? { ...p, url: { relativePath: path, url: `${SITE_URL}${path}` } }
    : { ...p };
}

function createProductWithInventory(site: CatalogueSiteV3, body: Record<string, any>): FakeReply {
  const input = body?.product ?? {};
  const refused = refusal(input, true);
  if (refused) return refused;
  const noOptions = (input.options ?? []).length === 0;
  const visible = input.visible ?? true;
  const product: WixProductV3 = {
    id: randomUUID(),
    revision: '1',
    name: input.name,
    slug: String(input.name)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, ''),
    visible,
    productType: input.productType,
    ...(input.plainDescription !== undefined ? { plainDescription: input.plainDescription } : {}),
    ...(input.physicalProperties ? { physicalProperties: input.physicalProperties } : {}),
    ...(input.media
      ? {
          media: {
            itemsInfo: {
              items: (input.media.itemsInfo?.items ?? []).map((m: { url: string }) => ({
                id: `${randomUUID().replaceAll('-', '')}~mv2.jpg`,
                url: m.url,
                mediaType: 'IMAGE' as const,
              })),
            },
          },
        }
      : {}),
    options: input.options ?? [],
    // Without options, the default variant is as visible as its product.
    variantsInfo: {
      variants: input.variantsInfo.variants.map((v: Record<string, any>) =>
        variantOf(noOptions ? { ...v, visible } : v, undefined, true),
      ),
    },
  };
  site.productsV3.push(product);
  return [200, { product: answerOf(product, body.fields) }];
}

/**
 * Update Product: the current `revision` or 409; top-level fields given replace the stored ones;
 * variants and options written together (a list replaces the stored one), each variant kept by
 * its `id`. Without options, the product's visibility carries to its default variant.
 */
function updateProductV3(site: CatalogueSiteV3, id: string, body: Record<string, any>): FakeReply {
  const product = site.productsV3.find((p) => p.id === id);
  if (!product) return notFound(id);
  const input = body?.product ?? {};
  if (input.id !== undefined && input.id !== id) return invalid('product.id', 'must be the id in the path');
  if (String(input.revision) !== product.revision)
    return applicationError(409, 'REVISION_MISMATCH', 'revision mismatch');
  if ((input.variantsInfo === undefined) !== (input.options === undefined))
    return invalid('product.variantsInfo', 'variants and options must be updated together');
  const refused = refusal({ ...input, productType: product.productType }, false);
  if (refused) return refused;
  if (input.name !== undefined) product.name = input.name;
  if (input.plainDescription !== undefined) product.plainDescription = input.plainDescription;
  if (input.options !== undefined) product.options = input.options;
  if (input.variantsInfo !== undefined)
    product.variantsInfo.variants = input.variantsInfo.variants.map((v: Record<string, any>) =>
      variantOf(
        v,
        product.variantsInfo.variants.find((p) => p.id === v.id),
        true,
      ),
    );
  if (input.visible !== undefined) {
    product.visible = input.visible;
    if (product.options.length === 0) for (const v of product.variantsInfo.variants) v.visible = input.visible;
  }
  product.revision = String(Number(product.revision) + 1);
  return [200, { product: answerOf(product, body.fields) }];
}

/** Query Products: cursor pages of products, without variant data (as Wix answers it). */
function queryProductsV3(site: CatalogueSiteV3): FakeReply {
  const products = site.productsV3.map(({ variantsInfo, ...p }) => p);
  return [200, { products, pagingMetadata: { count: products.length, cursors: { next: null }, hasNext: false } }];
}

/** Query Variants (read-only variants): cursor pages of every product's variants, with their product's data. */
function queryVariants(site: CatalogueSiteV3, body: Record<string, any>): FakeReply {
  const query = body?.query ?? {};
  const cursor = query.cursorPaging?.cursor;
  if (cursor && (query.filter || query.sort)) return invalid('query', 'a cursor is passed without filter and sort');
  const limit = Math.min(Number(query.cursorPaging?.limit ?? 100), 1000);
  const offset = cursor ? Number(Buffer.from(String(cursor), 'base64url').toString()) : 0;
  const all = site.productsV3.flatMap((p) =>
    p.variantsInfo.variants.map((v) => ({
      variantId: v.id,
      visible: v.visible,
      ...(v.sku ? { sku: v.sku } : {}),
      optionChoices: v.choices,
      price: { actualPrice: v.price.actualPrice },
      ...(v.physicalProperties ? { physicalProperties: v.physicalProperties } : {}),
      inventoryStatus: v.inventoryStatus,
      productData: {
        productId: p.id,
        name: p.name,
        productType: p.productType,
        slug: p.slug,
        visible: p.visible,
        revision: p.revision,
      },
    })),
  );
  const variants = all.slice(offset, offset + limit);
  const hasNext = offset + limit < all.length;
  const next = hasNext ? Buffer.from(String(offset + limit)).toString('base64url') : null;
  return [200, { variants, pagingMetadata: { count: variants.length, cursors: { next }, hasNext } }];
}

export type CatalogueV3Route = {
  operation: string;
  id: string;
  handle: (site: CatalogueSiteV3, body: any, id: string) => FakeReply;
};

/** The Catalog V3 product routes (a V1 site is refused by the caller). */
export function catalogueV3Route(method: string, path: string): CatalogueV3Route | null {
  if (method === 'POST' && path === '/stores/v3/products-with-inventory')
    return { operation: 'createProductWithInventory', id: '', handle: createProductWithInventory };
  if (method === 'POST' && path === '/stores/v3/products/query')
    return { operation: 'queryProductsV3', id: '', handle: queryProductsV3 };
  if (method === 'POST' && path === '/stores/v3/products/query-variants')
    return { operation: 'queryVariants', id: '', handle: queryVariants };
  const m = /^\/stores\/v3\/products\/([^/]+)$/.exec(path);
  if (m && method === 'GET')
    return {
      operation: 'getProductV3',
      id: decodeURIComponent(m[1]!),
      handle: (s, _b, id) => {
        const p = s.productsV3.find((x) => x.id === id);
        return p ? [200, { product: answerOf(p, []) }] : notFound(id);
      },
    };
  if (m && method === 'PATCH')
    return {
      operation: 'updateProductV3',
      id: decodeURIComponent(m[1]!),
      handle: (s, b, id) => updateProductV3(s, id, b),
    };
  return null;
}
