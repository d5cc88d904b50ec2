import { z } from 'zod';
import { ConnectorError, parsePayload, type StoreOrder, type StoreRecipient } from '@print-api/connector-kit';

/** The statuses in which WooCommerce has the money: `on-hold` (bank transfer awaiting) is not one of them. */
const PAID_STATUSES = new Set(['processing', 'completed']);

const text = z
  .string()
  .nullish()
  .transform((v) => v ?? '');
const address = z.object({
  first_name: text,
  last_name: text,
  company: text,
  address_1: text,
  address_2: text,
  city: text,
  state: text,
  postcode: text,
  country: text,
  email: text.optional(),
  phone: text.optional(),
});

/** The fields of a `wc/v3` order we use (the REST resource, also the body of `order.*` webhooks). */
export const wooOrderSchema = z.object({
  id: z.number().int().positive(),
  number: z.union([z.string(), z.number()]).transform(String),
  status: z.string(),
  date_created_gmt: z.string(),
  date_modified_gmt: z.string(),
  date_paid_gmt: z.string().nullish(),
  date_paid: z.string().nullish(),
  billing: address,
  shipping: address,
  line_items: z.array(
    z.object({
      id: z.number().int(),
      name: text,
      product_id: z.number().int().nullish(),
      variation_id: z.number().int().nullish(),
      quantity: z.number(),
      sku: z.string().nullish(),
    }),
  ),
});
export type WooOrder = z.infer<typeof wooOrderSchema>;

/** WooCommerce's `*_gmt` dates carry no zone (`2017-03-22T19:28:08`): they are UTC. */
export function gmtToIso(value: string): string {
  const zoned = /(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
  const date = new Date(zoned);
  if (Number.isNaN(date.getTime()))
    throw new ConnectorError('invalid_payload', `WooCommerce sent an unreadable date: ${value}`);
  return date.toISOString();
}

/**
 * `2024-05-01T10:00:00.000Z` -> `2024-05-01T10:00:00`: the form WooCommerce's `modified_after` + `dates_are_gmt`
 * expects.
 */
export function isoToGmt(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19);
}

/**
 * A WooCommerce order -> StoreOrder. Paid means `date_paid` is set and the status is
 * `processing` or `completed`; `cancelled` cancels ours. Lines keep their SKU as is (null or
 * empty means "not a print item": the pipeline skips and records them).
 */
export function mapWooOrder(raw: unknown): StoreOrder {
  return toStoreOrder(parsePayload(wooOrderSchema, raw, 'WooCommerce order'));
}

/** A checked WooCommerce order -> StoreOrder (see `mapWooOrder`). */
export function toStoreOrder(o: WooOrder): StoreOrder {
  const paidAt = o.date_paid_gmt || o.date_paid;
  return {
    externalId: String(o.id),
    name: `#${o.number}`,
    paid: Boolean(paidAt) && PAID_STATUSES.has(o.status),
    cancelled: o.status === 'cancelled',
    createdAt: gmtToIso(o.date_created_gmt),
    updatedAt: gmtToIso(o.date_modified_gmt),
    lines: o.line_items.map((line) => ({
      externalLineId: String(line.id),
      sku: line.sku?.trim() ? line.sku.trim() : null,
      quantity: line.quantity,
      title: line.name || undefined,
      externalProductId: line.product_id ? String(line.product_id) : null,
      externalVariantId: line.variation_id ? String(line.variation_id) : null,
    })),
    recipient: mapRecipient(o),
  };
}

/**
 * The shipping address; a store that sells only "virtual" products has none, and then the
 * billing address is where the customer can be reached. Phone: `shipping.phone` (WooCommerce
 * 5.6+), else `billing.phone`; email: `billing.email` (shipping has none).
 */
export function mapRecipient(o: WooOrder): StoreRecipient | null {
  const a = o.shipping.address_1.trim() ? o.shipping : o.billing.address_1.trim() ? o.billing : null;
  if (!a) return null;
  const name = `${a.first_name.trim()} ${a.last_name.trim()}`.trim() || a.company.trim();
  const phone = o.shipping.phone?.trim() || o.billing.phone?.trim();
  const email = o.billing.email?.trim();
  const company = a.company.trim();
  const country = a.country.trim().toUpperCase();
  const state = subdivision(a.state.trim(), country);
  return {
    name,
    ...(company ? { company } : {}),
    ...(email ? { email } : {}),
    ...(phone ? { phone } : {}),
    address1: a.address_1.trim(),
    ...(a.address_2.trim() ? { address2: a.address_2.trim() } : {}),
    postalCode: a.postcode.trim(),
    city: a.city.trim(),
    ...(state ? { state } : {}),
    country,
  };
}

/**
 * WooCommerce's `state` is the store's own code for the province (`MI` for Milano, `CA`, from
 * its `i18n/states.php`: the ISO 3166-2 code without the country prefix for most countries),
 * or what the customer typed where WooCommerce has no list: kept as is, a prefix dropped.
 */
function subdivision(state: string, country: string): string {
  return country && state.toUpperCase().startsWith(`${country}-`) ? state.slice(country.length + 1) : state;
}
