import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { availableRuns, resolveConfiguration } from '../../src/modules/quotes/configuration.ts';
import { priceQuote, supportedCountries, type ResolvedLine } from '../../src/modules/quotes/pricing.ts';

const catalog = loadCatalog();
const countries = supportedCountries(catalog);

/** A random valid line: a product, random option values, a quantity that exists; invalid combinations are filtered out. */
const validLine = fc
  .record({
    productIndex: fc.nat({ max: catalog.products.length - 1 }),
    picks: fc.array(fc.nat({ max: 10 }), { minLength: 6, maxLength: 6 }),
    quantityPick: fc.nat({ max: 10_000 }),
  })
  .map(({ productIndex, picks, quantityPick }) => {
    const product = catalog.products[productIndex]!;
    const options = Object.fromEntries(product.options.map((o, i) => [o.key, o.values[picks[i]! % o.values.length]!.value]));
    const q = product.quantity;
    let quantity: number;
    if (q.pricedBy === 'copies') {
      const runs = availableRuns(product, options);
      quantity = runs[quantityPick % Math.max(1, runs.length)] ?? q.runs[0]!;
    } else quantity = q.min + (quantityPick % (q.max - q.min + 1));
    return { product, options, quantity };
  })
  .map((l) => ({ ...l, resolved: resolveConfiguration(l.product, { quantity: l.quantity, options: l.options }, 0) }))
  .filter((l) => l.resolved.ok)
  .map((l) => l as GeneratedLine);

const quoteInput = fc.record({
  lines: fc.array(validLine, { minLength: 1, maxLength: 4 }),
  country: fc.constantFrom(...countries),
  discountBps: fc.integer({ min: 0, max: 5000 }),
});

type GeneratedLine = { product: ResolvedLine['product']; quantity: number; resolved: { options: ResolvedLine['options']; derivedOptions: ResolvedLine['derivedOptions'] } };

function build(input: { lines: GeneratedLine[]; country: string; discountBps: number }) {
  const lines: ResolvedLine[] = input.lines.map((l, i) => ({ line: i, product: l.product, quantity: l.quantity, options: l.resolved.options, derivedOptions: l.resolved.derivedOptions }));
  return priceQuote({ lines, country: input.country, discountBps: input.discountBps }, catalog);
}

describe('pricing engine (property tests)', () => {
  it('makes totals exactly the sum of their parts', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        const q = build(input);
        const sum = (f: (l: (typeof q.lines)[number]) => number) => q.lines.reduce((s, l) => s + f(l), 0);
        expect(q.totals.publicNetCents).to.equal(sum((l) => l.publicNetCents));
        expect(q.totals.discountCents).to.equal(sum((l) => l.discountCents));
        expect(q.totals.netCents).to.equal(sum((l) => l.netCents));
        expect(q.totals.vatCents).to.equal(sum((l) => l.vatCents) + q.shipping.vatCents);
        expect(q.totals.shippingCents).to.equal(q.shipping.netCents);
        expect(q.totals.totalCents).to.equal(q.totals.netCents + q.totals.shippingCents + q.totals.vatCents);
        expect(q.totals.totalCents).to.equal(sum((l) => l.totalCents) + q.shipping.totalCents);
      }),
      { numRuns: 300 },
    );
  });

  it('never gives a discount above the public net, and gives none at 0 bps', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        const q = build(input);
        for (const l of q.lines) {
          expect(l.discountCents).to.be.at.least(0);
          expect(l.discountCents).to.be.at.most(l.publicNetCents);
          if (input.discountBps === 0) expect(l.discountCents).to.equal(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('neither loses nor invents a cent on a line', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        const q = build(input);
        for (const l of q.lines) {
          for (const v of [l.publicNetCents, l.discountCents, l.netCents, l.vatCents, l.totalCents]) expect(Number.isSafeInteger(v)).to.equal(true);
          expect(l.netCents).to.equal(l.publicNetCents - l.discountCents);
          expect(l.totalCents).to.equal(l.netCents + l.vatCents);
          const exactNet = new Decimal(l.unitNetPrice).times(l.quantity);
          expect(exactNet.minus(l.netCents).abs().lte(0.5), `${l.unitNetPrice} x ${l.quantity} vs ${l.netCents}`).to.equal(true);
          const exactVat = new Decimal(l.netCents).times(l.vatRate).dividedBy(100);
          expect(exactVat.minus(l.vatCents).abs().lte(0.5)).to.equal(true);
          expect(l.unitNetPrice).to.match(/^\d+(\.\d+)?$/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('prices a run, not the pieces: every run-priced line equals its run price after options', () => {
    fc.assert(
      fc.property(validLine, (l) => {
        if (l.product.quantity.pricedBy !== 'copies') return;
        const q = build({ lines: [l], country: 'NL', discountBps: 0 });
        const unit = new Decimal(q.lines[0]!.unitPublicPrice);
        expect(unit.times(l.quantity).decimalPlaces()).to.be.at.most(8);
      }),
      { numRuns: 200 },
    );
  });

  it('charges the destination VAT rate: 21 % NL, 19 % DE, 8.1 % CH, 20 % GB', () => {
    const product = catalog.find('business-cards')!;
    const r = resolveConfiguration(product, { quantity: 250 }, 0);
    if (!r.ok) throw new Error('default business cards must resolve');
    const line: ResolvedLine = { line: 0, product, quantity: 250, options: r.options, derivedOptions: r.derivedOptions };
    for (const [country, rate] of [['NL', '21'], ['DE', '19'], ['CH', '8.1'], ['GB', '20'], ['NO', '25']]) {
      expect(priceQuote({ lines: [line], country: country!, discountBps: 1000 }, catalog).lines[0]!.vatRate).to.equal(rate);
    }
    expect(countries).to.include.members(['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'GB', 'CH', 'NO']);
  });
});
