import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FulfillmentStatus, OrderStatus, PaymentStatusEnumPaymentStatus, SortOrder } from '@wix/auto_sdk_ecom_orders';
import * as ordersMeta from '@wix/auto_sdk_ecom_orders/meta';
import * as fulfillmentsMeta from '@wix/auto_sdk_ecom_order-fulfillments/meta';
import { ProductType } from '@wix/auto_sdk_stores_products';
import * as productsMeta from '@wix/auto_sdk_stores_products/meta';
import * as sitePropertiesMeta from '@wix/auto_sdk_business-tools_site-properties/meta';
import * as catalogVersioningMeta from '@wix/auto_sdk_stores_catalog-versioning/meta';
import {
  ProductOptionRenderType,
  ProductType as V3ProductType,
  SingleEntityOpsRequestedFields,
} from '@wix/auto_sdk_stores_products-v-3';
import * as productsV3Meta from '@wix/auto_sdk_stores_products-v-3/meta';
import * as readOnlyVariantsMeta from '@wix/auto_sdk_stores_read-only-variants-v-3/meta';

/**
 * Wix's published contract, from the official SDK packages (dev dependencies, versions in
 * package.json): each REST method's HTTP method and path (`…/meta`: what the SDK itself calls
 * on www.wixapis.com), the property names of the request and entity types (the packages'
 * `.d.mts` declarations, read at test time) and their enums (the packages' runtime enums).
 * The SDK renames a few REST fields (`id` -> `_id`, `createdDate` -> `_createdDate`): a REST name
 * is accepted where the SDK has its `_` form.
 */
const require = createRequire(import.meta.url);
const declarations = (pkg: string) => {
  const dir = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'build/es');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.d.mts'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
};
const DTS = `${declarations('@wix/auto_sdk_ecom_orders')}\n${declarations('@wix/auto_sdk_ecom_order-fulfillments')}`;
/**
 * The other packages' types, asked for as `<prefix>:<Name>` (some are named like the eCommerce
 * ones: `Product`, `Media`, `Address`): Wix Stores Catalog V1 (`stores:`), Catalog V3's products
 * (`v3:`, `@wix/auto_sdk_stores_products-v-3`) and read-only variants (`variants:`,
 * `@wix/auto_sdk_stores_read-only-variants-v-3`), and the site's properties (`site:`,
 * `@wix/auto_sdk_business-tools_site-properties`). A package's `meta.d.mts` comes first: its
 * interfaces are the REST forms (`id`, `url: PageUrlV2`), the SDK's follow (`_id`, `url: string`).
 */
const PREFIXED: Record<string, string> = {
  stores: declarations('@wix/auto_sdk_stores_products'),
  v3: declarations('@wix/auto_sdk_stores_products-v-3'),
  variants: declarations('@wix/auto_sdk_stores_read-only-variants-v-3'),
  site: declarations('@wix/auto_sdk_business-tools_site-properties'),
};
const keysCache = new Map<string, Set<string>>();

