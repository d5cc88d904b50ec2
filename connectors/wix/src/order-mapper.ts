import { parsePayload, type StoreOrder, type StoreOrderLine, type StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';

/** Text Wix may leave out or send null: trimmed, empty when absent. */
export const text = z
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

const addressSchema = z
  .object({
    country: text,
    subdivision: text,
    city: text,
    postalCode: text,
    addressLine1: text,
    addressLine2: text,
    streetAddress: z.object({ number: text, name: text, apt: text.optional() }).nullish(),
  })
  .nullish();

const contactSchema = z.object({ firstName: text, lastName: text, phone: text, company: text }).nullish();

const destinationSchema = z.object({ address: addressSchema, contactDetails: contactSchema }).nullish();

const lineSchema = z.object({
  id: z.string(),
  quantity: z.number().int(),
  refundQuantity: z.number().int().nullish(),
  productName: z.object({ original: text, translated: text.optional() }).nullish(),
  catalogReference: z
    .object({ catalogItemId: text, appId: text, options: z.object({ variantId: text.optional() }).loose().nullish() })
    .nullish(),
  physicalProperties: z.object({ sku: z.string().nullish(), shippable: z.boolean().nullish() }).nullish(),
});

/**
 * The eCommerce order fields we use (REST names: `id`, `createdDate`; the SDK's `_id` and
 * `_createdDate` are accepted too, as the JavaScript SDK's event bodies name them).
 */
export const wixOrderSchema = z.preprocess(
  (raw) => {
    if (typeof raw !== 'object' || raw === null) return raw;
    const o = raw as Record<string, unknown>;
    return {
      ...o,
      id: o.id ?? o._id,
      createdDate: o.createdDate ?? o._createdDate,
      updatedDate: o.updatedDate ?? o._updatedDate,
    };
  },
  z.object({
    id: z.string().min(1),
    number: z
      .union([z.string(), z.number()])
      .nullish()
      .transform((v) => (v === null || v === undefined ? '' : String(v))),
    createdDate: isoDate,
    updatedDate: isoDate,
    status: text,
    paymentStatus: text,
    buyerInfo: z.object({ email: text }).nullish(),
    lineItems: z.array(lineSchema),
    shippingInfo: z.object({ logistics: z.object({ shippingDestination: destinationSchema }).nullish() }).nullish(),
    recipientInfo: destinationSchema,
  }),
);
export type WixOrder = z.output<typeof wixOrderSchema>;

/**
 * Whether a body is a whole order (webhook bodies may carry only its id and statuses): then it is mapped, else fetched.
 */
export function isWholeOrder(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const o = raw as Record<string, unknown>;
  return (
    Array.isArray(o.lineItems) &&
    typeof (o.updatedDate ?? o._updatedDate) === 'string' &&
    typeof o.paymentStatus === 'string' &&
    typeof o.status === 'string'
  );
}

/**
 * Payment statuses in which the merchant has the money for the order as it now stands, the
 * Shopify connector's policy: `PAID`, and `PARTIALLY_REFUNDED` (it was PAID first; a refunded
 * shipping fee or returned item must not stop the print, and refunded quantities are not
 * printed). `PARTIALLY_PAID` (a deposit: Wix's pay-now part of the checkout) waits like
 * Shopify's `partially_paid`, visibly, until Wix reports the order PAID.
 */
export const PAID_STATUSES: ReadonlySet<string> = new Set(['PAID', 'PARTIALLY_REFUNDED']);

/**
 * A Wix order -> StoreOrder. Paid means `status` APPROVED **and** a paid `paymentStatus`
 * (`PAID_STATUSES`): an offline-payment order is APPROVED while NOT_PAID until the merchant
 * marks it paid. Cancelled: `status` CANCELED. Lines from `lineItems[]`
 * (`physicalProperties.sku`, `quantity` less `refundQuantity`: what is still owed; ids the
 * catalogue's product and variant); recipient from the shipping destination
 * (`shippingInfo.logistics.shippingDestination`, else `recipientInfo`), email from
 * `buyerInfo.email`.
 */
export function mapWixOrder(raw: unknown): StoreOrder {
  const o = parsePayload(wixOrderSchema, raw, 'Wix order');
  const lines: StoreOrderLine[] = [];
  for (const l of o.lineItems) {
    const owed = l.quantity - (l.refundQuantity ?? 0);
    if (owed <= 0) continue;
    const sku = l.physicalProperties?.sku?.trim();
    lines.push({
      externalLineId: l.id,
      sku: sku ? sku : null,
      quantity: owed,
      title: l.productName?.original || l.productName?.translated || undefined,
      externalProductId: l.catalogReference?.catalogItemId || null,
      externalVariantId: l.catalogReference?.options?.variantId || null,
    });
  }
  const destination = o.shippingInfo?.logistics?.shippingDestination ?? o.recipientInfo ?? null;
  return {
    externalId: o.id,
    name: o.number ? `#${o.number}` : undefined,
    paid: o.status === 'APPROVED' && PAID_STATUSES.has(o.paymentStatus),
    cancelled: o.status === 'CANCELED',
    createdAt: o.createdDate,
    updatedAt: o.updatedDate,
    lines,
    recipient: recipient(destination, o.buyerInfo?.email ?? ''),
  };
}

function recipient(destination: z.output<typeof destinationSchema>, email: string): StoreRecipient | null {
  const a = destination?.address;
  const c = destination?.contactDetails;
  if (!a) return null;
  const street = a.streetAddress ? `${a.streetAddress.name} ${a.streetAddress.number}`.trim() : '';
  // Wix gives either addressLine1/2 or a structured street address: number and name, then the apartment.
  const address1 = a.addressLine1 || street;
  if (!address1) return null;
  const address2 = a.addressLine2 || a.streetAddress?.apt || '';
  const name = `${c?.firstName ?? ''} ${c?.lastName ?? ''}`.trim() || c?.company || '';
  const country = a.country.toUpperCase();
  const state = subdivision(a.subdivision, country);
  return {
    name,
    ...(c?.company ? { company: c.company } : {}),
    ...(email ? { email } : {}),
    ...(c?.phone ? { phone: c.phone } : {}),
    address1,
    ...(address2 ? { address2 } : {}),
    postalCode: a.postalCode,
    city: a.city,
    ...(state ? { state } : {}),
    country,
  };
}

/** Wix's ISO 3166-2 `subdivision` without its country prefix (`IT-MI` -> `MI`); one without a prefix as written. */
function subdivision(code: string, country: string): string {
  return country && code.toUpperCase().startsWith(`${country}-`) ? code.slice(country.length + 1) : code;
}
