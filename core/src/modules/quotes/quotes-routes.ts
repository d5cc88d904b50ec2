import { z } from 'zod';
import { EXAMPLE_QUOTE, EXAMPLE_QUOTE_REQUEST } from '../../web/api-examples.ts';
import { openApiComponent } from '../../web/openapi-component.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { countrySchema, lineInputSchema } from '../orders/orders-schemas.ts';
import type { QuotesService } from './quotes-service.ts';

const optionValues = z.record(z.string(), z.union([z.string(), z.number()]));
const cents = z.number().int();

export const quoteSchema = openApiComponent(
  z
    .object({
      country: z.string(),
      currency: z.literal('EUR'),
      lines: z.array(
        openApiComponent(
          z.looseObject({
            line: z.number().int(),
            productId: z.string(),
            quantity: z.number().int(),
            options: optionValues.meta({
              description: 'Customer options used, defaults added; may be sent back unchanged.',
            }),
            derivedOptions: optionValues.meta({
              description: 'Set by the service (print process, sheet, bundling, packaging); read-only.',
            }),
            unitPublicPrice: z.string(),
            unitNetPrice: z
              .string()
              .meta({ description: 'Exact unit price in cents after discount, excl. VAT; sub-cent digits are kept.' }),
            publicNetCents: cents,
            discountCents: cents,
            netCents: cents,
            vatRate: z.string(),
            vatCents: cents,
            totalCents: cents,
            weightGrams: z.number().int(),
          }),
          'QuoteLine',
        ),
      ),
      shipping: z.looseObject({ netCents: cents, vatCents: cents, totalCents: cents, weightGrams: z.number().int() }),
      totals: z.looseObject({
        publicNetCents: cents,
        discountCents: cents,
        netCents: cents,
        shippingCents: cents,
        vatCents: cents,
        totalCents: cents,
      }),
    })
    .meta({
      description:
        'A price in euro cents with the reseller discount, the destination VAT and shipping. Line totals are authoritative; the totals are their exact sums plus shipping.',
    }),
  'Quote',
);

/** POST /quotes. */
export function quotesRoutes(deps: { quotes: QuotesService }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/quotes',
      operationId: 'createQuote',
      summary: 'Price lines for a destination country',
      description:
        'Discount, VAT (destination country rate) and shipping included. Line totals are authoritative; the totals are the exact sums of the lines and shipping. Every problem is one entry in error.details (line, field, code, and allowedKeys / allowedValues / nearestQuantity / conflicts).',
      tags: ['Quotes'],
      auth: 'apiKey',
      scope: 'quotes:write',
      body: openApiComponent(
        z.strictObject({
          lines: z.array(lineInputSchema).min(1).max(100),
          country: countrySchema.meta({
            description:
              'Destination country, ISO 3166-1 alpha-2 (NL, BE, DE, …): its VAT rate and shipping zone apply.',
          }),
        }),
        'QuoteRequest',
      ),
      bodyExample: EXAMPLE_QUOTE_REQUEST,
      responses: {
        200: { description: 'The quote', schema: z.object({ data: quoteSchema }), example: { data: EXAMPLE_QUOTE } },
      },
      errors: [
        {
          status: 422,
          code: 'invalid_options',
          description:
            'Unknown or automatic option key (allowedKeys); also invalid_option_value, option_conflict, copies_mismatch, run_unavailable (nearestQuantity), quantity_out_of_range, unpriceable_configuration, unknown_product, unknown_sku, inactive_reseller_product, unsupported_country.',
        },
      ],
      handle: async ({ auth, body }) => {
        const { quote } = await deps.quotes.price(auth, {
          lines: body.lines,
          country: body.country,
          discountBps: auth.discountBps,
        });
        return { status: 200, body: { data: quote } };
      },
    }),
  ];
}
