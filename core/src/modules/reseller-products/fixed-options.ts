import type { ErrorDetail } from '../../kernel/refusal.ts';
import type { Product } from '../catalog/catalog-schema.ts';
import { resolveConfiguration, type OptionValues } from '../quotes/configuration.ts';

/**
 * A reseller product's options, checked exactly like quote options (keys, values, conflicts,
 * combinations that cannot be priced; the quantity comes with each order line) and stored
 * with the defaults added.
 */
export function validateFixedOptions(
  product: Product,
  options: Record<string, unknown>,
): { ok: true; options: OptionValues } | { ok: false; problems: ErrorDetail[] } {
  const { copies: _copies, ...rest } = options;
  const result = resolveConfiguration(product, { options: rest }, 0);
  if (result.ok) return { ok: true, options: result.options };
  return { ok: false, problems: result.problems.map(({ line: _line, ...p }): ErrorDetail => p) };
}
