import { randomBytes } from 'node:crypto';
import type { FakeReply } from '@print-api/connector-kit/testing';
import { ebayErrors, type FakeSeller, type Json } from './fake-ebay.ts';

/** What the fake's seller answers each operation of the Sell APIs (the request already held to its contract). */
export function answerFor(
  seller: FakeSeller,
  op: string,
  path: string,
  q: URLSearchParams,
  rawQuery: string,
  body: any,
): FakeReply {
  const id = decodeURIComponent(path.split('/')[2] ?? '');
  const inventoryError = (errorId: number, message: string, status = 400): FakeReply => [
    status,
    ebayErrors(errorId, message, 'REQUEST', 'API_INVENTORY'),
  ];
  switch (op) {
    case 'getUser':
      return [
        200,
        {
          userId: seller.userId,
          username: seller.username,
          accountType: 'BUSINESS',
          registrationMarketplaceId: seller.marketplaceId,
          status: 'CONFIRMED',
        },
      ];
    case 'getOrders':
      return searchOrders(seller, q, rawQuery);
    case 'getOrder': {
      const order = seller.orders.get(id);
      return order ? [200, order] : [404, ebayErrors(32100, `Order ${id} not found.`)];
    }
    case 'getShippingFulfillments':
      return seller.orders.has(id)
        ? [200, { fulfillments: seller.fulfillments.get(id) ?? [], total: (seller.fulfillments.get(id) ?? []).length }]
        : [404, ebayErrors(32100, `Order ${id} not found.`)];
    case 'createShippingFulfillment':
      return ship(seller, id, body);
    case 'getInventoryItems': {
      const limit = Number(q.get('limit') ?? 25);
      const offset = Number(q.get('offset') ?? 0);
      if (!(limit >= 1 && limit <= 200)) return inventoryError(25706, 'The limit must be between 1 and 200.');
      const all = [...seller.items.values()];
      return [
        200,
        {
          total: all.length,
          size: Math.min(limit, all.length - offset),
          limit,
          inventoryItems: all.slice(offset, offset + limit),
          ...(offset + limit < all.length
            ? { next: `/sell/inventory/v1/inventory_item?limit=${limit}&offset=${offset + limit}` }
            : {}),
        },
      ];
    }
    case 'getInventoryItem': {
      const item = seller.items.get(id);
      return item ? [200, item] : inventoryError(25702, `The SKU ${id} is not available in the system.`, 404);
    }
    case 'createOrReplaceInventoryItem': {
      if (!body?.product?.title || !body?.condition || !body?.availability)
        return inventoryError(25002, 'The product title, condition and availability are required.');
      const created = !seller.items.has(id);
      seller.items.set(id, { sku: id, locale: 'de_DE', ...body });
      return [created ? 201 : 204, undefined];
    }
    case 'getOffers': {
      const offers = [...seller.offers.values()].filter(
        (o) => o.sku === q.get('sku') && (!q.get('marketplace_id') || o.marketplaceId === q.get('marketplace_id')),
      );
      return offers.length
        ? [200, { total: offers.length, offers }]
        : inventoryError(25713, 'This Offer is not available.', 404);
    }
    case 'createOffer': {
      for (const field of ['sku', 'marketplaceId', 'format'])
        if (!body?.[field]) return inventoryError(25709, `${field} is required.`);
      if (!seller.items.has(body.sku))
        return inventoryError(25702, `The SKU ${body.sku} is not available in the system.`);
      if ([...seller.offers.values()].some((o) => o.sku === body.sku && o.marketplaceId === body.marketplaceId))
        return inventoryError(25002, 'Offer entity already exists.');
      const offerId = String(5_000_000_000 + seller.offers.size);
      seller.offers.set(offerId, { ...body, offerId, status: 'UNPUBLISHED' });
      return [201, { offerId }];
    }
    case 'getOffer': {
      const offer = seller.offers.get(id);
      return offer ? [200, offer] : inventoryError(25713, 'This Offer is not available.', 404);
    }
    case 'updateOffer': {
      const offer = seller.offers.get(id);
      if (!offer) return inventoryError(25713, 'This Offer is not available.', 404);
      seller.offers.set(id, {
        ...body,
        offerId: id,
        sku: offer.sku,
        marketplaceId: offer.marketplaceId,
        format: offer.format,
        status: offer.status,
        ...(offer.listing ? { listing: offer.listing } : {}),
      });
      return [200, { offerId: id }];
    }
    case 'publishOffer': {
      const offer = seller.offers.get(id);
      if (!offer) return inventoryError(25713, 'This Offer is not available.', 404);
      const item = seller.items.get(offer.sku);
      const policies = offer.listingPolicies ?? {};
      if (!item?.product?.imageUrls?.length)
        return inventoryError(25002, 'A user error has occurred. At least 1 picture is required.');
      if (!offer.categoryId || !offer.merchantLocationKey || !offer.pricingSummary?.price)
        return inventoryError(25002, 'Missing category, location or price.');
      if (
        policies.fulfillmentPolicyId !== seller.policies.fulfillment[0]!.fulfillmentPolicyId ||
        policies.paymentPolicyId !== seller.policies.payment[0]!.paymentPolicyId ||
        policies.returnPolicyId !== seller.policies.return[0]!.returnPolicyId
      )
        return inventoryError(25007, 'Invalid or missing business policies.');
      const listingId = offer.listing?.listingId ?? String(110_000_000_000 + seller.offers.size);
      seller.offers.set(id, { ...offer, status: 'PUBLISHED', listing: { listingId, listingStatus: 'ACTIVE' } });
      return [200, { listingId }];
    }
    case 'withdrawOffer': {
      const offer = seller.offers.get(id);
      if (!offer || offer.status !== 'PUBLISHED') return inventoryError(25713, 'This Offer is not available.', 404);
      seller.offers.set(id, { ...offer, status: 'UNPUBLISHED', listing: { ...offer.listing, listingStatus: 'ENDED' } });
      return [200, { listingId: offer.listing.listingId }];
    }
    case 'getInventoryLocations':
      return [200, { total: seller.locations.length, locations: seller.locations }];
    case 'getFulfillmentPolicies':
    case 'getPaymentPolicies':
    case 'getReturnPolicies': {
      if (q.get('marketplace_id') !== seller.marketplaceId) return [200, { total: 0 }];
      const kind = op === 'getFulfillmentPolicies' ? 'fulfillment' : op === 'getPaymentPolicies' ? 'payment' : 'return';
      return [200, { total: seller.policies[kind].length, [`${kind}Policies`]: seller.policies[kind] }];
    }
  }
  return [404, ebayErrors(2002, `No fake for ${op}`)];
}

