import { LRUCache } from 'lru-cache';
import type { ErrorDetail } from '../../kernel/refusal.ts';
import type { Condition, Product } from '../catalog/catalog-schema.ts';
import {
  brokenConstraints,
  deriveAutomaticOptions,
  matches,
  startingConfiguration,
  unpriceableRules,
  type Configuration,
} from '../catalog/option-rules.ts';

export { availableRuns } from '../catalog/option-rules.ts';

/** Option key -> value. Every catalogue value is a string; a number sent for one ("85" as 85) is normalised. */
export type OptionValues = Configuration;

/** A line's configuration: complete customer options and the automatic ones, or every problem found. */
export type ConfigurationResult =
  | { ok: true; options: OptionValues; derivedOptions: OptionValues }
  | { ok: false; problems: ErrorDetail[] };

const mentions = (keys: Set<string>, ...conditions: Condition[]) =>
  conditions.some((c) => Object.keys(c).some((k) => keys.has(k)));

/** `options.copies` equals `quantity` when it is the same whole number, sent as a number or a digit string. */
const sameCount = (raw: unknown, quantity: number) =>
  (typeof raw === 'number' && raw === quantity) ||
  (typeof raw === 'string' && /^\d+$/.test(raw) && Number(raw) === quantity);

/**
 * Spec §4 option rules 1-6 and quantity rules 1-4 for one line: only customer option keys
 * (automatic or unknown ones are refused with the allowed keys), only allowed values, defaults
 * for omitted options (availability may move a default, see startingConfiguration), no
 * combination the partner does not offer or cannot price, a run that can be made for this
 * configuration (never a price for another run), a piece quantity within min and max, and
 * `options.copies` only when it equals quantity (it is then dropped). Every problem is reported,
 * one ErrorDetail each. The options returned resolve again to themselves, so a quote line's
 * options can be sent back unchanged.
 *
 * @param input.quantity undefined checks the options alone (a reseller product's fixed options).
 * @param line the line's index in the request, copied into every problem.
 */
export function resolveConfiguration(
  product: Product,
  input: { quantity?: number | undefined; options?: Record<string, unknown> | undefined },
  line: number,
): ConfigurationResult {
  const key = resolutionKey(input);
  if (key === undefined) return resolve(product, input, line);
  let resolutions = resolvedConfigurations.get(product);
  if (!resolutions) resolvedConfigurations.set(product, (resolutions = new LRUCache({ max: 1000 })));
  const known = resolutions.get(key);
  if (known) return known;
  const result = resolve(product, input, line);
  // Only what resolved: a problem names its line, and a broken request is not worth keeping.
  if (!result.ok) return result;
  const kept = Object.freeze({
    ok: true as const,
    options: Object.freeze(result.options),
    derivedOptions: Object.freeze(result.derivedOptions),
  });
  resolutions.set(key, kept);
  return kept;
}

/**
 * Resolved configurations by product and what was sent, kept like the prices they lead to
 * (the catalogue is fixed while the process runs, and resellers send the same few again and
 * again). Frozen: every line that sent the same shares them.
 */
const resolvedConfigurations = new WeakMap<Product, LRUCache<string, ConfigurationResult & { ok: true }>>();

/**
 * The cache key of a line's quantity and options exactly as sent: every key and value with its
 * length before it, so no two different inputs share a key; none for anything but strings and
 * numbers (such input is refused, and not worth keeping).
 */
function resolutionKey(input: {
  quantity?: number | undefined;
  options?: Record<string, unknown> | undefined;
}): string | undefined {
  let key = input.quantity === undefined ? 'q' : `q${input.quantity}`;
  for (const k in input.options) {
    if (!Object.hasOwn(input.options, k)) continue;
    const v = input.options[k];
    const text = typeof v === 'string' ? `s${v}` : typeof v === 'number' ? `n${v}` : undefined;
    if (text === undefined) return undefined;
    key += `|${k.length}:${k}${text.length}:${text}`;
  }
  return key;
}

