import type { ErrorDetail } from '../../http/api-error.ts';
import type { Product } from '../catalog/catalog-schema.ts';

export type OptionValues = Record<string, string>;

export type ConfigurationResult =
  | { ok: true; options: OptionValues; derivedOptions: OptionValues }
  | { ok: false; problems: ErrorDetail[] };

type Condition = Record<string, string[]>;

const matches = (when: Condition, config: OptionValues): boolean => Object.entries(when).every(([k, vs]) => config[k] !== undefined && vs.includes(config[k]!));

/** The constraints `config` breaks (a `when` that holds and a `forbid` that is hit). */
function violations(product: Product, config: OptionValues) {
  return product.constraints.filter((c) => matches(c.when, config) && Object.entries(c.forbid).some(([k, vs]) => config[k] !== undefined && vs.includes(config[k]!)));
}

/** Values of `key` that break no constraint with the rest of `config` as it is. */
function compatibleValues(product: Product, config: OptionValues, key: string): string[] {
  const option = product.options.find((o) => o.key === key)!;
  return option.values.map((v) => v.value).filter((value) => violations(product, { ...config, [key]: value }).length === 0);
}

/** The runs that can be made for this configuration (every matching run rule narrows them). */
export function availableRuns(product: Product, config: OptionValues): number[] {
  if (product.quantity.pricedBy !== 'copies') return [];
  let runs = product.quantity.runs;
  for (const rule of product.runRules) if (matches(rule.when, config)) runs = runs.filter((r) => rule.runs.includes(r));
  return runs;
}

function nearest(runs: number[], quantity: number): number | undefined {
  return [...runs].sort((a, b) => Math.abs(a - quantity) - Math.abs(b - quantity) || b - a)[0];
}

/**
 * Spec §4 option and quantity rules for one line: only customer option keys (automatic ones
 * are refused with the allowed keys), only allowed values, defaults for omitted options (a
 * default the chosen options rule out moves to the first available value, as the product page
 * does), no conflicting combination, a run that exists for this configuration (never a price
 * for another run), and `options.copies` only when it equals quantity. Every problem is reported.
 * The options returned resolve again to themselves.
 */
export function resolveConfiguration(
  product: Product,
  /** `quantity` undefined: check the options alone (a reseller product's fixed options). */
  input: { quantity?: number | undefined; options?: Record<string, unknown> | undefined },
  line: number,
): ConfigurationResult {
  const problems: ErrorDetail[] = [];
  const customerKeys = product.options.map((o) => o.key);
  const automaticKeys = new Set(product.automatic.map((a) => a.key));
  const explicit: OptionValues = {};

  for (const [key, raw] of Object.entries(input.options ?? {})) {
    if (key === 'copies') {
      if (input.quantity !== undefined && String(raw) !== String(input.quantity)) {
        problems.push({ line, field: 'options.copies', code: 'copies_mismatch', message: `options.copies (${String(raw)}) must equal quantity (${input.quantity}); quantity is always the number of pieces, so leave copies out.` });
      }
      continue;
    }
    const option = product.options.find((o) => o.key === key);
    if (!option) {
      const why = automaticKeys.has(key) ? `'${key}' is set by the service and cannot be sent` : `'${key}' is not an option of ${product.id}`;
      problems.push({ line, field: `options.${key}`, code: 'invalid_options', message: `${why}; allowed keys: ${customerKeys.join(', ')}.`, allowedKeys: customerKeys });
      continue;
    }
    const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
    const allowed = option.values.map((v) => v.value);
    if (value === undefined || !allowed.includes(value)) {
      problems.push({ line, field: `options.${key}`, code: 'invalid_option_value', message: `${JSON.stringify(raw)} is not a value of '${key}'; allowed: ${allowed.join(', ')}.`, allowedValues: allowed });
      continue;
    }
    explicit[key] = value;
  }

  // Defaults for the rest, in page order; a default ruled out by what is chosen moves to the first available value.
  const config: OptionValues = { ...explicit };
  for (const option of product.options) {
    if (config[option.key] !== undefined) continue;
    const candidates = [option.default, ...option.values.map((v) => v.value).filter((v) => v !== option.default)];
    config[option.key] = candidates.find((c) => violations(product, { ...config, [option.key]: c }).length === 0) ?? option.default;
  }
  const ordered: OptionValues = Object.fromEntries(product.options.map((o) => [o.key, config[o.key]!]));

  for (const c of violations(product, ordered)) {
    const keys = [...new Set([...Object.keys(c.when), ...Object.keys(c.forbid)])];
    const forbidKey = Object.keys(c.forbid).find((k) => c.forbid[k]!.includes(ordered[k]!))!;
    problems.push({
      line,
      field: `options.${forbidKey}`,
      code: 'option_conflict',
      message: `${c.reason.en} (${keys.map((k) => `${k}=${ordered[k]}`).join(', ')})`,
      conflicts: keys.map((k) => ({ option: k, value: ordered[k]!, compatibleValues: compatibleValues(product, ordered, k) })),
    });
  }

  const q = product.quantity;
  if (input.quantity !== undefined && q.pricedBy === 'copies') {
    const runs = availableRuns(product, ordered);
    if (!runs.includes(input.quantity)) {
      const near = nearest(runs, input.quantity);
      problems.push({
        line,
        field: 'quantity',
        code: 'run_unavailable',
        message: `A run of ${input.quantity} cannot be made for this configuration${near !== undefined ? `; the nearest available quantity is ${near}` : ''}. Available runs: ${runs.join(', ')}.`,
        ...(near !== undefined ? { nearestQuantity: near } : {}),
        allowedValues: runs,
      });
    }
  } else if (input.quantity !== undefined && q.pricedBy === 'piece' && (input.quantity < q.min || input.quantity > q.max)) {
    problems.push({
      line,
      field: 'quantity',
      code: 'quantity_out_of_range',
      message: `Quantity must be between ${q.min} and ${q.max} for ${product.id}.`,
      nearestQuantity: Math.min(Math.max(input.quantity, q.min), q.max),
      min: q.min,
      max: q.max,
    });
  }

  for (const rule of product.unpriceable) {
    if (matches(rule.when, ordered)) {
      problems.push({
        line,
        field: `options.${Object.keys(rule.when).join(',')}`,
        code: 'unpriceable_configuration',
        message: rule.reason.en,
        conflicts: Object.keys(rule.when).map((k) => ({ option: k, value: ordered[k]!, compatibleValues: product.options.find((o) => o.key === k)!.values.map((v) => v.value).filter((v) => !rule.when[k]!.includes(v)) })),
      });
    }
  }

  if (problems.length > 0) return { ok: false, problems };
  const derivedOptions: OptionValues = Object.fromEntries(
    product.automatic.map((a) => [a.key, (a.rules.find((r) => !r.when || (input.quantity ?? 0) >= r.when.minQuantity) ?? a.rules[a.rules.length - 1]!).value]),
  );
  return { ok: true, options: ordered, derivedOptions };
}
