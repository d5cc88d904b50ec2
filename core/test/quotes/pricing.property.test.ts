import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import {
  priceLinesForOrder,
  priceQuote,
  supportedCountries,
  type Quote,
  type ResolvedLine,
} from '../../src/modules/quotes/pricing.ts';
import { validLine } from './line-arbitraries.ts';

const catalog = loadCatalog();
const countries = supportedCountries(catalog);

const quoteInput = fc.record({
  lines: fc.array(validLine(catalog), { minLength: 1, maxLength: 5 }),
  country: fc.constantFrom(...countries),
  discountBps: fc.oneof(
    fc.integer({ min: 0, max: 10_000 }),
    fc.constantFrom(0, 1, 999, 1000, 1250, 3333, 9999, 10_000),
  ),
});

function build(input: { lines: Array<Omit<ResolvedLine, 'line'>>; country: string; discountBps: number }): Quote {
  const lines: ResolvedLine[] = input.lines.map((l, i) => ({ line: i, ...l }));
  return priceQuote({ lines, country: input.country, discountBps: input.discountBps }, catalog);
}

const RUNS = { numRuns: 400 };

describe('pricing engine (property tests over random valid lines of every product)', () => {
  it('makes totals exactly the sum of the lines plus shipping', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        const q = build(input);
        const sum = (f: (l: Quote['lines'][number]) => number) => q.lines.reduce((s, l) => s + f(l), 0);
        expect(q.totals.publicNetCents).to.equal(sum((l) => l.publicNetCents));
        expect(q.totals.discountCents).to.equal(sum((l) => l.discountCents));
        expect(q.totals.netCents).to.equal(sum((l) => l.netCents));
        expect(q.totals.shippingCents).to.equal(q.shipping.netCents);
        expect(q.totals.vatCents).to.equal(sum((l) => l.vatCents) + q.shipping.vatCents);
        expect(q.totals.totalCents).to.equal(q.totals.netCents + q.totals.shippingCents + q.totals.vatCents);
        expect(q.totals.totalCents).to.equal(sum((l) => l.totalCents) + q.shipping.totalCents);
        expect(q.shipping.totalCents).to.equal(q.shipping.netCents + q.shipping.vatCents);
        expect(q.shipping.weightGrams).to.equal(sum((l) => l.weightGrams));
      }),
      RUNS,
    );
  });

  it('never gives a discount above the public net, gives none at 0 bps and all of it at 10000 bps', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        for (const l of build(input).lines) {
          expect(l.discountCents).to.be.within(0, l.publicNetCents);
          if (input.discountBps === 0) expect(l.discountCents).to.equal(0);
          if (input.discountBps === 10_000) expect(l.netCents).to.equal(0);
        }
      }),
      RUNS,
    );
  });

  it('neither loses nor invents a cent on a line', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        for (const l of build(input).lines) {
          for (const v of [l.publicNetCents, l.discountCents, l.netCents, l.vatCents, l.totalCents, l.weightGrams])
            expect(Number.isSafeInteger(v)).to.equal(true);
          expect(l.netCents).to.equal(l.publicNetCents - l.discountCents);
          expect(l.totalCents).to.equal(l.netCents + l.vatCents);
          const exactNet = new Decimal(l.unitNetPrice).times(l.quantity);
          expect(
            exactNet.minus(l.netCents).abs().lte(0.5),
            `${l.unitNetPrice} x ${l.quantity} vs ${l.netCents}`,
          ).to.equal(true);
          const exactPublic = new Decimal(l.unitPublicPrice).times(l.quantity);
          expect(exactPublic.minus(l.publicNetCents).abs().lte(0.5)).to.equal(true);
          const exactVat = new Decimal(l.netCents).times(l.vatRate).dividedBy(100);
          expect(exactVat.minus(l.vatCents).abs().lte(0.5)).to.equal(true);
          // The discount is the reseller's basis points of the public price, within the two roundings.
          const exactDiscount = exactPublic.times(input.discountBps).dividedBy(10_000);
          expect(exactDiscount.minus(l.discountCents).abs().lte(1)).to.equal(true);
        }
      }),
      RUNS,
    );
  });

  it('keeps unit prices exact decimal strings: a run price spread over its run terminates', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        for (const l of build(input).lines) {
          expect(l.unitPublicPrice).to.match(/^\d+(\.\d+)?$/);
          expect(l.unitNetPrice).to.match(/^\d+(\.\d+)?$/);
          expect(new Decimal(l.unitNetPrice).lte(l.unitPublicPrice)).to.equal(true);
          expect(new Decimal(l.unitPublicPrice).decimalPlaces()).to.be.at.most(12);
        }
      }),
      RUNS,
    );
  });

  it('prices an order exactly like its quote: unitPrice is unitNetPrice, unitPriceCents its half-up rounding', () => {
    fc.assert(
      fc.property(quoteInput, (input) => {
        const q = build(input);
        priceLinesForOrder(q).forEach((o, i) => {
          const l = q.lines[i]!;
          expect(o).to.include({
            line: l.line,
            netCents: l.netCents,
            vatCents: l.vatCents,
            totalCents: l.totalCents,
            discountCents: l.discountCents,
            unitPrice: l.unitNetPrice,
          });
          expect(o.unitPriceCents).to.equal(
            new Decimal(l.unitNetPrice).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
          );
        });
      }),
      RUNS,
    );
  });

  it('never lets a bigger discount cost the reseller more', () => {
    fc.assert(
      fc.property(quoteInput, fc.integer({ min: 0, max: 10_000 }), (input, other) => {
        const [low, high] = [Math.min(input.discountBps, other), Math.max(input.discountBps, other)];
        const a = build({ ...input, discountBps: low });
        const b = build({ ...input, discountBps: high });
        expect(b.totals.netCents).to.be.at.most(a.totals.netCents);
      }),
      { numRuns: 200 },
    );
  });
});
