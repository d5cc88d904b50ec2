import { z } from 'zod';
import { openApiComponent } from '../../web/openapi-component.ts';
import { orderSources, ORDER_STATES, ORDER_STATUSES } from './order-states.ts';

/** The order `state` (spec §3), with what each value means, for the OpenAPI description. */
export const orderStateSchema = openApiComponent(
  z.enum(ORDER_STATES).meta({
    description: [
      'Where the order stands for you (the reseller):',
      '`AWAITING_FUNDS`: not paid yet, the wallet was short and no card is saved (released automatically, oldest first, after a top-up);',
      '`AWAITING_FILE`: a line has no usable print file yet, or one waits for conversion (PUT /orders/{id}/lines/{line}/file);',
      '`PAYMENT_FAILED`: the saved card was declined;',
      '`SUBMITTED`: paid (or a test order) and handed to production; follow `status`;',
      '`CANCELLED`: cancelled before production.',
    ].join(' '),
  }),
  'OrderState',
);

/** The production `status` (spec §3). */
export const orderStatusSchema = openApiComponent(
  z.enum(ORDER_STATUSES).meta({
    description: [
      'Where production stands:',
      '`PENDING`: not paid or not complete; `PAID`: paid, about to be handed to production;',
      '`PROCESSING`: prepress; `PRINTING`: on the press; `SHIPPED`: with the carrier (`tracking` is set);',
      '`DELIVERED`: delivered; `CANCELLED`: cancelled before payment; `REFUNDED`: cancelled after payment, the amount credited to the wallet.',
      'A test order (prk_test_ key) moves through the same statuses, simulated.',
    ].join(' '),
  }),
  'OrderStatus',
);

const optionValue = z.union([z.string().max(100), z.number().finite()]);

/** LineInput of spec §2: a catalogue product or one of the reseller's SKUs. */
export const lineInputSchema = openApiComponent(
  z
    .strictObject({
      productId: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'Catalogue product id (or slug). Either this or resellerSku.' }),
      resellerSku: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .meta({ description: "SKU of one of the reseller's own products." }),
      quantity: z
        .number()
        .int()
        .min(1)
        .max(1_000_000)
        .meta({ description: 'Always the number of pieces; for run-priced products it is the run.' }),
      options: z
        .record(z.string().max(64), optionValue)
        .optional()
        .meta({ description: 'Customer option keys from the product detail only.' }),
    })
    .refine((l) => (l.productId === undefined) !== (l.resellerSku === undefined), {
      message: 'give exactly one of productId and resellerSku',
      path: ['productId'],
    }),
  'LineInput',
);

export const orderLineInputSchema = openApiComponent(
  z
    .strictObject({
      productId: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'Catalogue product id (or slug). Either this or resellerSku.' }),
      resellerSku: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .meta({ description: "SKU of one of the reseller's own products (its fixed options and default file apply)." }),
      quantity: z.number().int().min(1).max(1_000_000),
      options: z.record(z.string().max(64), optionValue).optional(),
      fileUrl: z.url({ message: 'fileUrl must be a URL' }).max(2048).optional().meta({
        description:
          'Public https URL of a print-ready PDF, PNG or JPG (EPS, AI, PS, SVG by extension, converted by hand); any other scheme, a private address or an unusable file is 422 invalid_file_url. With a prk_test_ key, one of the sample files of GET /products/{id} (sampleFiles) also works. Without it (and without a default file on the reseller product) the order waits in AWAITING_FILE.',
      }),
    })
    .refine((l) => (l.productId === undefined) !== (l.resellerSku === undefined), {
      message: 'give exactly one of productId and resellerSku',
      path: ['productId'],
    }),
  'OrderLineInput',
);

export const countrySchema = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as NL')
  .transform((c) => c.toUpperCase());

export const recipientSchema = openApiComponent(
  z
    .strictObject({
      name: z.string().trim().min(1).max(100),
      company: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'The company on the address, printed on the label under the name.' }),
      email: z
        .email()
        .max(254)
        .optional()
        .meta({ description: "When missing, the reseller account's e-mail is given to the carrier." }),
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
      state: z.string().trim().min(1).max(100).optional().meta({
        description:
          'Province, state or region, where the address has one (Italian, Spanish, Irish, US, Canadian addresses): the ISO 3166-2 subdivision code without the country prefix (`MI` for Milano, `CA` for California), or the name as written. Italian carriers print it after the city: `20121 Milano MI`.',
      }),
      country: countrySchema,
    })
    .meta({
      description:
        "Who the order ships to, white label: the carrier gets the recipient's e-mail and phone, or the reseller's when they are left out (see carrierContact).",
    }),
  'Recipient',
);