/** A declared interface: its source (the package's declarations), its body and the interfaces it extends. */
function declared(name: string): { prefix: string | undefined; body: string; parents: string[] } {
  const [, prefix, bare] = /^(?:(\w+):)?(\w+)$/.exec(name)!;
  const source = prefix ? PREFIXED[prefix]! : DTS;
  const m = new RegExp(`^interface ${bare}(?: extends ([\\w, ]+))? \\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(source);
  if (!m) throw new Error(`the Wix SDK declares no interface ${name}`);
  const parents = (m[1] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (prefix ? `${prefix}:${p}` : p));
  return { prefix, body: m[2]!, parents };
}

/** The property names of a declared interface, its `extends` included (`stores:Product`: the Catalog V1 package's). */
export function interfaceKeys(name: string): Set<string> {
  const cached = keysCache.get(name);
  if (cached) return cached;
  const { body, parents } = declared(name);
  const keys = new Set([...body.matchAll(/^ {4}(\w+)\??:/gm)].map((k) => k[1]!));
  for (const parent of parents) for (const k of interfaceKeys(parent)) keys.add(k);
  keysCache.set(name, keys);
  return keys;
}

/** The length bounds a property's doc comment declares (`@minLength 1`, `@maxLength 80`). */
export function declaredLength(name: string, field: string): { min: number; max: number } {
  const { body, parents } = declared(name);
  const m = new RegExp(`/\\*\\*((?:[^*]|\\*(?!/))*)\\*/\\n {4}${field}\\??:`).exec(body);
  if (!m) {
    for (const parent of parents) if (interfaceKeys(parent).has(field)) return declaredLength(parent, field);
    throw new Error(`${name} declares no ${field}`);
  }
  const tag = (t: string) => new RegExp(`@${t} (\\d+)`).exec(m[1]!)?.[1];
  return { min: Number(tag('minLength') ?? 0), max: Number(tag('maxLength') ?? Number.POSITIVE_INFINITY) };
}

/**
 * The request fields a Catalog V3 method requires: the `@requiredField` tags of the SDK
 * function's doc comment (`product.name`, `product.variantsInfo.variants.price.actualPrice`),
 * in REST's spelling (`_id` -> `id`). A nested field is required where its parent is given
 * ("Other fields shown as required in the schema apply only when their parent field is
 * provided", Update Product's doc comment).
 */
function requiredFields(sdkFunction: string, requestType: string): string[][] {
  const docs = [
    ...PREFIXED.v3!.matchAll(new RegExp(`/\\*\\*((?:[^*]|\\*(?!/))*)\\*/\\s*declare function ${sdkFunction}\\(`, 'g')),
  ];
  const tags = docs.flatMap((d) => [...d[1]!.matchAll(/@requiredField (\S+)/g)].map((t) => t[1]!));
  if (tags.length === 0) throw new Error(`the Wix SDK documents no required field of ${sdkFunction}`);
  // A first segment the request does not have is the path's parameter (`_id`: Update Product's productId).
  return [...new Set(tags)]
    .map((t) => t.split('.').map((f) => (f === '_id' ? 'id' : f)))
    .filter((p) => interfaceKeys(requestType).has(p[0]!));
}
const REQUIRED: Record<string, string[][]> = {
  createProductWithInventory: requiredFields('createProductWithInventory', 'v3:CreateProductWithInventoryRequest'),
  updateProductV3: requiredFields('updateProduct', 'v3:UpdateProductRequest'),
};

function missing(value: unknown, path: string[], at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => missing(v, path, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const [head, ...rest] = path;
  const where = at ? `${at}.${head}` : head!;
  const v = (value as Record<string, unknown>)[head!];
  if (v === undefined || v === null || v === '') return rest.length === 0 ? [`${where}: is required`] : [];
  return rest.length === 0 ? [] : missing(v, rest, where);
}

/** The fields `operation`'s request lacks that the SDK documents as required (none for an operation it does not tag). */
export function requiredViolations(operation: string, body: unknown): string[] {
  return (REQUIRED[operation] ?? []).flatMap((p) => missing(body, p, ''));
}

/** A JSON value's shape: the interface its object follows, the shapes of its fields, the enum of a text field. */
export interface Shape {
  type?: string;
  fields?: Record<string, Shape>;
  oneOf?: Record<string, string>;
}

const ADDRESS: Shape = {
  type: 'AddressWithContact',
  fields: {
    address: { type: 'Address', fields: { streetAddress: { type: 'StreetAddress' } } },
    contactDetails: { type: 'FullAddressContactDetails' },
  },
};

/** The eCommerce order as the SDK types it (the fields our fake fills). */
export const ORDER: Shape = {
  type: 'Order',
  oneOf: { status: 'OrderStatus', paymentStatus: 'PaymentStatus', fulfillmentStatus: 'FulfillmentStatus' },
  fields: {
    lineItems: {
      type: 'OrderLineItem',
      fields: {
        productName: { type: 'ProductName' },
        catalogReference: { type: 'CatalogReference' },
        physicalProperties: { type: 'PhysicalProperties' },
        price: { type: 'Price' },
      },
    },
    buyerInfo: { type: 'BuyerInfo' },
    priceSummary: {
      type: 'PriceSummary',
      fields: { subtotal: { type: 'Price' }, shipping: { type: 'Price' }, total: { type: 'Price' } },
    },
    shippingInfo: {
      type: 'V1ShippingInformation',
      fields: { logistics: { type: 'DeliveryLogistics', fields: { shippingDestination: ADDRESS } } },
    },
    billingInfo: ADDRESS,
    recipientInfo: ADDRESS,
  },
};

export const SEARCH_ORDERS_REQUEST: Shape = {
  type: 'SearchOrdersRequest',
  fields: {
    search: {
      type: 'CursorSearch',
      fields: { cursorPaging: { type: 'CursorPaging' }, sort: { type: 'Sorting', oneOf: { order: 'SortOrder' } } },
    },
  },
};

export const CREATE_FULFILLMENT_REQUEST: Shape = {
  type: 'CreateFulfillmentRequest',
  fields: {
    fulfillment: {
      type: 'Fulfillment',
      fields: { lineItems: { type: 'FulfillmentLineItem' }, trackingInfo: { type: 'FulfillmentTrackingInfo' } },
    },
  },
};

/** Catalog V1 product writes (`createProduct`, `updateProduct`, `addProductMedia`) as the SDK types their requests. */
const V1_PRODUCT: Shape = {
  type: 'stores:Product',
  oneOf: { productType: 'ProductType' },
  fields: { priceData: { type: 'stores:PriceData' } },
};
export const CREATE_PRODUCT_REQUEST: Shape = { type: 'stores:CreateProductRequest', fields: { product: V1_PRODUCT } };
export const UPDATE_PRODUCT_REQUEST: Shape = { type: 'stores:UpdateProductRequest', fields: { product: V1_PRODUCT } };
export const ADD_PRODUCT_MEDIA_REQUEST: Shape = {
  type: 'stores:AddProductMediaRequest',
  fields: { media: { type: 'stores:MediaDataForWrite' } },
};
/** What the fake answers for a Catalog V1 product (`createProduct`, `updateProduct`, the query's `products[]`). */
export const V1_PRODUCT_ANSWER: Shape = {
  ...V1_PRODUCT,
  fields: {
    ...V1_PRODUCT.fields,
    variants: { type: 'stores:Variant' },
    media: { type: 'stores:Media' },
    productPageUrl: { type: 'stores:PageUrl' },
  },
};
/** A Catalog V3 variant's price (`PriceInfo` > `FixedMonetaryAmount`), written and answered. */
const V3_PRICE: Shape = {
  type: 'v3:PriceInfo',
  fields: { actualPrice: { type: 'v3:FixedMonetaryAmount' }, compareAtPrice: { type: 'v3:FixedMonetaryAmount' } },
};
const V3_MEDIA: Shape = {
  type: 'v3:Media',
  fields: {
    main: { type: 'v3:ProductMedia' },
    itemsInfo: { type: 'v3:MediaItemsInfo', fields: { items: { type: 'v3:ProductMedia' } } },
  },
};
/** A Catalog V3 product as Wix answers it (`V3Product`), and as Update Product takes it. */
export const V3_PRODUCT: Shape = {
  type: 'v3:V3Product',
  oneOf: { productType: 'V3ProductType' },
  fields: {
    physicalProperties: { type: 'v3:PhysicalProperties' },
    media: V3_MEDIA,
    options: {
      type: 'v3:ConnectedOption',
      oneOf: { optionRenderType: 'ProductOptionRenderType' },
      fields: {
        choicesSettings: { type: 'v3:ChoicesSettings', fields: { choices: { type: 'v3:ConnectedOptionChoice' } } },
      },
    },
    variantsInfo: {
      type: 'v3:VariantsInfo',
      fields: {
        variants: {
          type: 'v3:Variant',
          fields: {
            price: V3_PRICE,
            physicalProperties: { type: 'v3:VariantPhysicalProperties' },
            choices: {
              type: 'v3:OptionChoice',
              fields: {
                optionChoiceIds: { type: 'v3:OptionChoiceIds' },
                optionChoiceNames: { type: 'v3:OptionChoiceNames' },
              },
            },
            inventoryStatus: { type: 'v3:InventoryStatus' },
          },
        },
      },
    },
    url: { type: 'v3:PageUrlV2' },
  },
};
/** Catalog V3 writes: Create Product With Inventory (the variants carry their `inventoryItem`) and Update Product. */
export const CREATE_PRODUCT_WITH_INVENTORY_REQUEST: Shape = {
  type: 'v3:CreateProductWithInventoryRequest',
  oneOf: { fields: 'SingleEntityOpsRequestedFields' },
  fields: {
    product: {
      type: 'v3:ProductWithInventory',
      oneOf: { productType: 'V3ProductType' },
      fields: {
        physicalProperties: { type: 'v3:PhysicalProperties' },
        media: V3_MEDIA,
        variantsInfo: {
          type: 'v3:V3VariantsInfo',
          fields: {
            variants: {
              type: 'v3:VariantWithInventory',
              fields: {
                price: V3_PRICE,
                physicalProperties: { type: 'v3:VariantPhysicalProperties' },
                inventoryItem: { type: 'v3:InventoryItemComposite' },
                choices: { type: 'v3:OptionChoiceReferences' },
              },
            },
          },
        },
      },
    },
  },
};
export const UPDATE_PRODUCT_V3_REQUEST: Shape = {
  type: 'v3:UpdateProductRequest',
  oneOf: { fields: 'SingleEntityOpsRequestedFields' },
  fields: { product: V3_PRODUCT },
};
/** Catalog V3's read-only variants query and its answer. */
export const QUERY_VARIANTS_REQUEST: Shape = {
  type: 'variants:QueryVariantsRequest',
  fields: { query: { type: 'variants:CursorQuery', fields: { cursorPaging: { type: 'variants:CursorPaging' } } } },
};
export const QUERY_VARIANTS_ANSWER: Shape = {
  type: 'variants:QueryVariantsResponse',
  fields: {
    variants: {
      type: 'variants:ReadOnlyVariant',
      fields: {
        optionChoices: {
          type: 'variants:OptionChoice',
          fields: {
            optionChoiceIds: { type: 'variants:OptionChoiceIds' },
            optionChoiceNames: { type: 'variants:OptionChoiceNames' },
          },
        },
        price: { type: 'variants:PriceInfo', fields: { actualPrice: { type: 'variants:FixedMonetaryAmount' } } },
        productData: { type: 'variants:ProductFields' },
        physicalProperties: { type: 'variants:VariantPhysicalProperties' },
        inventoryStatus: { type: 'variants:InventoryStatus' },
      },
    },
    pagingMetadata: { type: 'variants:CursorPagingMetadata', fields: { cursors: { type: 'variants:Cursors' } } },
  },
};
/** What the fake answers for the site's properties (`getSiteProperties`). */
export const SITE_PROPERTIES_ANSWER: Shape = {
  type: 'site:PropertiesReadResponse',
  fields: { properties: { type: 'site:Properties', fields: { address: { type: 'site:Address' } } } },
};

const ENUMS: Record<string, Record<string, string>> = {
  OrderStatus,
  PaymentStatus: PaymentStatusEnumPaymentStatus,
  FulfillmentStatus,
  SortOrder,
  ProductType,
  V3ProductType,
  SingleEntityOpsRequestedFields,
  ProductOptionRenderType,
};

/** The request body each operation is held to, as the SDK types it. */
export const REQUESTS: Record<string, Shape> = {
  searchOrders: SEARCH_ORDERS_REQUEST,
  createFulfillment: CREATE_FULFILLMENT_REQUEST,
  createProduct: CREATE_PRODUCT_REQUEST,
  updateProduct: UPDATE_PRODUCT_REQUEST,
  addProductMedia: ADD_PRODUCT_MEDIA_REQUEST,
  createProductWithInventory: CREATE_PRODUCT_WITH_INVENTORY_REQUEST,
  updateProductV3: UPDATE_PRODUCT_V3_REQUEST,
  queryVariants: QUERY_VARIANTS_REQUEST,
};
/** The products each catalogue operation answers (`product`, `products[]`), as the SDK types them. */
export const PRODUCT_ANSWERS: Record<string, Shape> = {
  createProduct: V1_PRODUCT_ANSWER,
  updateProduct: V1_PRODUCT_ANSWER,
  queryProducts: V1_PRODUCT_ANSWER,
  createProductWithInventory: V3_PRODUCT,
  getProductV3: V3_PRODUCT,
  updateProductV3: V3_PRODUCT,
  queryProductsV3: V3_PRODUCT,
};
/** The body of each event's `actionEvent` as the SDK types it. */
export const ACTION_BODIES: Record<string, Shape> = {
  approved: { type: 'OrderApproved', fields: { order: ORDER } },
  payment_status_updated: {
    type: 'PaymentStatusUpdated',
    fields: { order: ORDER },
    oneOf: { previousPaymentStatus: 'PaymentStatus' },
  },
  canceled: { type: 'OrderCanceledEventOrderCanceled', fields: { order: ORDER } },
};

/** Where `value` leaves the shape: a field its interface does not declare, an enum value the SDK does not have. */
export function shapeViolations(value: unknown, shape: Shape, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => shapeViolations(v, shape, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  const keys = shape.type ? interfaceKeys(shape.type) : undefined;
  for (const [k, v] of Object.entries(value)) {
    const where = at ? `${at}.${k}` : k;
    if (keys && !keys.has(k) && !keys.has(`_${k}`)) out.push(`${where}: ${shape.type} has no field ${k}`);
    const enumName = shape.oneOf?.[k];
    for (const one of enumName && v !== null && v !== undefined ? [v].flat() : [])
      if (!Object.values(ENUMS[enumName!]!).includes(String(one)))
        out.push(`${where}: ${String(one)} is not a ${enumName}`);
    const child = shape.fields?.[k];
    if (child) out.push(...shapeViolations(v, child, where));
  }
  return out;
}

/** The SDK's method and path (on www.wixapis.com) of each REST method the connector calls. */
const METHODS = {
  searchOrders: ordersMeta.searchOrders(),
  getOrder: ordersMeta.getOrder(),
  createFulfillment: fulfillmentsMeta.createFulfillment(),
  listFulfillments: fulfillmentsMeta.listFulfillmentsForSingleOrder(),
  createProduct: productsMeta.createProduct(),
  updateProduct: productsMeta.updateProduct(),
  addProductMedia: productsMeta.addProductMedia(),
  getSiteProperties: sitePropertiesMeta.getSiteProperties(),
  getCatalogVersion: catalogVersioningMeta.getCatalogVersion(),
  createProductWithInventory: productsV3Meta.createProductWithInventory(),
  getProductV3: productsV3Meta.getProduct(),
  updateProductV3: productsV3Meta.updateProduct(),
  queryVariants: readOnlyVariantsMeta.queryVariants(),
};

/** Whether the SDK calls `operation` with this HTTP method and path (null: the packages do not describe it). */
export function routeViolation(operation: string, method: string, requestPath: string): string | null {
  const sdk = METHODS[operation as keyof typeof METHODS];
  if (!sdk) return null;
  const pattern = new RegExp(`^${sdk.getUrl({ host: 'www.wixapis.com' }).replace(/:\w+/g, '[^/]+')}$`);
  return sdk.httpMethod === method && pattern.test(requestPath)
    ? null
    : `${operation}: the SDK sends ${sdk.httpMethod} ${sdk.getUrl({ host: 'www.wixapis.com' })}, not ${method} ${requestPath}`;
}

/** The packages' order event types (`wix.ecom.v1.order_*`). */
export const ORDER_EVENT_TYPES: ReadonlySet<string> = new Set(
  readFileSync(require.resolve('@wix/auto_sdk_ecom_orders'), 'utf8').match(/wix\.ecom\.v1\.order_[a-z_]+/g) ?? [],
);
