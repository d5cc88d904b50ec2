import { z } from 'zod';
import {
  ConnectorError,
  parsePayload,
  type StoreOrder,
  type StoreOrderLine,
  type StoreRecipient,
} from '@print-api/connector-kit';

/**
 * Financial statuses in which Shopify has the money. `partially_refunded` was `paid` first
 * (a refunded shipping fee or a returned non-print item must not stop the print).
 */
const PAID = new Set(['paid', 'partially_refunded']);

/**
 * `JSON.parse` that keeps integers beyond 2^53 exact, as strings. Shopify ids are 64-bit
 * (its documented example order is 820982911946154508, which a double rounds to …500).
 *
 * Such an integer has at least 16 digits: each run of 16 or more digits outside a string that
 * is a whole JSON integer beyond 2^53 is quoted before one plain parse, which costs a scan for
 * the runs and a walk over the quotes before each, where a reviver (called for every value of
 * the order, with its source text) made the parse several times slower.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(quoteLargeIntegers(text));
}

const SIXTEEN_DIGITS = /-?\d{16,}/g;
const BACKSLASH = 92;

function quoteLargeIntegers(text: string): string {
  let quoted = '';
  let copied = 0;
  // The quote scan: `inString` holds for the text before `scanned`.
  let inString = false;
  let scanned = 0;
  for (const match of text.matchAll(SIXTEEN_DIGITS)) {
    const start = match.index;
    for (let q = text.indexOf('"', scanned); q !== -1 && q < start; q = text.indexOf('"', q + 1)) {
      if (!escaped(text, q)) inString = !inString;
    }
    scanned = start;
    const digits = match[0];
    const end = start + digits.length;
    if (inString || !integerValue(text, start, end, digits) || Number.isSafeInteger(Number(digits))) continue;
    quoted += `${text.slice(copied, start)}"${digits}"`;
    copied = end;
  }
  return copied === 0 ? text : quoted + text.slice(copied);
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Whether the digits at `start..end` (outside strings) are a JSON integer in a value's place:
 * a number token of their own (not a fraction or exponent, no leading zero, which JSON refuses),
 * first, or after `:`, `[` or `,`, and not before `:`. A string there is exactly as valid as the number, so
 * quoting never makes a text JSON refuses acceptable.
 */
function integerValue(text: string, start: number, end: number, digits: string): boolean {
  const first = digits[0] === '-' ? digits[1] : digits[0];
  if (first === '0' || /[.eE]/.test(text[end] ?? '')) return false;
  let before = start - 1;
  while (WHITESPACE.has(text[before] ?? '')) before--;
  let after = end;
  while (WHITESPACE.has(text[after] ?? '')) after++;
  return (before < 0 || text[before] === ':' || text[before] === '[' || text[before] === ',') && text[after] !== ':';
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** `gid://shopify/Order/820982911946154508` -> `820982911946154508`. */
export function legacyId(gid: string): string {
  const m = /\/(\d+)$/.exec(gid);
  if (!m) throw new ConnectorError('invalid_payload', `Shopify sent an unexpected id: ${gid}`);
  return m[1]!;
}

const id = z.union([z.string(), z.number()]).transform(String);
const text = z
  .string()
  .nullish()
  .transform((v) => v?.trim() ?? '');
const isoDate = z.string().transform((v, c) => {
  const t = Date.parse(v);
  if (Number.isNaN(t)) {
    c.addIssue({ code: 'custom', message: `unreadable date ${v}` });
    return z.NEVER;
  }
  return new Date(t).toISOString();
});

const restAddress = z.object({
  name: text,
  first_name: text,
  last_name: text,
  company: text,
  address1: text,
  address2: text,
  city: text,
  zip: text,
  province: text,
  province_code: text,
  country_code: text,
  phone: text,
});

/** The fields of an order webhook payload (`orders/create|paid|updated|cancelled`) we use. */
export const orderWebhookSchema = z.object({
  id,
  admin_graphql_api_id: z.string().optional(),
  name: text,
  email: text,
  contact_email: text.optional(),
  phone: text,
  financial_status: text,
  cancelled_at: z.string().nullish(),
  created_at: isoDate,
  updated_at: isoDate,
  customer: z.object({ email: text }).nullish(),
  line_items: z.array(
    z.object({
      id,
      sku: z.string().nullish(),
      quantity: z.number().int(),
      current_quantity: z.number().int().optional(),
      title: text,
      product_id: id.nullish(),
      variant_id: id.nullish(),
    }),
  ),
  shipping_address: restAddress.nullish(),
});

/** An order webhook body -> StoreOrder. */
export function mapWebhookOrder(raw: unknown): StoreOrder {
  const o = parsePayload(orderWebhookSchema, raw, 'Shopify order webhook');
  const lines: StoreOrderLine[] = [];
  for (const l of o.line_items) {
    const quantity = l.current_quantity ?? l.quantity;
    // A line removed by an order edit stays in the payload with current_quantity 0.
    if (quantity <= 0) continue;
    lines.push({
      externalLineId: l.id,
      sku: cleanSku(l.sku),
      quantity,
      title: l.title || undefined,
      externalProductId: l.product_id ?? null,
      externalVariantId: l.variant_id ?? null,
    });
  }
  const a = o.shipping_address;
  return {
    externalId: o.admin_graphql_api_id ? legacyId(o.admin_graphql_api_id) : o.id,
    name: o.name || undefined,
    paid: PAID.has(o.financial_status.toLowerCase()),
    cancelled: Boolean(o.cancelled_at),
    createdAt: o.created_at,
    updatedAt: o.updated_at,
    lines,
    recipient: a
      ? recipient(
          {
            name: a.name,
            first: a.first_name,
            last: a.last_name,
            company: a.company,
            address1: a.address1,
            address2: a.address2,
            zip: a.zip,
            city: a.city,
            province: a.province_code || a.province,
            country: a.country_code,
            phone: a.phone,
          },
          o.email || o.contact_email || o.customer?.email || '',
          o.phone,
        )
      : null,
  };
}

const gqlAddress = z.object({
  name: text,
  firstName: text,
  lastName: text,
  company: text,
  address1: text,
  address2: text,
  city: text,
  zip: text,
  province: text,
  provinceCode: text,
  countryCodeV2: text,
  phone: text,
});

const gqlLine = z.object({
  id: z.string(),
  sku: z.string().nullish(),
  quantity: z.number().int(),
  currentQuantity: z.number().int().optional(),
  title: text,
  variant: z.object({ legacyResourceId: id }).nullish(),
  product: z.object({ legacyResourceId: id }).nullish(),
});
export type GraphqlLine = z.infer<typeof gqlLine>;

/** The `Order` fields our polling query selects (see `ORDER_FIELDS`). */
export const graphqlOrderSchema = z.object({
  id: z.string(),
  legacyResourceId: id,
  name: text,
  email: text,
  phone: text,
  createdAt: isoDate,
  updatedAt: isoDate,
  cancelledAt: z.string().nullish(),
  displayFinancialStatus: text,
  shippingAddress: gqlAddress.nullish(),
  lineItems: z.object({
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullish() }),
    nodes: z.array(gqlLine),
  }),
});
export type GraphqlOrder = z.infer<typeof graphqlOrderSchema>;

