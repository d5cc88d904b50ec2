import type { StoreOrder, StoreOrderLine, StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';

/** `ReducedOrderItem` of `GET /retailer/orders` (Retailer API v10), the fields we read. */
const reducedItemSchema = z.object({
  orderItemId: z.string(),
  fulfilmentMethod: z.string(),
  fulfilmentStatus: z.string(),
  quantity: z.number().int(),
  quantityShipped: z.number().int(),
  quantityCancelled: z.number().int(),
  cancellationRequest: z.boolean(),
  latestChangedDateTime: z.string(),
});

/** `ReducedOrders`: one page of orders (50 at most), each with its items' state. */
export const reducedOrdersSchema = z.object({
  orders: z
    .array(z.object({ orderId: z.string(), orderPlacedDateTime: z.string(), orderItems: z.array(reducedItemSchema) }))
    .default([]),
});
export type ReducedOrder = z.infer<typeof reducedOrdersSchema>['orders'][number];

/** `ShipmentDetails`: where the order goes (split street, house number and extension). */
const shipmentDetailsSchema = z.object({
  pickupPointName: z.string().optional(),
  firstName: z.string(),
  surname: z.string(),
  streetName: z.string(),
  houseNumber: z.string(),
  houseNumberExtension: z.string().optional(),
  extraAddressInformation: z.string().optional(),
  zipCode: z.string(),
  city: z.string(),
  countryCode: z.string(),
  email: z.string().optional(),
  company: z.string().optional(),
  deliveryPhoneNumber: z.string().optional(),
});

/** `Order` of `GET /retailer/orders/{order-id}`: the fields we read. */
export const orderSchema = z.object({
  orderId: z.string(),
  pickupPoint: z.boolean(),
  orderPlacedDateTime: z.string().optional(),
  shipmentDetails: shipmentDetailsSchema,
  orderItems: z.array(
    z.object({
      orderItemId: z.string(),
      cancellationRequest: z.boolean(),
      fulfilment: z.object({ method: z.string() }).optional(),
      offer: z.object({ offerId: z.string().optional(), reference: z.string().optional() }).optional(),
      product: z.object({ ean: z.string(), title: z.string() }).optional(),
      quantity: z.number().int(),
      quantityShipped: z.number().int(),
      quantityCancelled: z.number().int(),
      latestChangedDateTime: z.string(),
    }),
  ),
});
export type BolOrder = z.infer<typeof orderSchema>;
export type BolOrderItem = BolOrder['orderItems'][number];

/** Fulfilled by bol from its own stock: never ours to print. */
export const isFbb = (item: BolOrderItem) => item.fulfilment?.method === 'FBB';
/** What of an item the customer still awaits (neither shipped nor cancelled). */
export const openQuantity = (item: BolOrderItem) =>
  Math.max(0, item.quantity - item.quantityShipped - item.quantityCancelled);
/** Nothing of it is to be shipped any more: cancelled, or the customer asked to cancel it. */
const withdrawn = (item: BolOrderItem) => item.cancellationRequest || item.quantityCancelled >= item.quantity;

/** The seller's own reference of the offer: the reseller's SKU, how its lines match (empty: not a print item). */
export const reference = (item: BolOrderItem) => item.offer?.reference?.trim() || null;

/**
 * A Belgian postcode's province (ISO 3166-2:BE, without the country prefix), from bpost's postcode ranges: bol sends
 * no province. Dutch addresses carry none (a Dutch carrier needs only postcode and house number).
 */
export function belgianProvince(zipCode: string): string | undefined {
  const n = Number(zipCode.trim());
  if (!/^\d{4}$/.test(zipCode.trim())) return undefined;
  const ranges: Array<[number, string]> = [
    [1299, 'BRU'],
    [1499, 'WBR'],
    [1999, 'VBR'],
    [2999, 'VAN'],
    [3499, 'VBR'],
    [3999, 'VLI'],
    [4999, 'WLG'],
    [5999, 'WNA'],
    [6599, 'WHT'],
    [6999, 'WLX'],
    [7999, 'WHT'],
    [8999, 'VWV'],
    [9999, 'VOV'],
  ];
  return n >= 1000 ? ranges.find(([upTo]) => n <= upTo)?.[1] : undefined;
}

/** "Street number extension" as a Dutch or Belgian carrier prints it: `Kerkstraat 12 A`. */
export function streetLine(d: { streetName: string; houseNumber: string; houseNumberExtension?: string | undefined }) {
  return [d.streetName, d.houseNumber, d.houseNumberExtension]
    .map((p) => p?.trim())
    .filter(Boolean)
    .join(' ');
}

function recipientOf(order: BolOrder): StoreRecipient {
  const d = order.shipmentDetails;
  const country = d.countryCode.trim().toUpperCase();
  const address2 = [order.pickupPoint ? d.pickupPointName : undefined, d.extraAddressInformation]
    .map((p) => p?.trim())
    .filter(Boolean)
    .join(', ');
  const state = country === 'BE' ? belgianProvince(d.zipCode) : undefined;
  return {
    name: `${d.firstName} ${d.surname}`.trim(),
    ...(d.company?.trim() ? { company: d.company.trim() } : {}),
    ...(d.email ? { email: d.email } : {}),
    ...(d.deliveryPhoneNumber ? { phone: d.deliveryPhoneNumber } : {}),
    address1: streetLine(d),
    ...(address2 ? { address2 } : {}),
    postalCode: d.zipCode.trim(),
    city: d.city.trim(),
    ...(state ? { state } : {}),
    country,
  };
}

function lineOf(item: BolOrderItem): StoreOrderLine {
  const why = isFbb(item)
    ? 'fulfilled by bol'
    : item.cancellationRequest
      ? 'cancellation requested'
      : item.quantityCancelled >= item.quantity
        ? 'cancelled'
        : null;
  const title = item.product?.title;
  return {
    externalLineId: item.orderItemId,
    // A line bol ships, or one the customer cancelled, is never printed: it keeps no SKU.
    sku: why ? null : reference(item),
    quantity: why ? item.quantity : Math.max(1, item.quantity - item.quantityCancelled),
    ...(title || why ? { title: why ? `${title ?? item.orderItemId} (${why})` : title } : {}),
    externalProductId: item.product?.ean ?? null,
    externalVariantId: item.offer?.offerId ?? null,
  };
}

/**
 * A bol order as the pipeline takes it. bol hands an order to the seller once it is paid, so it is paid; it is
 * cancelled once every item it holds for the seller is withdrawn (cancelled, or its cancellation requested by the
 * customer); an order bol ships entirely itself (FBB) is not ours to print.
 */
export function toStoreOrder(order: BolOrder): StoreOrder {
  const items = order.orderItems;
  const own = items.filter((i) => !isFbb(i));
  const stamps = items.map((i) => i.latestChangedDateTime).filter((t) => Number.isFinite(Date.parse(t)));
  const updatedAt = stamps.sort((a, b) => Date.parse(a) - Date.parse(b)).at(-1) ?? order.orderPlacedDateTime;
  const createdAt = order.orderPlacedDateTime ?? updatedAt ?? new Date(0).toISOString();
  return {
    externalId: order.orderId,
    name: order.orderId,
    paid: true,
    cancelled: own.length > 0 && own.every(withdrawn),
    createdAt,
    updatedAt: updatedAt ?? createdAt,
    lines: items.map(lineOf),
    recipient: recipientOf(order),
    ...(items.length > 0 && own.length === 0
      ? { notForPrint: 'bol fulfils this order from its own stock (FBB): nothing of it is printed' }
      : {}),
  };
}
