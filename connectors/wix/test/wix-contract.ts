import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FulfillmentStatus, OrderStatus, PaymentStatusEnumPaymentStatus, SortOrder } from '@wix/auto_sdk_ecom_orders';
import * as ordersMeta from '@wix/auto_sdk_ecom_orders/meta';
import * as fulfillmentsMeta from '@wix/auto_sdk_ecom_order-fulfillments/meta';
import { ProductType } from '@wix/auto_sdk_stores_products';
import * as productsMeta from '@wix/auto_sdk_stores_products/meta';
import * as sitePropertiesMeta from '@wix/auto_sdk_business-tools_site-properties/meta';

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
 * ones: `Product`, `Media`, `Address`): Wix Stores Catalog V1 (`stores:`) and the site's
 * properties (`site:`, `@wix/auto_sdk_business-tools_site-properties`).
 */
const PREFIXED: Record<string, string> = {
  stores: declarations('@wix/auto_sdk_stores_products'),
  site: declarations('@wix/auto_sdk_business-tools_site-properties'),
};
const keysCache = new Map<string, Set<string>>();

/** The property names of a declared interface, its `extends` included (`stores:Product`: the Catalog V1 package's). */
export function interfaceKeys(name: string): Set<string> {
  const cached = keysCache.get(name);
  if (cached) return cached;
  const [, prefix, bare] = /^(?:(\w+):)?(\w+)$/.exec(name)!;
  const source = prefix ? PREFIXED[prefix]! : DTS;
  const m = new RegExp(`^interface ${bare}(?: extends ([\\w, ]+))? \\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(source);
  if (!m) throw new Error(`the Wix SDK declares no interface ${name}`);
  const keys = new Set([...m[2]!.matchAll(/^ {4}(\w+)\??:/gm)].map((k) => k[1]!));
  for (const parent of (m[1] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean))
    for (const k of interfaceKeys(prefix ? `${prefix}:${parent}` : parent)) keys.add(k);
  keysCache.set(name, keys);
  return keys;
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
    if (enumName && v !== null && v !== undefined && !Object.values(ENUMS[enumName]!).includes(String(v)))
      out.push(`${where}: ${String(v)} is not a ${enumName}`);
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
