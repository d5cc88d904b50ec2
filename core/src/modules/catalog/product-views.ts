import type { Lang, Product } from './catalog-schema.ts';

/** A product in the list: names and options in one language, slugs in all four. */
export function toProductSummary(p: Product, lang: Lang) {
  return {
    id: p.id,
    slugs: p.slugs,
    name: p.names[lang],
    category: p.category,
    quantity:
      p.quantity.pricedBy === 'copies'
        ? { pricedBy: 'copies' as const, runs: p.quantity.runs }
        : { pricedBy: 'piece' as const, min: p.quantity.min, max: p.quantity.max },
    options: p.options.map((o) => ({
      key: o.key,
      name: o.names[lang],
      default: o.default,
      values: o.values.map((v) => ({ value: v.value, label: v.labels[lang] })),
    })),
  };
}

/** The product page: options with defaults, how quantity works, file requirements. */
export function toProductDetail(p: Product, lang: Lang) {
  return {
    ...toProductSummary(p, lang),
    description: p.descriptions[lang],
    quantity:
      p.quantity.pricedBy === 'copies'
        ? {
            pricedBy: 'copies' as const,
            runs: p.quantity.runs,
            rule: 'quantity is the number of pieces and must be one of the runs; options.copies must not be sent (or must equal quantity)',
          }
        : { pricedBy: 'piece' as const, min: p.quantity.min, max: p.quantity.max, volumeTiersFrom: p.quantity.tiers.map((t) => t.from) },
    automaticOptions: p.automatic.map((a) => ({ key: a.key, name: a.names[lang] })),
    availabilityNotes: p.constraints.map((c) => c.reason[lang]),
    weightGramsPerPiece: p.weightGramsPerPiece,
    fileRequirements: {
      acceptedTypes: p.fileRequirements.acceptedTypes,
      convertibleTypes: ['eps', 'ai', 'ps', 'svg'],
      trimSizeMm: p.fileRequirements.trimSizeMm,
      bleedMm: p.fileRequirements.bleedMm,
      minResolutionDpi: p.fileRequirements.minResolutionDpi,
      colourSpace: p.fileRequirements.colourSpace,
      notes: p.fileRequirements.notes[lang],
    },
  };
}
