import type { Condition, Product } from './catalog-schema.ts';

/** Option key -> chosen value, for customer options or automatic ones. */
export type Configuration = Record<string, string>;

type Constraint = Product['constraints'][number];

/** True when every option the condition names is set to one of its listed values. */
export function matches(when: Condition, config: Configuration): boolean {
  return Object.entries(when).every(([key, values]) => {
    const value = config[key];
    return value !== undefined && values.includes(value);
  });
}

/** The constraints `config` breaks: their `when` holds and their `forbid` is hit. */
export function brokenConstraints(
  product: Product,
  config: Configuration,
  opts: { availabilityOnly?: boolean } = {},
): Constraint[] {
  return product.constraints.filter(
    (c) =>
      (!opts.availabilityOnly || c.availability === true) && matches(c.when, config) && matchesAny(c.forbid, config),
  );
}

function matchesAny(forbid: Condition, config: Configuration): boolean {
  return Object.entries(forbid).some(([key, values]) => {
    const value = config[key];
    return value !== undefined && values.includes(value);
  });
}

/**
 * Fills every option missing from `chosen`, in product-page order, the way the page builds its
 * starting configuration: an omitted option gets its default, unless an availability rule
 * (a constraint marked `availability`) rules the default out given what is already set; then it
 * moves to the first value, in listed order, that availability allows. Ordinary conflicts never
 * move a default: the customer hears about them (option_conflict) instead of silently paying for
 * another paper. Options in `chosen` are never changed, so a resolved configuration fills to itself.
 *
 * @example
 * // posters: the preferred paper (satin250) is printed up to A3 only, the default size is A2
 * startingConfiguration(posters) // { size: 'a2', paper: 'satin170' }
 * startingConfiguration(posters, { size: 'a3' }) // { size: 'a3', paper: 'satin250' }
 */
export function startingConfiguration(product: Product, chosen: Configuration = {}): Configuration {
  const config: Configuration = { ...chosen };
  // Without availability rules every default stands (most products): no candidate to weigh.
  const weighAvailability = product.constraints.some((c) => c.availability === true);
  for (const option of product.options) {
    if (config[option.key] !== undefined) continue;
    if (!weighAvailability) {
      config[option.key] = option.default;
      continue;
    }
    const others = option.values.map((v) => v.value).filter((v) => v !== option.default);
    const available = [option.default, ...others].find(
      (candidate) =>
        brokenConstraints(product, { ...config, [option.key]: candidate }, { availabilityOnly: true }).length === 0,
    );
    config[option.key] = available ?? option.default;
  }
  // Page order, whatever order the caller sent: resolved options read like the product page.
  return Object.fromEntries(product.options.map((o) => [o.key, config[o.key]!]));
}

/** Options whose starting value can be moved by an availability rule (posters' paper, for one). */
export function availabilityAdjustedOptions(product: Product): string[] {
  return product.options
    .map((o) => o.key)
    .filter((key) => product.constraints.some((c) => c.availability === true && key in c.forbid));
}

/** The runs that can be made for a configuration: every matching run rule narrows the product's runs. */
export function availableRuns(product: Product, config: Configuration): number[] {
  if (product.quantity.pricedBy !== 'copies') return [];
  let runs = product.quantity.runs;
  for (const rule of product.runRules) if (matches(rule.when, config)) runs = runs.filter((r) => rule.runs.includes(r));
  return runs;
}

/** The unpriceable rules a configuration hits. */
export function unpriceableRules(product: Product, config: Configuration): Product['unpriceable'] {
  return product.unpriceable.filter((rule) => matches(rule.when, config));
}

/**
 * The automatic options (print process, sheet format, bundling, packaging): for each, the first
 * rule whose quantity bounds and option condition hold. Without a quantity (a reseller product's
 * fixed options) rules with quantity bounds are skipped.
 */
export function deriveAutomaticOptions(product: Product, config: Configuration, quantity?: number): Configuration {
  const derived: Configuration = {};
  for (const auto of product.automatic) {
    const rule = auto.rules.find(({ when }) => {
      if (!when) return true;
      if (when.minQuantity !== undefined && (quantity === undefined || quantity < when.minQuantity)) return false;
      if (when.maxQuantity !== undefined && (quantity === undefined || quantity > when.maxQuantity)) return false;
      return when.options === undefined || matches(when.options, config);
    });
    // The schema makes the last rule unconditional, so a rule is always found.
    derived[auto.key] = (rule ?? auto.rules[auto.rules.length - 1]!).value;
  }
  return derived;
}
