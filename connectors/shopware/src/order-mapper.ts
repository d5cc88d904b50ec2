import { parsePayload, type StoreOrder, type StoreOrderLine, type StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';

const text = z.string().nullish();
const state = z.object({ technicalName: z.string() }).nullish();
const times = { createdAt: z.string(), updatedAt: text };

const address = z.object({
  firstName: text,
  lastName: text,
  company: text,
  street: text,
  additionalAddressLine1: text,
  additionalAddressLine2: text,
  zipcode: text,
  city: text,
  phoneNumber: text,
  country: z.object({ iso: text }).nullish(),
  countryState: z.object({ shortCode: text }).nullish(),
});

/** An order as `POST /api/search/order` answers it with the associations `orderCriteria` asks for. */
export const orderSchema = z.object({
  id: z.string(),
  orderNumber: text,
  orderDateTime: text,
  ...times,
  primaryOrderDeliveryId: text,
  stateMachineState: state,
  orderCustomer: z.object({ email: text }).nullish(),
  lineItems: z
    .array(
      z.object({
        id: z.string(),
        type: text,
        label: text,
        quantity: z.number().int(),
        productId: text,
        parentId: text,
        payload: z.object({ productNumber: z.unknown() }).partial().nullish().catch(null),
      }),
    )
    .nullish(),
  deliveries: z
    .array(
      z.object({
        id: z.string(),
        ...times,
        trackingCodes: z.array(z.string()).nullish(),
        stateMachineState: state,
        shippingOrderAddress: address.nullish(),
      }),
    )
    .nullish(),
  transactions: z.array(z.object({ id: z.string(), ...times, stateMachineState: state })).nullish(),
});
export type ShopwareOrder = z.infer<typeof orderSchema>;

/** The associations an order is read with: lines, deliveries with address, country and state, payments, customer. */
export const ORDER_ASSOCIATIONS = {
  lineItems: {},
  deliveries: {
    associations: { stateMachineState: {}, shippingOrderAddress: { associations: { country: {}, countryState: {} } } },
  },
  transactions: { associations: { stateMachineState: {} } },
  orderCustomer: {},
  stateMachineState: {},
};

/**
 * Lines that are not goods and never a line of ours: discounts and credits (`promotion`, `discount`, `credit`) and a
 * container's own row (its children are lines of their own).
 */
const NOT_GOODS = new Set(['promotion', 'discount', 'credit', 'container']);

/** The order's delivery: the primary one where Shopware names it (6.7), else the first. */
export function mainDelivery(order: ShopwareOrder) {
  const deliveries = order.deliveries ?? [];
  return deliveries.find((d) => d.id === order.primaryOrderDeliveryId) ?? deliveries[0];
}

/** The payment that counts: the latest transaction (a customer who changes the payment method adds one). */
function latestTransaction(order: ShopwareOrder) {
  return [...(order.transactions ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
}

/**
 * When the order last changed, for us: the newest of its own times and its transactions' (a payment changes the
 * transaction's state, not the order row, and Shopware leaves `updatedAt` null until a row is first updated).
 */
export function changedAt(order: ShopwareOrder): string {
  const all = [order, ...(order.transactions ?? [])].flatMap((e) => [e.createdAt, e.updatedAt ?? e.createdAt]);
  return new Date(Math.max(...all.map((t) => Date.parse(t)))).toISOString();
}

/**
 * Paid: the latest transaction is `paid` (`paid_partially`, `authorized` and the rest wait). Cancelled: the order's
 * state is `cancelled`. Lines of type `product` carry the product number as their SKU; `custom` lines (added by the
 * merchant) are goods without a SKU.
 */
export function toStoreOrder(raw: unknown): StoreOrder {
  const order = parsePayload(orderSchema, raw, 'Shopware order');
  const lines: StoreOrderLine[] = (order.lineItems ?? [])
    .filter((l) => !NOT_GOODS.has(l.type ?? '') && l.quantity > 0)
    .map((l) => {
      const sku = l.type === 'product' ? l.payload?.productNumber : null;
      return {
        externalLineId: l.id,
        sku: typeof sku === 'string' && sku.trim() ? sku.trim() : null,
        quantity: l.quantity,
        ...(l.label ? { title: l.label } : {}),
        externalProductId: l.productId ?? null,
        externalVariantId: null,
      };
    });
  return {
    externalId: order.id,
    ...(order.orderNumber ? { name: order.orderNumber } : {}),
    paid: latestTransaction(order)?.stateMachineState?.technicalName === 'paid',
    cancelled: order.stateMachineState?.technicalName === 'cancelled',
    createdAt: new Date(order.orderDateTime ?? order.createdAt).toISOString(),
    updatedAt: changedAt(order),
    lines,
    recipient: recipientOf(order),
  };
}

/**
 * The delivery's shipping address: `countryState.shortCode` is ISO 3166-2 (`IT-MI`), given as `MI`; the additional
 * address lines are the second line; the e-mail is the order customer's.
 */
function recipientOf(order: ShopwareOrder): StoreRecipient | null {
  const a = mainDelivery(order)?.shippingOrderAddress;
  const country = a?.country?.iso?.trim().toUpperCase();
  if (!a || !country || !a.street?.trim()) return null;
  const code = a.countryState?.shortCode?.trim();
  const state = code ? (code.toUpperCase().startsWith(`${country}-`) ? code.slice(country.length + 1) : code) : '';
  const line2 = [a.additionalAddressLine1, a.additionalAddressLine2].map((l) => l?.trim()).filter(Boolean);
  const opt = (key: keyof StoreRecipient, value: string | null | undefined) =>
    value?.trim() ? { [key]: value.trim() } : {};
  return {
    name: [a.firstName, a.lastName]
      .map((n) => n?.trim())
      .filter(Boolean)
      .join(' '),
    ...opt('company', a.company),
    ...opt('email', order.orderCustomer?.email),
    ...opt('phone', a.phoneNumber),
    address1: a.street.trim(),
    ...(line2.length ? { address2: line2.join(', ') } : {}),
    postalCode: a.zipcode?.trim() ?? '',
    city: a.city?.trim() ?? '',
    ...opt('state', state),
    country,
  };
}