function resolve(
  product: Product,
  input: { quantity?: number | undefined; options?: Record<string, unknown> | undefined },
  line: number,
): ConfigurationResult {
  const problems: ErrorDetail[] = [];
  const customerKeys = product.options.map((o) => o.key);
  const automaticKeys = new Set(product.automatic.map((a) => a.key));
  const explicit: Configuration = {};
  // Options whose sent value was refused: rules naming them are not judged on a value nobody chose.
  const refused = new Set<string>();

  for (const [key, raw] of Object.entries(input.options ?? {})) {
    if (key === 'copies') {
      if (input.quantity !== undefined && !sameCount(raw, input.quantity)) {
        problems.push({
          line,
          field: 'options.copies',
          code: 'copies_mismatch',
          message: `options.copies (${JSON.stringify(raw)}) must equal quantity (${input.quantity}); quantity is always the number of pieces, so leave copies out.`,
        });
      }
      continue;
    }
    const option = product.options.find((o) => o.key === key);
    if (!option) {
      const why = automaticKeys.has(key)
        ? `'${key}' is set by the service and cannot be sent`
        : `'${key}' is not an option of ${product.id}`;
      problems.push({
        line,
        field: `options.${key}`,
        code: 'invalid_options',
        message: `${why}; allowed keys: ${customerKeys.join(', ')}.`,
        allowedKeys: customerKeys,
      });
      continue;
    }
    const value =
      typeof raw === 'string' || (typeof raw === 'number' && Number.isFinite(raw)) ? String(raw) : undefined;
    const allowed = option.values.map((v) => v.value);
    if (value === undefined || !allowed.includes(value)) {
      refused.add(key);
      problems.push({
        line,
        field: `options.${key}`,
        code: 'invalid_option_value',
        message: `${JSON.stringify(raw)} is not a value of '${key}'; allowed: ${allowed.join(', ')}.`,
        allowedValues: allowed,
      });
      continue;
    }
    explicit[key] = value;
  }

  const config = startingConfiguration(product, explicit);
  const show = (k: string) => `${k}=${config[k]}${explicit[k] === undefined ? ' (default)' : ''}`;
  const valuesOf = (key: string) => product.options.find((o) => o.key === key)!.values.map((v) => v.value);
  /** The values of `key` that, with everything else as it is, break no rule naming `key`. */
  const compatibleValues = (key: string, extra: (c: Configuration) => boolean = () => true) =>
    valuesOf(key).filter((v) => {
      const changed = { ...config, [key]: v };
      return extra(changed) && brokenConstraints(product, changed).every((c) => !(key in c.when) && !(key in c.forbid));
    });
  // Point the field at what the customer sent, not at a default the service filled in.
  const fieldKey = (keys: string[]) => keys.find((k) => explicit[k] !== undefined) ?? keys[0]!;

  for (const c of brokenConstraints(product, config)) {
    if (mentions(refused, c.when, c.forbid)) continue;
    const keys = [...new Set([...Object.keys(c.when), ...Object.keys(c.forbid)])];
    const hit = Object.keys(c.forbid).filter((k) => c.forbid[k]!.includes(config[k]!));
    problems.push({
      line,
      field: `options.${fieldKey(hit)}`,
      code: 'option_conflict',
      message: `${c.reason.en} (${keys.map(show).join(', ')})`,
      conflicts: keys.map((k) => ({ option: k, value: config[k]!, compatibleValues: compatibleValues(k) })),
    });
  }

  if (input.quantity !== undefined) {
    const problem = quantityProblem(product, config, input.quantity, refused, line);
    if (problem) problems.push(problem);
  }

  for (const rule of unpriceableRules(product, config)) {
    if (mentions(refused, rule.when)) continue;
    const keys = Object.keys(rule.when);
    const priceable = (changed: Configuration) => unpriceableRules(product, changed).length === 0;
    problems.push({
      line,
      field: `options.${fieldKey(keys)}`,
      code: 'unpriceable_configuration',
      message: `${rule.reason.en} (${keys.map(show).join(', ')})`,
      conflicts: keys.map((k) => ({ option: k, value: config[k]!, compatibleValues: compatibleValues(k, priceable) })),
    });
  }

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, options: config, derivedOptions: deriveAutomaticOptions(product, config, input.quantity) };
}

/** Quantity rules 1, 2 and 4 (runs) and the piece range; undefined when the quantity is fine. */
function quantityProblem(
  product: Product,
  config: Configuration,
  quantity: number,
  refused: Set<string>,
  line: number,
): ErrorDetail | undefined {
  const q = product.quantity;
  // NaN or Infinity never reach here through the HTTP layer; still, report a real number.
  const target = Number.isFinite(quantity) ? quantity : 0;
  if (q.pricedBy === 'piece') {
    if (Number.isSafeInteger(quantity) && quantity >= q.min && quantity <= q.max) return undefined;
    return {
      line,
      field: 'quantity',
      code: 'quantity_out_of_range',
      message: `Quantity must be a whole number from ${q.min} to ${q.max} for ${product.id}.`,
      nearestQuantity: Math.min(Math.max(Math.round(target), q.min), q.max),
      min: q.min,
      max: q.max,
    };
  }
  // Run rules naming a refused option are left out: they would judge a value nobody chose.
  let runs = q.runs;
  for (const rule of product.runRules)
    if (!mentions(refused, rule.when) && matches(rule.when, config)) runs = runs.filter((r) => rule.runs.includes(r));
  if (runs.includes(quantity)) return undefined;
  // Nearest by distance; on a tie the bigger run, so the customer is never short of pieces.
  const nearest = [...runs].sort((a, b) => Math.abs(a - target) - Math.abs(b - target) || b - a)[0];
  return {
    line,
    field: 'quantity',
    code: 'run_unavailable',
    message:
      nearest === undefined
        ? `No run can be made for this configuration of ${product.id}.`
        : `A run of ${quantity} cannot be made for this configuration of ${product.id}; the nearest available quantity is ${nearest}. Available runs: ${runs.join(', ')}.`,
    ...(nearest !== undefined ? { nearestQuantity: nearest } : {}),
    allowedValues: runs,
  };
}
