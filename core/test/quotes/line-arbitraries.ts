import fc from 'fast-check';
import type { Catalog } from '../../src/modules/catalog/catalog.ts';
import type { Product } from '../../src/modules/catalog/catalog-schema.ts';
import { availableRuns, startingConfiguration } from '../../src/modules/catalog/option-rules.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';
import type { ResolvedLine } from '../../src/modules/quotes/pricing.ts';

/** Options as a customer might send them: each option left out or set to any of its values. */
export function sentOptions(product: Product): fc.Arbitrary<Record<string, string>> {
  const entries = product.options.map((o) =>
    fc.option(fc.constantFrom(...o.values.map((v) => v.value)), { nil: undefined }),
  );
  return fc.tuple(...entries).map((picked) => {
    const sent: Record<string, string> = {};
    picked.forEach((value, i) => {
      if (value !== undefined) sent[product.options[i]!.key] = value;
    });
    return sent;
  });
}

/** A quantity that exists for the configuration the options resolve to (a run, or a piece count in range). */
function quantityFor(product: Product, sent: Record<string, string>, pick: number): number {
  const q = product.quantity;
  if (q.pricedBy === 'piece') return q.min + (pick % (q.max - q.min + 1));
  const runs = availableRuns(product, startingConfiguration(product, sent));
  return runs[pick % Math.max(1, runs.length)] ?? q.runs[0]!;
}

/** A random line of any product that passes every rule: the generator skips the combinations the partner refuses. */
export function validLine(catalog: Catalog): fc.Arbitrary<Omit<ResolvedLine, 'line'>> {
  return fc
    .constantFrom(...catalog.products)
    .chain((product) =>
      fc.record({ product: fc.constant(product), sent: sentOptions(product), pick: fc.nat({ max: 100_000 }) }),
    )
    .map(({ product, sent, pick }) => {
      const quantity = quantityFor(product, sent, pick);
      return { product, quantity, resolved: resolveConfiguration(product, { quantity, options: sent }, 0) };
    })
    .filter((l) => l.resolved.ok)
    .map(({ product, quantity, resolved }) => {
      if (!resolved.ok) throw new Error('filtered above');
      return { product, quantity, options: resolved.options, derivedOptions: resolved.derivedOptions };
    });
}

/** Every way to send a product's options: each option left out or set to one of its values. */
export function* everySentConfiguration(product: Product): Generator<Record<string, string>> {
  const walk = function* (i: number, acc: Record<string, string>): Generator<Record<string, string>> {
    const option = product.options[i];
    if (!option) {
      yield { ...acc };
      return;
    }
    yield* walk(i + 1, acc);
    for (const v of option.values) yield* walk(i + 1, { ...acc, [option.key]: v.value });
  };
  yield* walk(0, {});
}
