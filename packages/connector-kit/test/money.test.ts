import { expect } from 'chai';
import { currencyExponent, formatMinorUnits, parseMinorUnits } from '../src/money.ts';

describe('prices in minor units and as platforms write them', () => {
  it('writes minor units as a decimal string by the currency’s exponent, without floats', () => {
    expect(formatMinorUnits(2495, 'EUR')).to.equal('24.95');
    expect(formatMinorUnits(5, 'EUR')).to.equal('0.05');
    expect(formatMinorUnits(100_000_001, 'USD')).to.equal('1000000.01');
    expect(formatMinorUnits(1500, 'JPY')).to.equal('1500');
    expect(formatMinorUnits(12_345, 'KWD')).to.equal('12.345');
    expect(formatMinorUnits(-250, 'EUR')).to.equal('-2.50');
    expect(() => formatMinorUnits(12.5, 'EUR')).to.throw(RangeError);
  });

  it('reads a decimal price back in minor units, refusing more digits than the currency has', () => {
    expect(parseMinorUnits('24.95', 'EUR')).to.equal(2495);
    expect(parseMinorUnits('19.9', 'EUR')).to.equal(1990);
    expect(parseMinorUnits('7', 'EUR')).to.equal(700);
    expect(parseMinorUnits('0.10', 'EUR')).to.equal(10);
    expect(parseMinorUnits('1500', 'JPY')).to.equal(1500);
    expect(parseMinorUnits('24.951', 'EUR')).to.equal(null);
    expect(parseMinorUnits('24,95', 'EUR')).to.equal(null);
    expect(parseMinorUnits('', 'EUR')).to.equal(null);
    expect(currencyExponent('EUR')).to.equal(2);
  });
});