export const placeOrderBody = openApiComponent(
  z.strictObject({
    externalOrderId: z.string().trim().min(1).max(100).optional().meta({ description: "The reseller's own order id." }),
    lines: z.array(orderLineInputSchema).min(1).max(100),
    recipient: recipientSchema,
  }),
  'PlaceOrderRequest',
);
export type PlaceOrderInput = z.output<typeof placeOrderBody>;

const cents = z.number().int();

export const orderLineViewSchema = openApiComponent(
  z.object({
    line: z.number().int(),
    productId: z.string(),
    resellerSku: z.string().nullable(),
    quantity: z.number().int(),
    options: z.record(z.string(), z.union([z.string(), z.number()])),
    derivedOptions: z.record(z.string(), z.union([z.string(), z.number()])),
    unitPrice: z
      .string()
      .meta({ description: 'Exact unit price in cents after discount, excl. VAT (decimal string).' }),
    unitPriceCents: cents,
    publicNetCents: cents,
    discountCents: cents,
    netCents: cents,
    vatRate: z.string(),
    vatCents: cents,
    totalCents: cents,
    fileUrl: z.string().nullable(),
    fileStatus: z.enum(['ok', 'needs_conversion', 'missing']).meta({
      description:
        '`ok`: print-ready; `needs_conversion`: an EPS/AI/PS/SVG file converted to PDF by hand first; `missing`: no usable file yet (the order is AWAITING_FILE).',
    }),
  }),
  'OrderLine',
);

export const trackingSchema = openApiComponent(
  z.object({ carrier: z.string(), trackingNumber: z.string(), trackingUrl: z.string() }),
  'Tracking',
);

/** A recipient as an answer shows it (the fields the order was given). */
export const recipientViewSchema = z.object({
  name: z.string(),
  company: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  address1: z.string(),
  address2: z.string().optional(),
  postalCode: z.string(),
  city: z.string(),
  state: z.string().optional(),
  country: z.string(),
});
export const orderViewSchema = z.object({
  id: z.string(),
  state: orderStateSchema,
  status: orderStatusSchema,
  /** Open: `API`, `DASHBOARD` or a store platform; `orderSchemas` lists this service's values. */
  source: z.string(),
  externalOrderId: z.string().nullable(),
  testMode: z.boolean(),
  storeId: z.string().nullable(),
  recipient: recipientViewSchema,
  carrierContact: z
    .object({ emailSource: z.enum(['recipient', 'reseller']), phoneSource: z.enum(['recipient', 'reseller']) })
    .meta({
      description:
        "Whose e-mail and phone the carrier gets for delivery messages: the recipient's, or the reseller's when the order had none (`reseller`).",
    }),
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
    method: z
      .enum(['wallet', 'card'])
      .nullable()
      .meta({ description: 'How it was paid: `wallet`, `card`, or null while unpaid (and for test orders).' }),
    status: z.enum(['none', 'charging', 'paid', 'declined', 'refunded', 'not_charged']).meta({
      description:
        '`none`: not paid yet; `charging`: a card charge is under way; `paid`; `declined`: the card was refused; `refunded`: cancelled after payment, credited to the wallet; `not_charged`: a test order (or a zero total), accepted without payment.',
    }),
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
  duplicate: z
    .boolean()
    .meta({ description: 'true when this answers a repeat of an earlier request with the same Idempotency-Key.' }),
});

const dateTime = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z',
});

export const listOrdersQuery = z.strictObject({
  state: z
    .enum(ORDER_STATES)
    .optional()
    .meta({ description: 'Only orders in this state (see the OrderState schema for what each means).' }),
  status: z
    .enum(ORDER_STATUSES)
    .optional()
    .meta({ description: 'Only orders with this production status (see the OrderStatus schema).' }),
  source: z
    .string()
    .optional()
    .meta({ description: 'Only orders from this source: API, DASHBOARD or a store platform.' }),
  externalOrderId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Only the order(s) with this externalOrderId (your own order id), exactly.' }),
  storeId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Only the orders placed from this connected store.' }),
  createdFrom: dateTime.optional().meta({ description: 'Only orders created at or after this ISO 8601 date-time.' }),
  createdTo: dateTime.optional().meta({ description: 'Only orders created before this ISO 8601 date-time.' }),
});

/**
 * The order schemas with `source` as this service's enumeration: the spec's values and the
 * loaded connectors' platforms (`platforms`), so the OpenAPI description and the `source`
 * filter list exactly what orders can carry here.
 */
export function orderSchemas(platforms: readonly string[]) {
  const source = z.enum(orderSources(platforms)).meta({
    description:
      'Where the order came from: `API` (POST /orders), `DASHBOARD`, or the store platform it was placed in.',
  });
  return {
    orderView: openApiComponent(orderViewSchema.extend({ source }), 'Order'),
    orderResult: openApiComponent(orderResultSchema.extend({ source }), 'OrderResult'),
    listQuery: listOrdersQuery.extend({
      source: source.optional().meta({ description: 'Only orders from this source.' }),
    }),
  };
}