/** The GraphQL selection `graphqlOrderSchema` reads; `$lines` pages the line items. */
export const ORDER_FIELDS = `
  id legacyResourceId name email phone createdAt updatedAt cancelledAt displayFinancialStatus
  shippingAddress { name firstName lastName company address1 address2 city zip province provinceCode countryCodeV2 phone }
  lineItems(first: $lines) {
    pageInfo { hasNextPage endCursor }
    nodes { id sku quantity currentQuantity title variant { legacyResourceId } product { legacyResourceId } }
  }`;

/**
 * A GraphQL `Order` (with all its line items gathered) -> StoreOrder: the same result as the webhook body of the same
 * order.
 */
export function mapGraphqlOrder(raw: unknown, extraLines: GraphqlLine[] = []): StoreOrder {
  const o = parsePayload(graphqlOrderSchema, raw, 'Shopify GraphQL order');
  const lines: StoreOrderLine[] = [];
  for (const l of [...o.lineItems.nodes, ...extraLines]) {
    const quantity = l.currentQuantity ?? l.quantity;
    if (quantity <= 0) continue;
    lines.push({
      externalLineId: legacyId(l.id),
      sku: cleanSku(l.sku),
      quantity,
      title: l.title || undefined,
      externalProductId: l.product?.legacyResourceId ?? null,
      externalVariantId: l.variant?.legacyResourceId ?? null,
    });
  }
  const a = o.shippingAddress;
  return {
    externalId: o.legacyResourceId,
    name: o.name || undefined,
    paid: PAID.has(o.displayFinancialStatus.toLowerCase()),
    cancelled: Boolean(o.cancelledAt),
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    lines,
    recipient: a
      ? recipient(
          {
            name: a.name,
            first: a.firstName,
            last: a.lastName,
            company: a.company,
            address1: a.address1,
            address2: a.address2,
            zip: a.zip,
            city: a.city,
            province: a.provinceCode || a.province,
            country: a.countryCodeV2,
            phone: a.phone,
          },
          o.email,
          o.phone,
        )
      : null,
  };
}

/** A parsed line item: the lines of one order page, as `mapGraphqlOrder` takes its extra lines. */
export function parseGraphqlLines(raw: unknown): GraphqlLine[] {
  return parsePayload(z.array(gqlLine), raw, 'Shopify GraphQL line items');
}

function cleanSku(sku: string | null | undefined): string | null {
  const s = sku?.trim();
  return s ? s : null;
}

interface Address {
  name: string;
  first: string;
  last: string;
  company: string;
  address1: string;
  address2: string;
  zip: string;
  city: string;
  /** `province_code` (`MI`, `CA`) when Shopify has one, else the province as written. */
  province: string;
  country: string;
  phone: string;
}

/** The shipping address as our Recipient; the order's email, and its phone when the address has none. */
function recipient(a: Address, email: string, orderPhone: string): StoreRecipient | null {
  if (!a.address1) return null;
  const phone = a.phone || orderPhone;
  const country = a.country.toUpperCase();
  const state = subdivision(a.province, country);
  return {
    name: a.name || `${a.first} ${a.last}`.trim() || a.company,
    ...(a.company ? { company: a.company } : {}),
    ...(email ? { email } : {}),
    ...(phone ? { phone } : {}),
    address1: a.address1,
    ...(a.address2 ? { address2: a.address2 } : {}),
    postalCode: a.zip,
    city: a.city,
    ...(state ? { state } : {}),
    country,
  };
}

/** A province code without its ISO 3166-2 country prefix, should one come with it (`IT-MI` -> `MI`). */
function subdivision(province: string, country: string): string {
  return country && province.toUpperCase().startsWith(`${country}-`) ? province.slice(country.length + 1) : province;
}
