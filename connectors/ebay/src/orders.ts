import { parsePayload, TimeWindowCursor, type StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';
import { FIRST_POLL_LOOKBACK_MS, ORDERS_PAGE, POLL_OVERLAP_MS } from './config.ts';
import type { EbayClient } from './ebay-client.ts';

const text = z.string().nullish();
const fields = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((n) => [n, text])) as Record<K, typeof text>);
const address = fields('addressLine1', 'addressLine2', 'city', 'stateOrProvince', 'postalCode', 'countryCode');
const shipTo = fields('fullName', 'companyName', 'email').extend({
  primaryPhone: fields('phoneNumber').nullish(),
  contactAddress: address.nullish(),
});
/** The fields of the Fulfillment API's `Order` we read (names and types as the vendored contract has them). */
export const orderSchema = z.object({
  orderId: z.string().min(1),
  creationDate: z.string(),
  lastModifiedDate: z.string(),
  orderPaymentStatus: text,
  cancelStatus: fields('cancelState').nullish(),
  fulfillmentStartInstructions: z
    .array(z.object({ shippingStep: z.object({ shipTo: shipTo.nullish() }).nullish() }))
    .nullish(),
  lineItems: z.array(fields('sku', 'title').extend({ lineItemId: z.string(), quantity: z.number().int() })),
});
export type EbayOrder = z.infer<typeof orderSchema>;
const ordersPage = z.object({ orders: z.array(orderSchema).nullish(), total: z.number().nullish(), next: text });

const clean = (s: string | null | undefined) => s?.trim() || undefined;

/**
 * An eBay order as the pipeline knows orders: placed once `orderPaymentStatus` is PAID; never printed once cancelled
 * (`cancelState` CANCELED), nor while a cancellation is requested (IN_PROGRESS: held as not paid until the seller
 * decides). Lines by `sku`; the recipient from the first fulfilment instruction's shipping step.
 */
export function toStoreOrder(o: EbayOrder): StoreOrder {
  const cancelState = o.cancelStatus?.cancelState ?? 'NONE_REQUESTED';
  const shipTo = o.fulfillmentStartInstructions?.[0]?.shippingStep?.shipTo;
  const a = shipTo?.contactAddress;
  const recipient =
    shipTo && a?.addressLine1 && a.countryCode
      ? {
          name: clean(shipTo.fullName) ?? '',
          company: clean(shipTo.companyName),
          email: clean(shipTo.email),
          phone: clean(shipTo.primaryPhone?.phoneNumber),
          address1: a.addressLine1.trim(),
          address2: clean(a.addressLine2),
          postalCode: clean(a.postalCode) ?? '',
          city: clean(a.city) ?? '',
          state: clean(a.stateOrProvince),
          country: a.countryCode.toUpperCase(),
        }
      : null;
  return {
    externalId: o.orderId,
    name: o.orderId,
    paid: o.orderPaymentStatus === 'PAID' && cancelState === 'NONE_REQUESTED',
    cancelled: cancelState === 'CANCELED',
    createdAt: o.creationDate,
    updatedAt: o.lastModifiedDate,
    lines: o.lineItems.map((l) => ({
      externalLineId: l.lineItemId,
      sku: clean(l.sku) ?? null,
      quantity: l.quantity,
      title: clean(l.title),
      externalProductId: clean(l.sku) ?? null,
      externalVariantId: null,
    })),
    recipient,
  };
}

/**
 * Orders changed since the cursor: `getOrders` with `filter=lastmodifieddate:[from..to]` (the brackets percent-encoded,
 * as the Fulfillment API requires), a run's upper bound fixed on its first page and carried in the page token with the
 * offset (eBay sorts by creation, not by change: the run keeps its window and pages through it).
 */
export const ordersCursor = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS, overlapMs: POLL_OVERLAP_MS });

export async function pollOrders(
  client: EbayClient,
  cursor: string | null,
  now: Date,
): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = ordersCursor.read(cursor, now);
  const [to, offset] = at.pageToken ? at.pageToken.split('|') : [now.toISOString(), '0'];
  const from = at.since.toISOString();
  const page = parsePayload(
    ordersPage,
    await client.call({
      method: 'GET',
      path: '/sell/fulfillment/v1/order',
      rawQuery: `filter=lastmodifieddate:%5B${from}..${to}%5D`,
      query: { limit: ORDERS_PAGE, offset: Number(offset) },
      operation: 'getOrders',
    }),
    'eBay orders',
  );
  const orders = page.orders ?? [];
  const read = Number(offset) + orders.length;
  const more = orders.length > 0 && (page.next ? true : page.total != null && read < page.total);
  return {
    orders: orders.map(toStoreOrder),
    nextCursor: ordersCursor.next(at, {
      updatedAt: orders.map((o) => o.lastModifiedDate),
      nextPageToken: more ? `${to}|${read}` : null,
    }),
  };
}
