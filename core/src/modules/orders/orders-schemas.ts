import { z } from 'zod';
import { orderSources, ORDER_STATES, ORDER_STATUSES } from './order-states.ts';

const optionValue = z.union([z.string().max(100), z.number().finite()]);

/** LineInput of spec §2: a catalogue product or one of the reseller's SKUs. */
export const lineInputSchema = z
  .strictObject({
    productId: z.string().min(1).max(100).optional().meta({ description: 'Catalogue product id (or slug). Either this or resellerSku.' }),
    resellerSku: z.string().min(1).max(64).optional().meta({ description: "SKU of one of the reseller's own products." }),
    quantity: z.number().int().min(1).max(1_000_000).meta({ description: 'Always the number of pieces; for run-priced products it is the run.' }),
    options: z.record(z.string().max(64), optionValue).optional().meta({ description: 'Customer option keys from the product detail only.' }),
  })
  .refine((l) => (l.productId === undefined) !== (l.resellerSku === undefined), {
    message: 'give exactly one of productId and resellerSku',
    path: ['productId'],
  });

export const orderLineInputSchema = z
  .strictObject({
    productId: z.string().min(1).max(100).optional().meta({ description: 'Catalogue product id (or slug). Either this or resellerSku.' }),
    resellerSku: z.string().min(1).max(64).optional().meta({ description: "SKU of one of the reseller's own products (its fixed options and default file apply)." }),
    quantity: z.number().int().min(1).max(1_000_000),
    options: z.record(z.string().max(64), optionValue).optional(),
    fileUrl: z
      .url({ protocol: /^https$/, message: 'fileUrl must be an https URL' })
      .max(2048)
      .optional()
      .meta({
        description:
          'Public https URL of a print-ready PDF, PNG or JPG (EPS, AI, PS, SVG by extension, converted by hand). Without it (and without a default file on the reseller product) the order waits in AWAITING_FILE.',
      }),
  })
  .refine((l) => (l.productId === undefined) !== (l.resellerSku === undefined), {
    message: 'give exactly one of productId and resellerSku',
    path: ['productId'],
  });

export const countrySchema = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as NL')
  .transform((c) => c.toUpperCase());

export const recipientSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  email: z.email().max(254).optional().meta({ description: "When missing, the reseller account's e-mail is given to the carrier." }),
  phone: z
    .string()
    .trim()
    .regex(/^\+?[0-9 ()./-]{5,25}$/, 'must be a phone number')
    .optional()
    .meta({ description: "When missing, the reseller account's phone is given to the carrier." }),
  address1: z.string().trim().min(1).max(200),
  address2: z.string().trim().max(200).optional(),
  postalCode: z.string().trim().min(1).max(20),
  city: z.string().trim().min(1).max(100),
  country: countrySchema,
});

export const placeOrderBody = z.strictObject({
  externalOrderId: z.string().trim().min(1).max(100).optional().meta({ description: "The reseller's own order id." }),
  lines: z.array(orderLineInputSchema).min(1).max(100),
  recipient: recipientSchema,
});
export type PlaceOrderInput = z.output<typeof placeOrderBody>;

const cents = z.number().int();

export const orderLineViewSchema = z.object({
  line: z.number().int(),
  productId: z.string(),
  resellerSku: z.string().nullable(),
  quantity: z.number().int(),
  options: z.record(z.string(), z.union([z.string(), z.number()])),
  derivedOptions: z.record(z.string(), z.union([z.string(), z.number()])),
  unitPrice: z.string().meta({ description: 'Exact unit price in cents after discount, excl. VAT (decimal string).' }),
  unitPriceCents: cents,
  publicNetCents: cents,
  discountCents: cents,
  netCents: cents,
  vatRate: z.string(),
  vatCents: cents,
  totalCents: cents,
  fileUrl: z.string().nullable(),
  fileStatus: z.enum(['ok', 'needs_conversion', 'missing']),
});

export const trackingSchema = z.object({ carrier: z.string(), trackingNumber: z.string(), trackingUrl: z.string() });

export const orderViewSchema = z.object({
  id: z.string(),
  state: z.enum(ORDER_STATES),
  status: z.enum(ORDER_STATUSES),
  /** Open: `API`, `DASHBOARD` or a store platform; `orderSchemas` lists this service's values. */
  source: z.string(),
  externalOrderId: z.string().nullable(),
  testMode: z.boolean(),
  storeId: z.string().nullable(),
  recipient: z.object({
    name: z.string(),
    email: z.string().optional(),
    phone: z.string().optional(),
    address1: z.string(),
    address2: z.string().optional(),
    postalCode: z.string(),
    city: z.string(),
    country: z.string(),
  }),
  carrierContact: z.object({ emailSource: z.enum(['recipient', 'reseller']), phoneSource: z.enum(['recipient', 'reseller']) }),
  lines: z.array(orderLineViewSchema),
  shipping: z.record(z.string(), z.unknown()),
  totals: z.object({
    currency: z.literal('EUR'),
    publicNetCents: cents,
    discountCents: cents,
    netCents: cents,
    shippingCents: cents,
    vatCents: cents,
    totalCents: cents,
  }),
  payment: z.object({
    method: z.enum(['wallet', 'card']).nullable(),
    status: z.enum(['none', 'charging', 'paid', 'declined', 'refunded', 'not_charged']),
    error: z.string().nullable(),
    paidAt: z.string().nullable(),
  }),
  tracking: trackingSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  cancelledAt: z.string().nullable(),
});
export type OrderView = z.output<typeof orderViewSchema>;

export const orderResultSchema = orderViewSchema.extend({
  duplicate: z.boolean().meta({ description: 'true when this answers a repeat of an earlier request with the same Idempotency-Key.' }),
});

const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z' });

export const listOrdersQuery = z.strictObject({
  state: z.enum(ORDER_STATES).optional(),
  status: z.enum(ORDER_STATUSES).optional(),
  source: z.string().optional(),
  externalOrderId: z.string().min(1).max(100).optional(),
  storeId: z.string().min(1).max(64).optional().meta({ description: 'Only the orders placed from this connected store.' }),
  createdFrom: dateTime.optional(),
  createdTo: dateTime.optional(),
});

/**
 * The order schemas with `source` as this service's enumeration: the spec's values and the
 * loaded connectors' platforms (`platforms`), so the OpenAPI description and the `source`
 * filter list exactly what orders can carry here.
 */
export function orderSchemas(platforms: readonly string[]) {
  const source = z.enum(orderSources(platforms));
  return {
    orderView: orderViewSchema.extend({ source }),
    orderResult: orderResultSchema.extend({ source }),
    listQuery: listOrdersQuery.extend({ source: source.optional() }),
  };
}
