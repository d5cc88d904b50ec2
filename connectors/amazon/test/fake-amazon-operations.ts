import { randomBytes } from 'node:crypto';
import type { FakeReply } from '@print-api/connector-kit/testing';
import type { FakeSeller } from './fake-amazon.ts';

// The Selling Partner API operations the fake answers, with Amazon's own checks: Orders v2026-01-01 searchOrders,
// Orders v0 confirmShipment and the Listings Items API's searchListingsItems. Each takes the seller the access token
// belongs to.

const CARRIERS = new Set([
  'USPS',
  'UPS',
  'FedEx',
  'DHL',
  'DHL eCommerce',
  'Royal Mail',
  'PostNL',
  'DPD',
  'GLS',
  'Deutsche Post',
  'Canada Post',
  'Other',
]);
const STATUSES = new Set([
  'PENDING_AVAILABILITY',
  'PENDING',
  'UNSHIPPED',
  'PARTIALLY_SHIPPED',
  'SHIPPED',
  'CANCELLED',
  'UNFULFILLABLE',
]);
const INCLUDED = new Set([
  'BUYER',
  'RECIPIENT',
  'PROCEEDS',
  'EXPENSE',
  'PROMOTION',
  'CANCELLATION',
  'FULFILLMENT',
  'PACKAGES',
  'TAX',
  'PAYMENT',
  'FULFILLMENT_ORDERS',
]);

export const errors = (code: string, message: string, details = '') => ({ errors: [{ code, message, details }] });
export const denied = (details: string): FakeReply => [
  403,
  errors('Unauthorized', 'Access to requested resource is denied.', details),
  { 'x-amzn-RequestId': randomBytes(8).toString('hex') },
];

/** Issued pagination tokens (bound to the parameters they were issued for) and a page size the test may force. */
export interface SearchPages {
  readonly tokens: Map<string, { params: string; offset: number; before: string }>;
  readonly pageSize: number | undefined;
}

/** Orders v2026-01-01 searchOrders: parameters validated, pages bound to identical parameters. */
export function searchOrders(seller: FakeSeller, q: URLSearchParams, pages: SearchPages): FakeReply {
  const invalid = (message: string): FakeReply => [400, errors('InvalidInput', message)];
  const token = q.get('paginationToken');
  const params = new URLSearchParams(
    [...q].filter(([k]) => k !== 'paginationToken' && k !== 'maxResultsPerPage' && k !== 'includedData').sort(),
  );
  const after = q.get('lastUpdatedAfter');
  if (!after === !q.get('createdAfter'))
    return invalid('Exactly one of createdAfter and lastUpdatedAfter must be given.');
  if (!after || !Number.isFinite(Date.parse(after))) return invalid('lastUpdatedAfter must be an ISO 8601 date time.');
  const statuses = (q.get('fulfillmentStatuses') ?? '').split(',').filter(Boolean);
  if (statuses.some((s) => !STATUSES.has(s)))
    return invalid(`Invalid fulfillmentStatuses: ${q.get('fulfillmentStatuses')}`);
  const by = q.get('fulfilledBy');
  if (by && by !== 'MERCHANT' && by !== 'AMAZON') return invalid(`Invalid fulfilledBy: ${by}`);
  const marketplaces = (q.get('marketplaceIds') ?? '').split(',').filter(Boolean);
  if (marketplaces.length > 50) return invalid('At most 50 marketplaceIds.');
  if (
    (q.get('includedData') ?? '')
      .split(',')
      .filter(Boolean)
      .some((d) => !INCLUDED.has(d))
  )
    return invalid(`Invalid includedData: ${q.get('includedData')}`);
  const size = Number(q.get('maxResultsPerPage') ?? 100);
  if (!Number.isInteger(size) || size < 1 || size > 100) return invalid('maxResultsPerPage must be between 1 and 100.');
  let offset = 0;
  let before = new Date().toISOString();
  if (token) {
    const held = pages.tokens.get(token);
    if (!held || held.params !== params.toString())
      return invalid('The paginationToken is invalid, expired or was issued for other parameters.');
    offset = held.offset;
    before = held.before;
  }
  const matching = [...seller.orders.values()]
    .filter((o) => o.lastUpdatedTime >= new Date(after).toISOString() && o.lastUpdatedTime <= before)
    .filter((o) => statuses.length === 0 || statuses.includes(o.fulfillment.fulfillmentStatus))
    .filter((o) => !by || o.fulfillment.fulfilledBy === by)
    .filter((o) => marketplaces.length === 0 || marketplaces.includes(o.salesChannel.marketplaceId))
    .sort((a, b) => a.lastUpdatedTime.localeCompare(b.lastUpdatedTime) || a.orderId.localeCompare(b.orderId));
  const limit = Math.min(size, pages.pageSize ?? size);
  const page = matching.slice(offset, offset + limit);
  const body: Record<string, unknown> = {
    orders: page,
    ...(seller.omitLastUpdatedBefore ? {} : { lastUpdatedBefore: before }),
  };
  if (offset + limit < matching.length) {
    const next = randomBytes(12).toString('base64url');
    pages.tokens.set(next, { params: params.toString(), offset: offset + limit, before });
    body.pagination = { nextToken: next };
  }
  const seen = seller.seen('searchOrders').at(-1);
  if (seen && !seller.omitLastUpdatedBefore) seen.lastUpdatedBefore = before;
  return [200, body, { 'x-amzn-RateLimit-Limit': '0.0056' }];
}

