import { expect } from 'chai';
import fc from 'fast-check';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import type { Product } from '../../src/modules/catalog/catalog-schema.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';
import { everySentConfiguration, sentOptions } from './line-arbitraries.ts';

const catalog = loadCatalog();
const CODES = [
  'invalid_options',
  'invalid_option_value',
  'option_conflict',
  'copies_mismatch',
  'run_unavailable',
  'quantity_out_of_range',
  'unpriceable_configuration',
];

const quantitiesOf = (p: Product): number[] =>
  p.quantity.pricedBy === 'copies' ? p.quantity.runs : [p.quantity.min, p.quantity.tiers.at(-1)!.from, p.quantity.max];

describe('option resolution (exhaustive and property tests)', () => {
  it('resolves every way of sending every product’s options either completely or with precise problems', () => {
    let resolved = 0;
    for (const product of catalog.products) {
      const keys = product.options.map((o) => o.key);
      for (const sent of everySentConfiguration(product)) {
        for (const quantity of quantitiesOf(product)) {
          const r = resolveConfiguration(product, { quantity, options: sent }, 7);
          const where = `${product.id} ${quantity} ${JSON.stringify(sent)}`;
          if (r.ok) {
            resolved += 1;
            expect(Object.keys(r.options), where).to.deep.equal(keys);
            for (const [k, v] of Object.entries(sent)) expect(r.options[k], where).to.equal(v);
            expect(Object.keys(r.derivedOptions), where).to.deep.equal(product.automatic.map((a) => a.key));
            // Spec §2: a quote line's options may be sent back unchanged, with or without copies = quantity.
            expect(resolveConfiguration(product, { quantity, options: r.options }, 7), where).to.deep.equal(r);
            expect(
              resolveConfiguration(product, { quantity, options: { ...r.options, copies: quantity } }, 7),
              where,
            ).to.deep.equal(r);
            continue;
          }
          expect(r.problems, where).to.not.be.empty;
          for (const p of r.problems) {
            expect(p.line, where).to.equal(7);
            expect(CODES, where).to.include(p.code);
            expect(p.field, where).to.match(/^(options\.\w+|quantity)$/);
            if (p.code === 'run_unavailable' && p.nearestQuantity !== undefined) {
              expect(p.allowedValues, where).to.include(p.nearestQuantity);
              const again = resolveConfiguration(product, { quantity: p.nearestQuantity, options: sent }, 7);
              expect(again.ok || again.problems.every((x) => x.code !== 'run_unavailable'), where).to.equal(true);
            }
          }
        }
      }
    }
    expect(resolved).to.be.greaterThan(1000);
  });

  it('resolves random options again unchanged (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...catalog.products).chain((p) => fc.tuple(fc.constant(p), sentOptions(p))),
        ([product, sent]) => {
          const first = resolveConfiguration(product, { options: sent }, 0);
          if (!first.ok) return;
          expect(resolveConfiguration(product, { options: first.options }, 0)).to.deep.equal(first);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on hostile input and answers with problems only from the known codes', () => {
    const anyValue = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.object(),
      fc.array(fc.string()),
    );
    const key = fc.oneof(
      fc.constantFrom('paper', 'size', 'finish', 'copies', 'printProcess', '__proto__', 'constructor', 'toString'),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...catalog.products),
        fc.dictionary(key, anyValue),
        fc.oneof(fc.integer(), fc.double()),
        (product, options, quantity) => {
          const r = resolveConfiguration(product, { quantity, options }, 1);
          if (r.ok) return;
          for (const p of r.problems) {
            expect(CODES).to.include(p.code);
            if (p.nearestQuantity !== undefined) expect(Number.isSafeInteger(p.nearestQuantity)).to.equal(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
