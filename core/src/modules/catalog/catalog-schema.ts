import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { checkProduct } from './product-checks.ts';

/** The four storefront languages; every text and slug exists in each. */
export const LANGS = ['nl', 'en', 'de', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

const text = z.string().trim().min(1);
/** A text in all four languages; a missing language is a broken catalogue, not a fallback. */
export const localized = z.strictObject({ nl: text, en: text, de: text, fr: text });
/** Exact decimal (cents or a factor) as a string: a float in money is refused at load time. */
const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal string such as "12.5"');
const positiveDecimal = decimal.refine((s) => /[1-9]/.test(s), 'must be above zero');
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const slug = z.string().regex(SLUG, 'must be a lowercase slug');
const optionKey = z.string().regex(/^[a-z][a-zA-Z0-9]*$/, 'must be a camelCase key');
const count = z.number().int().positive();

/** True for n = 2^a·5^b: a price divided by such a run is a terminating decimal, so unit prices stay exact. */
export function isExactRunSize(n: number): boolean {
  let m = n;
  for (const p of [2, 5]) while (m % p === 0) m /= p;
  return m === 1;
}
const runSize = count.refine(
  isExactRunSize,
  'run sizes must be of the form 2^a x 5^b (25, 50, 100, 250, …) so unit prices are exact decimals',
);

/** A condition on the configuration: every listed option has one of the listed values. */
const condition = z
  .record(optionKey, z.array(z.string().min(1)).min(1))
  .refine((c) => Object.keys(c).length > 0, 'names no option');
export type Condition = z.output<typeof condition>;

const optionValueSchema = z.strictObject({
  value: z.string().min(1),
  labels: localized,
  /** Multiplies the run or tier price (1 = no surcharge). */
  priceFactor: positiveDecimal,
  /** Multiplies the weight per piece (a heavier paper, a bigger size). */
  weightFactor: positiveDecimal,
});

const optionSchema = z.strictObject({
  key: optionKey.refine((k) => k !== 'copies', "'copies' is reserved: quantity is the number of pieces"),
  names: localized,
  /** The product page's preferred value; availability rules may move it (see option-rules.ts). */
  default: z.string(),
  values: z.array(optionValueSchema).min(1),
});

/** First matching rule wins; the last rule has no `when`, so every configuration gets a value. */
const automaticRuleSchema = z.strictObject({
  when: z
    .strictObject({ minQuantity: count.optional(), maxQuantity: count.optional(), options: condition.optional() })
    .refine((w) => Object.keys(w).length > 0, 'an empty when: leave it out instead')
    .optional(),
  value: z.string().min(1),
});

const automaticSchema = z.strictObject({
  key: optionKey,
  names: localized,
  rules: z.array(automaticRuleSchema).min(1),
});

const quantitySchema = z.discriminatedUnion('pricedBy', [
  z.strictObject({ pricedBy: z.literal('copies'), runs: z.array(runSize).min(1) }),
  z.strictObject({
    pricedBy: z.literal('piece'),
    min: count,
    max: count,
    tiers: z.array(z.strictObject({ from: count, unitCents: positiveDecimal })).min(1),
  }),
]);

const millimetres = z.strictObject({ width: z.number().positive(), height: z.number().positive() });

const fileRequirementsSchema = z.strictObject({
  acceptedTypes: z.array(z.enum(['pdf', 'png', 'jpg'])).min(1),
  /** Trim size of the starting configuration. */
  trimSizeMm: millimetres,
  /** Trim size per value of the option that sets it, for products sold in several sizes. */
  trimSizeMmByOption: z.strictObject({ option: optionKey, values: z.record(z.string(), millimetres) }).optional(),
  bleedMm: z.number().min(0),
  minResolutionDpi: count,
  colourSpace: z.enum(['CMYK', 'RGB']),
  notes: localized,
});

/** The shape of one product file of `core/data/catalog/products/`, before the cross-field rules. */
export const productShape = z.strictObject({
  id: slug,
  category: slug,
  names: localized,
  slugs: z.strictObject({ nl: slug, en: slug, de: slug, fr: slug }),
  descriptions: localized,
  quantity: quantitySchema,
  /** Run-priced products: price of each run in cents, excl. VAT, for the base configuration. */
  runPrices: z.record(z.string().regex(/^\d+$/, 'must be a run size'), positiveDecimal).optional(),
  weightGramsPerPiece: z.number().positive(),
  options: z.array(optionSchema).min(1),
  automatic: z.array(automaticSchema),
  /** Combinations the print partner does not offer. `availability` ones also move omitted defaults. */
  constraints: z.array(
    z.strictObject({ when: condition, forbid: condition, reason: localized, availability: z.boolean().optional() }),
  ),
  /** Run-priced products: a matching rule narrows the runs that can be made. */
  runRules: z.array(z.strictObject({ when: condition, runs: z.array(runSize).min(1) })),
  /** Valid combinations the partner still cannot price. */
  unpriceable: z.array(z.strictObject({ when: condition, reason: localized })),
  fileRequirements: fileRequirementsSchema,
});

export type Product = z.output<typeof productShape>;
/** A product file with its cross-field rules (product-checks.ts). */
export const productSchema = productShape.superRefine(checkProduct);
export type ProductOption = Product['options'][number];
export type AutomaticOption = Product['automatic'][number];

/** `categories.json`: storefront categories with names in four languages. */
export const categorySchema = z
  .array(z.strictObject({ slug, names: localized }))
  .min(1)
  .superRefine((cats, ctx) => {
    const seen = new Set<string>();
    cats.forEach((c, i) => {
      if (seen.has(c.slug))
        ctx.addIssue({ code: 'custom', path: [i, 'slug'], message: `category '${c.slug}' is listed twice` });
      seen.add(c.slug);
    });
  });
export type Category = z.output<typeof categorySchema>[number];

/** `countries.json`: standard VAT rate and shipping zone per destination, and each zone's weight brackets. */
export const countriesSchema = z
  .strictObject({
    countries: z.record(
      z.string().regex(/^[A-Z]{2}$/, 'must be an ISO-2 code'),
      z.strictObject({ vatRate: decimal, zone: z.string().min(1) }),
    ),
    shippingZones: z.record(
      z.string(),
      z.strictObject({
        brackets: z.array(z.strictObject({ upToGrams: count, cents: decimal })).min(1),
        perExtra10kgCents: positiveDecimal,
      }),
    ),
  })
  .superRefine((c, ctx) => {
    for (const [code, country] of Object.entries(c.countries)) {
      if (!c.shippingZones[country.zone])
        ctx.addIssue({
          code: 'custom',
          path: ['countries', code, 'zone'],
          message: `unknown shipping zone '${country.zone}'`,
        });
    }
    for (const [zone, table] of Object.entries(c.shippingZones)) {
      table.brackets.forEach((b, i) => {
        const prev = table.brackets[i - 1];
        if (prev && (b.upToGrams <= prev.upToGrams || new Decimal(b.cents).lt(prev.cents))) {
          ctx.addIssue({
            code: 'custom',
            path: ['shippingZones', zone, 'brackets', i],
            message: 'brackets must rise in weight and never get cheaper',
          });
        }
      });
    }
  });
export type Countries = z.output<typeof countriesSchema>;
