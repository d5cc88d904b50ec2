import type { StoreOrder } from '@print-api/connector-kit';
import { z } from 'zod';

const money = z.object({ amount: z.string(), currencyCode: z.string() }).partial().optional();
const address = z
  .object({
    name: z.string().optional(),
    companyName: z.string().optional(),
    addressLine1: z.string().optional(),
    addressLine2: z.string().optional(),
    addressLine3: z.string().optional(),
    city: z.string().optional(),
    districtOrCounty: z.string().optional(),
    stateOrRegion: z.string().optional(),
    postalCode: z.string().optional(),
    countryCode: z.string().optional(),
    phone: z.string().optional(),
  })
  .loose();

/** An order of Orders API v2026-01-01 (searchOrders, getOrder), the fields we read. */
export const amazonOrderSchema = z
  .object({
    orderId: z.string().min(1),
    createdTime: z.string(),
    lastUpdatedTime: z.string(),
    salesChannel: z.object({ marketplaceId: z.string() }).loose().optional(),
    buyer: z.object({ buyerName: z.string().optional(), buyerEmail: z.string().optional() }).loose().optional(),
    recipient: z.object({ deliveryAddress: address.optional() }).loose().optional(),
    fulfillment: z.object({ fulfillmentStatus: z.string(), fulfilledBy: z.string().optional() }).loose().optional(),
    orderItems: z
      .array(
        z
          .object({
            orderItemId: z.string(),
            quantityOrdered: z.number().int().nonnegative(),
            product: z
              .object({
                asin: z.string().optional(),
                title: z.string().optional(),
                sellerSku: z.string().nullable().optional(),
                price: z.object({ unitPrice: money }).loose().optional(),
              })
              .loose()
              .optional(),
            fulfillment: z
              .object({
                quantityFulfilled: z.number().int().optional(),
                quantityUnfulfilled: z.number().int().optional(),
              })
              .loose()
              .optional(),
          })
          .loose(),
      )
      .default([]),
    packages: z
      .array(z.object({ packageReferenceId: z.string().optional(), trackingNumber: z.string().optional() }).loose())
      .optional(),
  })
  .loose();
export type AmazonOrder = z.infer<typeof amazonOrderSchema>;

/** Orders Amazon ships itself (FBA) are never ours to print. */
export const isMerchantFulfilled = (o: AmazonOrder) => (o.fulfillment?.fulfilledBy ?? 'MERCHANT') === 'MERCHANT';

/**
 * An Amazon order as a store order: paid once it is `UNSHIPPED` or (partly) shipped (`PENDING`
 * and `PENDING_AVAILABILITY` wait), cancelled when `CANCELLED`; one line per order item
 * (`product.sellerSku`, `quantityOrdered`); the recipient from `recipient.deliveryAddress`
 * (shown to apps with the Direct-to-Consumer Delivery role; absent without it).
 */
export function toStoreOrder(o: AmazonOrder): StoreOrder {
  const status = o.fulfillment?.fulfillmentStatus ?? 'PENDING';
  const a = o.recipient?.deliveryAddress;
  const street2 = [a?.addressLine2, a?.addressLine3].filter((s) => s && s.trim()).join(', ');
  return {
    externalId: o.orderId,
    name: o.orderId,
    paid: status === 'UNSHIPPED' || status === 'PARTIALLY_SHIPPED' || status === 'SHIPPED',
    cancelled: status === 'CANCELLED',
    createdAt: o.createdTime,
    updatedAt: o.lastUpdatedTime,
    lines: o.orderItems.map((item) => ({
      externalLineId: item.orderItemId,
      sku: item.product?.sellerSku?.trim() || null,
      quantity: item.quantityOrdered,
      title: item.product?.title,
      externalProductId: item.product?.asin ?? null,
      externalVariantId: item.product?.sellerSku ?? null,
    })),
    recipient:
      a && a.addressLine1 && a.city && a.countryCode
        ? {
            name: a.name ?? o.buyer?.buyerName ?? '',
            ...(o.buyer?.buyerEmail ? { email: o.buyer.buyerEmail } : {}),
            ...(a.phone ? { phone: a.phone } : {}),
            ...(a.companyName?.trim() ? { company: a.companyName.trim() } : {}),
            address1: a.addressLine1,
            ...(street2 ? { address2: street2 } : {}),
            postalCode: a.postalCode ?? '',
            city: a.city,
            ...(stateOf(a.stateOrRegion, a.countryCode) ? { state: stateOf(a.stateOrRegion, a.countryCode) } : {}),
            country: a.countryCode.toUpperCase(),
          }
        : null,
    // Without the role Amazon leaves the address out: the order waits for it, visibly, rather than failing.
    ...(a && a.addressLine1 && a.city && a.countryCode ? {} : { recipientMissing: ADDRESS_WITHHELD }),
  };
}

/** Why a paid order without its address waits (never placed without one). */
export const ADDRESS_WITHHELD =
  "Amazon did not share this order's shipping address: the app needs the Direct-to-Consumer Delivery role (restricted data) in the Solution Provider Portal, and the seller's authorisation of it; the order waits until the address can be read (retry it then)";

/**
 * `stateOrRegion` as our recipient's `state`: an ISO 3166-2 code prefixed with the order's
 * country loses the prefix (`IT-MI` -> `MI`); otherwise as Amazon wrote it (`WA`, `MI`, `Milano`).
 */
export function stateOf(stateOrRegion: string | undefined, country: string): string | undefined {
  const s = stateOrRegion?.trim();
  if (!s) return undefined;
  const iso = /^([A-Za-z]{2})-([A-Za-z0-9]{1,3})$/.exec(s);
  return iso && iso[1]!.toUpperCase() === country.trim().toUpperCase() ? iso[2]!.toUpperCase() : s;
}
