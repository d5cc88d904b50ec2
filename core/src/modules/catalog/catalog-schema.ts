import { z } from 'zod';

export const LANGS = ['nl', 'en', 'de', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

const text = z.string().trim().min(1);
export const localized = z.strictObject({ nl: text, en: text, de: text, fr: text });
/** Exact decimal (cents or a factor) as a string: never a float. */
const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal string such as "12.5"');
const slug = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a lowercase slug');
/** Run sizes of the form 2^a·5^b keep run price / run size a terminating decimal: unit prices stay exact. */
const runSize = z
  .number()
  .int()
  .positive()
  .refine((n) => {
    let m = n;
    for (const p of [2, 5]) while (m % p === 0) m /= p;
    return m === 1;
  }, 'run sizes must be of the form 2^a x 5^b (25, 50, 100, 250, …) so unit prices are exact decimals');

/** Conditions on the configuration: every listed option must have one of the listed values. */
const condition = z.record(z.string(), z.array(z.string()).min(1));

const optionSchema = z.strictObject({
  key: z.string().regex(/^[a-z][a-zA-Z0-9]*$/),
  names: localized,
  default: z.string(),
  values: z
    .array(z.strictObject({ value: z.string().min(1), labels: localized, priceFactor: decimal, weightFactor: decimal }))
    .min(1),
});

const automaticSchema = z.strictObject({
  key: z.string().regex(/^[a-z][a-zA-Z0-9]*$/),
  names: localized,
  rules: z.array(z.strictObject({ when: z.strictObject({ minQuantity: z.number().int().positive() }).optional(), value: z.string().min(1) })).min(1),
});

const quantitySchema = z.discriminatedUnion('pricedBy', [
  z.strictObject({ pricedBy: z.literal('copies'), runs: z.array(runSize).min(1) }),
  z.strictObject({
    pricedBy: z.literal('piece'),
    min: z.number().int().positive(),
    max: z.number().int().positive(),
    tiers: z.array(z.strictObject({ from: z.number().int().positive(), unitCents: decimal })).min(1),
  }),
]);

export const productSchema = z
  .strictObject({
    id: slug,
    category: slug,
    names: localized,
    slugs: localized.refine((s) => Object.values(s).every((v) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(v)), 'slugs must be lowercase slugs'),
    descriptions: localized,
    quantity: quantitySchema,
    runPrices: z.record(z.string().regex(/^\d+$/), decimal).optional(),
    weightGramsPerPiece: z.number().positive(),
    options: z.array(optionSchema).min(1),
    automatic: z.array(automaticSchema),
    constraints: z.array(z.strictObject({ when: condition, forbid: condition, reason: localized, availability: z.boolean().optional() })),
    runRules: z.array(z.strictObject({ when: condition, runs: z.array(runSize).min(1) })),
    unpriceable: z.array(z.strictObject({ when: condition, reason: localized })),
    fileRequirements: z.strictObject({
      acceptedTypes: z.array(z.enum(['pdf', 'png', 'jpg'])).min(1),
      trimSizeMm: z.strictObject({ width: z.number().positive(), height: z.number().positive() }),
      bleedMm: z.number().min(0),
      minResolutionDpi: z.number().int().positive(),
      colourSpace: z.enum(['CMYK', 'RGB']),
      notes: localized,
    }),
  })
  .superRefine((p, ctx) => {
    const keys = new Map(p.options.map((o) => [o.key, new Set(o.values.map((v) => v.value))]));
    for (const [i, o] of p.options.entries()) {
      if (!o.values.some((v) => v.value === o.default)) ctx.addIssue({ code: 'custom', path: ['options', i, 'default'], message: `default '${o.default}' is not one of the values of '${o.key}'` });
      if (new Set(o.values.map((v) => v.value)).size !== o.values.length) ctx.addIssue({ code: 'custom', path: ['options', i, 'values'], message: `'${o.key}' lists a value twice` });
    }
    for (const a of p.automatic) if (keys.has(a.key)) ctx.addIssue({ code: 'custom', path: ['automatic'], message: `'${a.key}' is both a customer and an automatic option` });
    const checkCondition = (c: Record<string, string[]>, path: (string | number)[]) => {
      for (const [key, values] of Object.entries(c)) {
        const allowed = keys.get(key);
        if (!allowed) ctx.addIssue({ code: 'custom', path: [...path, key], message: `names an unknown option '${key}'` });
        else for (const v of values) if (!allowed.has(v)) ctx.addIssue({ code: 'custom', path: [...path, key], message: `names an unknown value '${v}' of '${key}'` });
      }
    };
    p.constraints.forEach((c, i) => {
      checkCondition(c.when, ['constraints', i, 'when']);
      checkCondition(c.forbid, ['constraints', i, 'forbid']);
    });
    p.runRules.forEach((r, i) => checkCondition(r.when, ['runRules', i, 'when']));
    p.unpriceable.forEach((r, i) => checkCondition(r.when, ['unpriceable', i, 'when']));
    if (p.quantity.pricedBy === 'copies') {
      const runs = p.quantity.runs;
      if (!p.runPrices) ctx.addIssue({ code: 'custom', path: ['runPrices'], message: 'run-priced products need runPrices' });
      else for (const run of runs) if (!p.runPrices[String(run)]) ctx.addIssue({ code: 'custom', path: ['runPrices', String(run)], message: `no price for the run of ${run}` });
      p.runRules.forEach((r, i) => r.runs.forEach((run) => !runs.includes(run) && ctx.addIssue({ code: 'custom', path: ['runRules', i, 'runs'], message: `run ${run} is not in quantity.runs` })));
    } else {
      if (p.quantity.min > p.quantity.max) ctx.addIssue({ code: 'custom', path: ['quantity', 'min'], message: 'min is above max' });
      if (p.quantity.tiers[0]?.from !== p.quantity.min) ctx.addIssue({ code: 'custom', path: ['quantity', 'tiers', 0, 'from'], message: 'the first tier must start at quantity.min' });
    }
  });

export type Product = z.output<typeof productSchema>;
export type ProductOption = Product['options'][number];

export const categorySchema = z.array(z.strictObject({ slug, names: localized }));
export type Category = z.output<typeof categorySchema>[number];

export const countriesSchema = z.strictObject({
  countries: z.record(z.string().regex(/^[A-Z]{2}$/), z.strictObject({ vatRate: decimal, zone: z.string() })),
  shippingZones: z.record(
    z.string(),
    z.strictObject({ brackets: z.array(z.strictObject({ upToGrams: z.number().int().positive(), cents: decimal })).min(1), perExtra10kgCents: decimal }),
  ),
});
export type Countries = z.output<typeof countriesSchema>;