const FILTER =
  /^lastmodifieddate:\[(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)\.\.(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)?\]$/;

/** getOrders: the filter's brackets must come percent-encoded (as the document requires), then it is parsed. */
function searchOrders(seller: FakeSeller, q: URLSearchParams, rawQuery: string): FakeReply {
  const rawFilter = rawQuery.split('&').find((p) => p.startsWith('filter='));
  if (rawFilter && /[[\]]/.test(rawFilter))
    return [400, ebayErrors(30700, 'The filter is invalid: [ and ] must be percent-encoded (%5B, %5D).')];
  const filter = q.get('filter');
  const m = filter ? FILTER.exec(filter) : null;
  if (filter && !m) return [400, ebayErrors(30700, `The filter ${filter} is invalid.`)];
  const limit = Number(q.get('limit') ?? 50);
  const offset = Number(q.get('offset') ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    return [400, ebayErrors(30810, 'The limit must be between 1 and 200.')];
  const all = [...seller.orders.values()]
    .filter((o) => !m || (o.lastModifiedDate >= m[1]! && (!m[2] || o.lastModifiedDate <= m[2])))
    .sort((a, b) => b.creationDate.localeCompare(a.creationDate) || a.orderId.localeCompare(b.orderId));
  const page = all.slice(offset, offset + limit);
  return [
    200,
    {
      href: `/sell/fulfillment/v1/order?${rawQuery}`,
      total: all.length,
      limit,
      offset,
      orders: page,
      ...(offset + limit < all.length
        ? { next: `/sell/fulfillment/v1/order?limit=${limit}&offset=${offset + limit}` }
        : {}),
    },
  ];
}

function ship(seller: FakeSeller, orderId: string, body: any): FakeReply {
  const order = seller.orders.get(orderId);
  if (!order) return [404, ebayErrors(32100, `Order ${orderId} not found.`)];
  if (!body?.trackingNumber || !body?.shippingCarrierCode)
    return [400, ebayErrors(32400, 'The tracking number and the carrier code are required.')];
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(body.shippedDate ?? ''))
    return [400, ebayErrors(32400, 'The shippedDate is invalid.')];
  if (!Array.isArray(body.lineItems) || body.lineItems.length === 0)
    return [400, ebayErrors(32400, 'lineItems is required.')];
  for (const l of body.lineItems) {
    const line = order.lineItems.find((x: Json) => x.lineItemId === l.lineItemId);
    if (!line || !(l.quantity >= 1 && l.quantity <= line.quantity))
      return [400, ebayErrors(32400, `The line item ${l.lineItemId} is invalid.`)];
  }
  const fulfillmentId = randomBytes(8).toString('hex').toUpperCase();
  const held = seller.fulfillments.get(orderId) ?? [];
  held.push({
    fulfillmentId,
    lineItems: body.lineItems,
    shipmentTrackingNumber: body.trackingNumber,
    shippedDate: body.shippedDate,
    shippingCarrierCode: body.shippingCarrierCode,
  });
  seller.fulfillments.set(orderId, held);
  order.orderFulfillmentStatus = 'FULFILLED';
  order.lastModifiedDate = seller.stamp();
  return [
    201,
    '',
    { location: `https://api.ebay.com/sell/fulfillment/v1/order/${orderId}/shipping_fulfillment/${fulfillmentId}` },
  ];
}
