/**
 * Minor units (cents) as the decimal string platforms take for a price (`1999` EUR -> `19.99`,
 * `1500` JPY -> `1500`, `12345` KWD -> `12.345`), by the currency's ISO 4217 exponent as Intl
 * knows it: integer arithmetic on the digits, never a float.
 *
 * @example
 * formatMinorUnits(2450, 'EUR'); // '24.50'
 */
export function formatMinorUnits(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`a price in minor units is an integer, not ${minor}`);
  const exponent = currencyExponent(currency);
  const digits = Math.abs(minor).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${minor < 0 ? '-' : ''}${whole}${fraction}`;
}

/** A platform's decimal price string in minor units (`'19.9'` EUR -> `1990`); null when it is not a plain decimal of at most the currency's digits. */
export function parseMinorUnits(price: string, currency: string): number | null {
  const exponent = currencyExponent(currency);
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(price.trim());
  if (!m || (m[3] ?? '').replace(/0+$/, '').length > exponent) return null;
  const minor = Number(`${m[2]}${(m[3] ?? '').padEnd(exponent, '0').slice(0, exponent)}`);
  return m[1] ? -minor : minor;
}

/** The number of minor-unit digits of an ISO 4217 currency (2 for EUR, 0 for JPY, 3 for KWD). */
export function currencyExponent(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}
