import { randomUUID } from 'node:crypto';
import type { FakeReply, OrderSpec } from '@print-api/connector-kit/testing';
import orderFixture from './fixtures/order.json' with { type: 'json' };

/** Wix's eCommerce order API as the fake site answers it: search, get, fulfillments (list, create with Wix's checks). */

export type WixOrderJson = Omit<typeof orderFixture, 'shippingInfo'> & { shippingInfo: unknown };

/** A fulfillment as the site keeps it (Create Fulfillment's answer). */
export interface WixFulfillment {
  id: string;
  lineItems: Array<{ id: string; quantity: number }>;
  trackingInfo: Record<string, unknown>;
}

/** The part of a site the order API reads and writes. */
export interface OrderSite {
  readonly orders: Map<string, WixOrderJson>;
  readonly fulfillments: Map<string, WixFulfillment[]>;
}

export type OrdersRoute = {
  operation: string;
  id: string;
  handle: (site: OrderSite, body: any, id: string) => FakeReply;
};

/** The order webhooks' event types, by what happened to the order. */
export const ORDER_WEBHOOKS = {
  created: 'wix.ecom.v1.order_approved',
  paid: 'wix.ecom.v1.order_payment_status_updated',
  updated: 'wix.ecom.v1.order_updated',
  cancelled: 'wix.ecom.v1.order_canceled',
} as const;

/** The shipping providers Wix knows; any other needs a tracking link. */
const KNOWN = new Set(['fedex', 'ups', 'usps', 'dhl', 'canadaPost']);

export const wixError = (status: number, message: string, code: string): FakeReply => [
  status,
  { message, details: { applicationError: { code, description: message, data: {} } } },
];

/** The order API's operation for a method and path, or null when it is not one of the order API's. */
export function ordersRoute(method: string, path: string): OrdersRoute | null {
  if (method === 'POST' && path === '/ecom/v1/orders/search')
    return { operation: 'searchOrders', id: '', handle: (s, b) => searchOrders(s, b) };
  let m = /^\/ecom\/v1\/orders\/([^/]+)$/.exec(path);
  if (method === 'GET' && m)
    return {
      operation: 'getOrder',
      id: decodeURIComponent(m[1]!),
      handle: (s, _b, id) =>
        s.orders.has(id) ? [200, { order: s.orders.get(id) }] : wixError(404, 'Order not found', 'ORDER_NOT_FOUND'),
    };
  m = /^\/ecom\/v1\/fulfillments\/orders\/([^/]+)$/.exec(path);
  if (method === 'GET' && m)
    return {
      operation: 'listFulfillments',
      id: decodeURIComponent(m[1]!),
      handle: (s, _b, id) =>
        s.orders.has(id)
          ? [200, { orderWithFulfillments: { orderId: id, fulfillments: s.fulfillments.get(id) ?? [] } }]
          : wixError(404, 'Order not found', 'ORDER_NOT_FOUND'),
    };
  m = /^\/ecom\/v1\/fulfillments\/orders\/([^/]+)\/create-fulfillment$/.exec(path);
  if (method === 'POST' && m)
    return {
      operation: 'createFulfillment',
      id: decodeURIComponent(m[1]!),
      handle: (s, b, id) => createFulfillment(s, id, b),
    };
  return null;
}

/**
 * Wix's search: the first page's filter (`updatedDate.$gte`) and sort; later pages by cursor only (Wix refuses both).
 */
function searchOrders(site: OrderSite, body: any): FakeReply {
  const search = body?.search ?? {};
  const limit = Math.min(Number(search.cursorPaging?.limit ?? 100), 100);
  let since: string;
  let offset = 0;
  if (search.cursorPaging?.cursor) {
    if (search.filter || search.sort)
      return wixError(400, 'filter and sort cannot be passed with a cursor', 'INVALID_ARGUMENT');
    const c = JSON.parse(Buffer.from(String(search.cursorPaging.cursor), 'base64url').toString()) as {
      since: string;
      offset: number;
    };
    since = c.since;
    offset = c.offset;
  } else {
    since = search.filter?.updatedDate?.$gte ?? '1970-01-01T00:00:00.000Z';
    if (search.filter?.status?.$ne !== 'INITIALIZED')
      return wixError(400, 'expected the filter to leave out INITIALIZED orders', 'INVALID_ARGUMENT');
    if (JSON.stringify(search.sort ?? []) !== JSON.stringify([{ fieldName: 'updatedDate', order: 'ASC' }]))
      return wixError(400, 'expected sort updatedDate ASC', 'INVALID_ARGUMENT');
  }
  const all = [...site.orders.values()]
    .filter((o) => Date.parse(o.updatedDate) >= Date.parse(since))
    .sort((a, b) => Date.parse(a.updatedDate) - Date.parse(b.updatedDate) || a.id.localeCompare(b.id));
  const orders = all.slice(offset, offset + limit);
  const hasNext = offset + limit < all.length;
  const next = hasNext ? Buffer.from(JSON.stringify({ since, offset: offset + limit })).toString('base64url') : null;
  return [200, { orders, metadata: { count: orders.length, cursors: { next, prev: null }, hasNext } }];
}

