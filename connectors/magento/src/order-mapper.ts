import { parsePayload, type StoreOrder, type StoreOrderLine, type StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';
import { isoOf } from './magento-client.ts';

/**
 * Order states (`sales_order.state`, Magento's `Magento\Sales\Model\Order::STATE_*`): `processing` is invoiced (the
 * money taken), `complete` invoiced and shipped; `new` (status pending), `pending_payment`, `payment_review` and
 * `holded` wait; `canceled` and `closed` (refunded in full) are never printed and cancel ours while that is possible.
 */
const PAID_STATES = new Set(['processing', 'complete']);
const CANCELLED_STATES = new Set(['canceled', 'closed']);

const text = z
  .string()
  .nullish()
  .transform((v) => v?.trim() ?? '');
const id = z.number().int();

const address = z.object({
  firstname: text,
  lastname: text,
  company: text,
  street: z.array(z.string().nullable()).nullish(),
  city: text,
  postcode: text,
  region: text,
  region_code: text,
  country_id: text,
  telephone: text,
  email: text,
});
type Address = z.infer<typeof address>;

const item = z.object({
  item_id: id,
  sku: text,
  name: text,
  qty_ordered: z.number().nullish(),
  product_id: id.nullish(),
  product_type: text,
  parent_item_id: id.nullish(),
  qty_shipped: z.number().nullish(),
  qty_canceled: z.number().nullish(),
  qty_refunded: z.number().nullish(),
});
export type MagentoItem = z.infer<typeof item>;

/** The fields of `sales-data-order-interface` we use (`GET /V1/orders` items, `GET /V1/orders/{id}`). */
export const orderSchema = z.object({
  entity_id: id,
  increment_id: text,
  state: text,
  created_at: z.string(),
  updated_at: z.string(),
  customer_email: text,
  items: z.array(item),
  billing_address: address.nullish(),
  extension_attributes: z
    .object({
      shipping_assignments: z
        .array(z.object({ shipping: z.object({ address: address.nullish() }).nullish() }))
        .nullish(),
    })
    .nullish(),
});
export type MagentoOrder = z.infer<typeof orderSchema>;

/** A Magento order (as `GET /V1/orders` answers it) -> StoreOrder. */
export function mapMagentoOrder(raw: unknown): StoreOrder {
  return toStoreOrder(parsePayload(orderSchema, raw, 'Magento order'));
}

/**
 * The items that are what was sold: a configurable product's order has the parent item (the configurable, carrying
 * the chosen child's SKU too) and the child item (the simple product, with `parent_item_id`): the child is the line,
 * printed once; a bundle's children likewise. An item that is another's parent is never a line of its own.
 */
export function soldItems(items: MagentoItem[]): MagentoItem[] {
  const parents = new Set(items.flatMap((i) => (i.parent_item_id ? [i.parent_item_id] : [])));
  return items.filter((i) => !parents.has(i.item_id));
}

export function toStoreOrder(o: MagentoOrder): StoreOrder {
  return {
    externalId: String(o.entity_id),
    ...(o.increment_id ? { name: `#${o.increment_id}` } : {}),
    paid: PAID_STATES.has(o.state),
    cancelled: CANCELLED_STATES.has(o.state),
    createdAt: isoOf(o.created_at),
    updatedAt: isoOf(o.updated_at),
    lines: soldItems(o.items).map(
      (i): StoreOrderLine => ({
        externalLineId: String(i.item_id),
        sku: i.sku || null,
        quantity: i.qty_ordered ?? 0,
        ...(i.name ? { title: i.name } : {}),
        externalProductId: i.product_id ? String(i.product_id) : null,
        externalVariantId: null,
      }),
    ),
    recipient: recipientOf(o),
  };
}

/**
 * The shipping address of the order's first shipping assignment; a virtual order (nothing shipped) has none, and its
 * billing address is where the customer is. `region_code` is Magento's code of the region (`CA`, `MI`), a
 * country-prefixed one (`IT-MI`) without its prefix; the region as typed where the country has no list.
 */
function recipientOf(o: MagentoOrder): StoreRecipient | null {
  const shipping = o.extension_attributes?.shipping_assignments?.[0]?.shipping?.address;
  const a = hasStreet(shipping) ? shipping : hasStreet(o.billing_address) ? o.billing_address : null;
  if (!a) return null;
  const street = (a.street ?? []).map((s) => s?.trim() ?? '').filter(Boolean);
  const country = a.country_id.toUpperCase();
  const code = a.region_code.toUpperCase().startsWith(`${country}-`) ? a.region_code.slice(3) : a.region_code;
  const state = code || a.region;
  const email = a.email || o.customer_email;
  return {
    name: `${a.firstname} ${a.lastname}`.trim() || a.company,
    ...(a.company ? { company: a.company } : {}),
    ...(email ? { email } : {}),
    ...(a.telephone ? { phone: a.telephone } : {}),
    address1: street[0]!,
    ...(street.length > 1 ? { address2: street.slice(1).join(', ') } : {}),
    postalCode: a.postcode,
    city: a.city,
    ...(state ? { state } : {}),
    country,
  };
}

const hasStreet = (a: Address | null | undefined): a is Address => Boolean(a?.street?.some((s) => Boolean(s?.trim())));
