import type { Lang, Product } from './catalog-schema.ts';
import { availabilityAdjustedOptions, startingConfiguration } from './option-rules.ts';

/** One customer option as the product page shows it. */
export interface OptionView {
  key: string;
  name: string;
  /** The value an omitted option gets in the page's starting configuration. */
  default: string;
  values: Array<{ value: string; label: string }>;
  /** Present (true) when an availability rule can move this option's starting value: send it explicitly. */
  adjustedByAvailability?: true;
}

/** A product in the list (spec §2 Product). */
export interface ProductSummary {
  id: string;
  slugs: Product['slugs'];
  name: string;
  category: string;
  quantity: { pricedBy: 'copies'; runs: number[] } | { pricedBy: 'piece'; min: number; max: number };
  options: OptionView[];
}

type Condition = Record<string, string[]>;

/**
 * The product page: the summary plus description, quantity rules in full, restrictions, weight and file requirements.
 */
export interface ProductDetail extends Omit<ProductSummary, 'quantity'> {
  description: string;
  quantity:
    | { pricedBy: 'copies'; runs: number[]; runRestrictions: Array<{ when: Condition; runs: number[] }>; rule: string }
    | { pricedBy: 'piece'; min: number; max: number; tiers: Array<{ from: number; to: number }>; rule: string };
  /** What a line gets when it sends no options: the defaults after availability checks. */
  startingConfiguration: Record<string, string>;
  automaticOptions: Array<{ key: string; name: string }>;
  /** Combinations the partner does not offer (422 option_conflict) or cannot price (422 unpriceable_configuration). */
  restrictions: Array<{
    kind: 'not_offered' | 'unavailable' | 'unpriceable';
    when: Condition;
    forbid?: Condition;
    reason: string;
  }>;
  /** Human-readable reasons of the restrictions, in the chosen language. */
  availabilityNotes: string[];
  weightGramsPerPiece: number;
  fileRequirements: {
    acceptedTypes: string[];
    convertibleTypes: string[];
    trimSizeMm: { width: number; height: number };
    trimSizesMm?: { option: string; values: Record<string, { width: number; height: number }> };
    bleedMm: number;
    minResolutionDpi: number;
    colourSpace: 'CMYK' | 'RGB';
    notes: string;
  };
}

/** A product in the list: names and options in one language, slugs in all four. */
export function toProductSummary(p: Product, lang: Lang): ProductSummary {
  const start = startingConfiguration(p);
  const adjusted = new Set(availabilityAdjustedOptions(p));
  return {
    id: p.id,
    slugs: { ...p.slugs },
    name: p.names[lang],
    category: p.category,
    quantity:
      p.quantity.pricedBy === 'copies'
        ? { pricedBy: 'copies', runs: [...p.quantity.runs] }
        : { pricedBy: 'piece', min: p.quantity.min, max: p.quantity.max },
    options: p.options.map((o) => ({
      key: o.key,
      name: o.names[lang],
      default: start[o.key]!,
      values: o.values.map((v) => ({ value: v.value, label: v.labels[lang] })),
      ...(adjusted.has(o.key) ? { adjustedByAvailability: true as const } : {}),
    })),
  };
}

/** The product page: options with defaults, how quantity works, restrictions, file requirements. */
export function toProductDetail(p: Product, lang: Lang): ProductDetail {
  const q = p.quantity;
  const quantity: ProductDetail['quantity'] =
    q.pricedBy === 'copies'
      ? {
          pricedBy: 'copies',
          runs: [...q.runs],
          runRestrictions: p.runRules.map((r) => ({ when: r.when, runs: [...r.runs] })),
          rule: 'quantity is the number of pieces and must be a run that can be made for the configuration; options.copies must not be sent (or must equal quantity)',
        }
      : {
          pricedBy: 'piece',
          min: q.min,
          max: q.max,
          tiers: q.tiers.map((t, i) => ({ from: t.from, to: (q.tiers[i + 1]?.from ?? q.max + 1) - 1 })),
          rule: 'quantity is the number of pieces, between min and max; the piece price falls with each volume tier',
        };
  const by = p.fileRequirements.trimSizeMmByOption;
  return {
    ...toProductSummary(p, lang),
    description: p.descriptions[lang],
    quantity,
    startingConfiguration: startingConfiguration(p),
    automaticOptions: p.automatic.map((a) => ({ key: a.key, name: a.names[lang] })),
    restrictions: [
      ...p.constraints.map((c) => ({
        kind: c.availability ? ('unavailable' as const) : ('not_offered' as const),
        when: c.when,
        forbid: c.forbid,
        reason: c.reason[lang],
      })),
      ...p.unpriceable.map((u) => ({ kind: 'unpriceable' as const, when: u.when, reason: u.reason[lang] })),
    ],
    availabilityNotes: [...p.constraints.map((c) => c.reason[lang]), ...p.unpriceable.map((u) => u.reason[lang])],
    weightGramsPerPiece: p.weightGramsPerPiece,
    fileRequirements: {
      acceptedTypes: [...p.fileRequirements.acceptedTypes],
      // Spec §4 POST /orders rule 6: converted to PDF before production when the URL ends in the extension.
      convertibleTypes: ['eps', 'ai', 'ps', 'svg'],
      trimSizeMm: p.fileRequirements.trimSizeMm,
      ...(by ? { trimSizesMm: { option: by.option, values: by.values } } : {}),
      bleedMm: p.fileRequirements.bleedMm,
      minResolutionDpi: p.fileRequirements.minResolutionDpi,
      colourSpace: p.fileRequirements.colourSpace,
      notes: p.fileRequirements.notes[lang],
    },
  };
}
