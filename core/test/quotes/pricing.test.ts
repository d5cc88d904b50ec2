import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { loadCatalog } from '../../src/modules/catalog/catalog.ts';
import { resolveConfiguration } from '../../src/modules/quotes/configuration.ts';
import {
  priceQuote,
  supportedCountries,
  unitPublicPrice,
  unsupportedCountryProblem,
  type ResolvedLine,
} from '../../src/modules/quotes/pricing.ts';
import { shippingNetCents } from '../../src/modules/quotes/shipping-rates.ts';
import { EU_MEMBER_STATES } from '../../src/modules/quotes/vat-rates.ts';

const catalog = loadCatalog();

function line(id: string, quantity: number, options: Record<string, string> = {}, index = 0): ResolvedLine {
  const product = catalog.find(id)!;
  const r = resolveConfiguration(product, { quantity, options }, index);
  if (!r.ok) throw new Error(`${id} must resolve: ${JSON.stringify(r.problems)}`);
  return { line: index, product, quantity, options: r.options, derivedOptions: r.derivedOptions };
}

describe('pricing engine (worked examples)', () => {
  it('prices a run as a whole: 250 default A5 flyers cost the run price, 11.98 cents a flyer', () => {
    const q = priceQuote({ lines: [line('flyers-a5', 250)], country: 'NL', discountBps: 0 }, catalog);
    expect(q.lines[0]).to.include({
      unitPublicPrice: '11.98',
      unitNetPrice: '11.98',
      publicNetCents: 2995,
      discountCents: 0,
      netCents: 2995,
      vatRate: '21',
      vatCents: 629,
      totalCents: 3624,
    });
  });

  it('keeps sub-cent unit prices exact and rounds the line once, half up', () => {
    // 16995 cents / 10000 flyers = 1.6995; 10 % off = 1.52955 a flyer; 15295.5 cents -> 15296.
    const q = priceQuote({ lines: [line('flyers-a6', 10_000)], country: 'NL', discountBps: 1000 }, catalog);
    expect(q.lines[0]).to.include({
      unitPublicPrice: '1.6995',
      unitNetPrice: '1.52955',
      publicNetCents: 16995,
      netCents: 15296,
      discountCents: 1699,
    });
  });

  it('applies option surcharges as factors of the run price', () => {
    // business cards 500: 2895 x 1.15 (mc400) x 1.45 (soft touch) = 4827.4125 cents.
    const product = catalog.find('business-cards')!;
    const price = unitPublicPrice(
      product,
      { paper: 'mc400', sides: '4/4', finish: 'soft-touch', corners: 'square' },
      500,
    );
    expect(price.times(500).toFixed()).to.equal('4827.4125');
  });

  it('uses the volume tier of the quantity for piece-priced products', () => {
    const posters = catalog.find('posters')!;
    const options = { size: 'a2', paper: 'satin170' };
    expect([1, 9, 10, 49, 50, 100, 500].map((n) => unitPublicPrice(posters, options, n).toFixed())).to.deep.equal([
      '1450',
      '1450',
      '1150',
      '1150',
      '890',
      '725',
      '725',
    ]);
  });

  it('charges the destination’s standard VAT rate on lines and on shipping', () => {
    const expected: Record<string, string> = {
      NL: '21',
      BE: '21',
      DE: '19',
      FR: '20',
      LU: '17',
      HU: '27',
      FI: '25.5',
      EE: '24',
      RO: '21',
      SK: '23',
      IE: '23',
      MT: '18',
      CY: '19',
      CH: '8.1',
      GB: '20',
      NO: '25',
    };
    for (const [country, rate] of Object.entries(expected)) {
      const q = priceQuote({ lines: [line('business-cards', 250)], country, discountBps: 1000 }, catalog);
      expect(q.lines[0]!.vatRate, country).to.equal(rate);
      expect(q.shipping.vatCents, country).to.equal(
        new Decimal(q.shipping.netCents).times(rate).div(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
      );
    }
  });

  it('ships to every EU member state plus GB, CH and NO, and nowhere else', () => {
    expect(supportedCountries(catalog)).to.have.members([...EU_MEMBER_STATES, 'GB', 'CH', 'NO']);
  });

  it('describes an unsupported country as a 422 detail listing the supported ones', () => {
    const p = unsupportedCountryProblem('US', catalog);
    expect(p).to.include({ field: 'country', code: 'unsupported_country' });
    expect(p.allowedValues).to.deep.equal(supportedCountries(catalog));
    expect(p.message).to.contain("'US'");
    expect(() => priceQuote({ lines: [line('posters', 1)], country: 'US', discountBps: 0 }, catalog)).to.throw(
      RangeError,
    );
    expect(() => priceQuote({ lines: [line('posters', 1)], country: 'toString', discountBps: 0 }, catalog)).to.throw(
      RangeError,
    );
  });

  it('refuses a discount outside 0-10000 basis points', () => {
    for (const bps of [-1, 10_001, 12.5, Number.NaN]) {
      expect(
        () => priceQuote({ lines: [line('posters', 1)], country: 'NL', discountBps: bps }, catalog),
        String(bps),
      ).to.throw(RangeError);
    }
  });

  it('ships by zone and total weight, with a surcharge per started 10 kg above the heaviest bracket', () => {
    expect(shippingNetCents(catalog, 'NL', 800)).to.deep.equal({ cents: 495, zone: 'domestic' });
    expect(shippingNetCents(catalog, 'NL', 1000)).to.deep.equal({ cents: 495, zone: 'domestic' });
    expect(shippingNetCents(catalog, 'NL', 1001)).to.deep.equal({ cents: 695, zone: 'domestic' });
    expect(shippingNetCents(catalog, 'DE', 20_000).cents).to.equal(2395);
    expect(shippingNetCents(catalog, 'DE', 20_001).cents).to.equal(2395 + 1195);
    expect(shippingNetCents(catalog, 'DE', 30_001).cents).to.equal(2395 + 2 * 1195);
    expect(shippingNetCents(catalog, 'ES', 500).zone).to.equal('eu-far');
    expect(shippingNetCents(catalog, 'CH', 500)).to.deep.equal({ cents: 1695, zone: 'europe-non-eu' });
  });

  it('weighs each line by its options and ships the sum', () => {
    // 5000 A5 flyers on 250 g: 4.3 g x 1.85 x 5000 = 39775 g; 2 A0 posters on photo paper: 45 x 4 x 1.18 x 2 = 424.8 ->
    // 425 g.
    const q = priceQuote(
      {
        lines: [line('flyers-a5', 5000, { paper: 'mc250' }, 0), line('posters', 2, { size: 'a0' }, 1)],
        country: 'BE',
        discountBps: 1500,
      },
      catalog,
    );
    expect(q.lines.map((l) => l.weightGrams)).to.deep.equal([39_775, 425]);
    expect(q.shipping).to.include({ weightGrams: 40_200, zone: 'eu-near', netCents: 2395 + 3 * 1195 });
  });
});