/**
 * Orders v0 confirmShipment: packageReferenceId a positive number in a JSON string, carrierCode of the list or Other
 * with carrierName, known order items within their quantity; the order moves on as Amazon moves it.
 */
export function confirmShipment(seller: FakeSeller, orderId: string, text: string): FakeReply {
  const invalid = (message: string): FakeReply => [400, errors('InvalidInput', message)];
  const order = seller.orders.get(orderId);
  if (!order) return [404, errors('NotFound', `Order ${orderId} not found.`)];
  const body = safeJson(text) as { marketplaceId?: unknown; packageDetail?: Record<string, unknown> } | undefined;
  const p = body?.packageDetail;
  if (!body || typeof body.marketplaceId !== 'string' || !p)
    return invalid('marketplaceId and packageDetail are required.');
  if (body.marketplaceId !== order.salesChannel.marketplaceId)
    return invalid(`The order is not in marketplace ${body.marketplaceId}.`);
  if (typeof p.packageReferenceId !== 'string')
    return invalid('The request has an invalid type [packageDetail.packageReferenceId].');
  if (!/^[1-9]\d*$/.test(p.packageReferenceId))
    return invalid('PackageReferenceId: is invalid, must be a positive numeric value.');
  if (typeof p.carrierCode !== 'string' || !CARRIERS.has(p.carrierCode))
    return invalid(`Invalid carrierCode ${String(p.carrierCode)}.`);
  if (p.carrierCode === 'Other' && (typeof p.carrierName !== 'string' || !p.carrierName))
    return invalid('carrierName is required when carrierCode is Other.');
  if (typeof p.trackingNumber !== 'string' || !p.trackingNumber) return invalid('trackingNumber is required.');
  if (typeof p.shipDate !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(p.shipDate))
    return [400, errors('Invalid Input', 'Invalid Input')];
  if (!Array.isArray(p.orderItems) || p.orderItems.length === 0)
    return invalid('OrderItemId is invalid: orderItems must be a non-empty array.');
  for (const item of p.orderItems as Array<{ orderItemId?: unknown; quantity?: unknown }>) {
    const own = order.orderItems.find((i) => i.orderItemId === item.orderItemId);
    if (!own) return invalid(`OrderItemId ${String(item.orderItemId)} is invalid.`);
    const shipped = order.packages
      .flatMap((pk) => (pk.orderItems as Array<{ orderItemId: string; quantity: number }>) ?? [])
      .filter((i) => i.orderItemId === own.orderItemId)
      .reduce((n, i) => n + i.quantity, 0);
    if (
      typeof item.quantity !== 'number' ||
      !Number.isInteger(item.quantity) ||
      item.quantity < 1 ||
      item.quantity + shipped > own.quantityOrdered
    )
      return invalid(`Quantity of ${own.orderItemId} is invalid.`);
  }
  if (order.packages.some((pk) => pk.packageReferenceId === p.packageReferenceId))
    return invalid('Failed to create package due to a duplicate packageReferenceId.');
  for (const item of p.orderItems as Array<{ orderItemId: string; quantity: number }>) {
    const own = order.orderItems.find((i) => i.orderItemId === item.orderItemId)!;
    own.fulfillment = {
      quantityFulfilled: own.fulfillment.quantityFulfilled + item.quantity,
      quantityUnfulfilled: own.fulfillment.quantityUnfulfilled - item.quantity,
    };
  }
  // The order moves on as Amazon moves it: shipped once nothing awaits, else partly.
  order.fulfillment.fulfillmentStatus = order.orderItems.every((i) => i.fulfillment.quantityUnfulfilled === 0)
    ? 'SHIPPED'
    : 'PARTIALLY_SHIPPED';
  order.lastUpdatedTime = seller.stamp();
  order.packages.push({
    packageReferenceId: p.packageReferenceId,
    carrier: p.carrierCode === 'Other' ? p.carrierName : p.carrierCode,
    carrierCode: p.carrierCode,
    trackingNumber: p.trackingNumber,
    shipDate: p.shipDate,
    orderItems: p.orderItems,
  });
  return [204, undefined, { 'x-amzn-RateLimit-Limit': '2.0', 'x-amzn-RequestId': randomBytes(8).toString('hex') }];
}

/** The Listings Items API's searchListingsItems, for the seller the token belongs to. */
export function searchListingsItems(seller: FakeSeller, sellerId: string, q: URLSearchParams): FakeReply {
  if (sellerId !== seller.id) return denied('The seller id does not match the access token.');
  const marketplace = q.get('marketplaceIds');
  if (!marketplace) return [400, errors('InvalidInput', 'marketplaceIds is required.')];
  const size = Number(q.get('pageSize') ?? 10);
  if (!Number.isInteger(size) || size < 1 || size > 20)
    return [400, errors('InvalidInput', 'pageSize must be between 1 and 20.')];
  const start = Number(q.get('pageToken') ? Buffer.from(q.get('pageToken')!, 'base64url').toString() : '0');
  const items = seller.listings.slice(start, start + size).map((l) => ({
    sku: l.sku,
    summaries: [
      {
        marketplaceId: marketplace,
        asin: l.asin,
        productType: 'POSTER',
        conditionType: 'new_new',
        status: l.status,
        itemName: l.itemName,
        createdDate: '2026-01-01T00:00:00Z',
        lastUpdatedDate: '2026-01-01T00:00:00Z',
      },
    ],
  }));
  return [
    200,
    {
      numberOfResults: seller.listings.length,
      items,
      ...(start + size < seller.listings.length
        ? { pagination: { nextToken: Buffer.from(String(start + size)).toString('base64url') } }
        : {}),
    },
  ];
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
