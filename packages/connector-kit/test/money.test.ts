import { expect } from 'chai';
import { currencyDigits, decimalToMinorUnits, minorUnitsToDecimal } from '../src/money.ts';

describe('money: minor units and decimal strings', () => {
  it('writes minor units as the decimal string of the currency, without float rounding', () => {
    expect(minorUnitsToDecimal(1999, 'USD')).to.equal('19.99');
    expect(minorUnitsToDecimal(5, 'EUR')).to.equal('0.05');
    expect(minorUnitsToDecimal(0, 'EUR')).to.equal('0.00');
    // 0.1 + 0.2 style errors cannot happen: 1_000_000_000_007 cents stays exact.
    expect(minorUnitsToDecimal(1_000_000_000_007, 'USD')).to.equal('10000000000.07');
    expect(minorUnitsToDecimal(1250, 'JPY')).to.equal('1250');
    expect(minorUnitsToDecimal(12345, 'BHD')).to.equal('12.345');
    expect(currencyDigits('GBP')).to.equal(2);
  });

  it('refuses what is not an amount in minor units', () => {
    expect(() => minorUnitsToDecimal(12.5, 'USD')).to.throw(RangeError);
    expect(() => minorUnitsToDecimal(-1, 'USD')).to.throw(RangeError);
  });

  it('reads a platform decimal back exactly, refusing more decimals than the currency has', () => {
    expect(decimalToMinorUnits('19.99', 'USD')).to.equal(1999);
    expect(decimalToMinorUnits(12.5, 'EUR')).to.equal(1250);
    expect(decimalToMinorUnits('7', 'USD')).to.equal(700);
    expect(decimalToMinorUnits('1250', 'JPY')).to.equal(1250);
    expect(decimalToMinorUnits('0.10', 'JPY')).to.equal(null);
    expect(decimalToMinorUnits('1.001', 'USD')).to.equal(null);
    expect(decimalToMinorUnits('1,250.00', 'USD')).to.equal(null);
  });
});