/**
 * Create Fulfillment with Wix's checks: known line ids, quantities within what is unfulfilled, a tracking link for
 * custom providers.
 */
function createFulfillment(site: OrderSite, orderId: string, body: any): FakeReply {
  const order = site.orders.get(orderId);
  if (!order) return wixError(404, 'Order not found', 'ORDER_NOT_FOUND');
  const f = body?.fulfillment;
  const tracking = f?.trackingInfo ?? {};
  if (
    typeof tracking.trackingNumber !== 'string' ||
    tracking.trackingNumber.length < 1 ||
    tracking.trackingNumber.length > 100
  )
    return [
      400,
      {
        message: 'invalid trackingNumber',
        details: {
          validationError: {
            fieldViolations: [
              { field: 'fulfillment.trackingInfo.trackingNumber', description: 'must be 1-100 characters' },
            ],
          },
        },
      },
    ];
  if (!KNOWN.has(tracking.shippingProvider) && !tracking.trackingLink)
    return [
      400,
      {
        message: 'trackingLink is required for a custom shipping provider',
        details: {
          validationError: {
            fieldViolations: [{ field: 'fulfillment.trackingInfo.trackingLink', description: 'required' }],
          },
        },
      },
    ];
  const done = site.fulfillments.get(orderId) ?? [];
  const fulfilled = new Map<string, number>();
  for (const x of done) for (const l of x.lineItems) fulfilled.set(l.id, (fulfilled.get(l.id) ?? 0) + l.quantity);
  for (const l of f.lineItems ?? []) {
    const line = order.lineItems.find((i) => i.id === l.id);
    if (!line) return wixError(400, `Line item ${l.id} not found`, 'LINE_ITEM_NOT_FOUND');
    if (l.quantity > line.quantity - (fulfilled.get(l.id) ?? 0))
      return wixError(400, 'Quantity exceeds the unfulfilled quantity', 'FULFILLMENT_QUANTITY_EXCEEDED');
  }
  const fulfillment = {
    id: randomUUID(),
    createdDate: new Date().toISOString(),
    lineItems: f.lineItems,
    trackingInfo: tracking,
  };
  done.push(fulfillment);
  site.fulfillments.set(orderId, done);
  return [200, { orderWithFulfillments: { orderId, fulfillments: done }, fulfillmentId: fulfillment.id }];
}

/**
 * The documented order with the spec's facts: id, status and payment, update time, lines (each a line item with its
 * SKU).
 */
export function wixOrderOf(spec: OrderSpec & { id: string }): WixOrderJson {
  const base = structuredClone(orderFixture) as WixOrderJson;
  const updated = spec.updatedAt ?? new Date().toISOString();
  const line = base.lineItems[0]!;
  return {
    ...base,
    id: spec.id,
    number: String(10000 + (parseInt(spec.id.replace(/[^0-9]/g, '').slice(0, 4) || '0', 10) % 9000)),
    createdDate: spec.updatedAt ? new Date(Date.parse(spec.updatedAt) - 60_000).toISOString() : updated,
    updatedDate: updated,
    // Print API ships within Europe: the fixture's address, moved to Amsterdam.
    shippingInfo: {
      title: 'Standard',
      logistics: {
        shippingDestination: {
          address: {
            country: 'NL',
            city: 'Amsterdam',
            postalCode: '1015 CS',
            addressLine1: 'Keizersgracht 12',
            addressLine2: '3e verdieping',
          },
          contactDetails: { firstName: 'Ada', lastName: 'Lovelace', phone: '+31 20 555 0100', company: null },
        },
      },
    },
    status: spec.cancelled ? 'CANCELED' : 'APPROVED',
    paymentStatus: spec.paid ? 'PAID' : 'NOT_PAID',
    lineItems: spec.lines.map((l, i) => ({
      ...line,
      id: `00000000-0000-0000-0000-${String(i + 1).padStart(12, '0')}`,
      quantity: l.quantity,
      physicalProperties: { ...line.physicalProperties, sku: l.sku as string },
    })),
  };
}
