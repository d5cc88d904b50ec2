/**
 * How many decimals an amount in `currency` has (ISO 4217's minor unit, as the runtime's CLDR
 * data gives it: USD 2, JPY 0, BHD 3).
 */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * An amount in minor units (cents) as the decimal string platforms take (`1250`, `EUR` ->
 * `"12.50"`; `1250`, `JPY` -> `"1250"`): string arithmetic, so no float ever rounds it.
 *
 * @example
 * minorUnitsToDecimal(1999, 'USD'); // "19.99"
 */
export function minorUnitsToDecimal(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`not an amount in minor units: ${amount}`);
  const digits = currencyDigits(currency);
  if (digits === 0) return String(amount);
  const padded = String(amount).padStart(digits + 1, '0');
  return `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/**
 * A platform's decimal amount (`"12.5"`, `12.5`, `"1,250.00"` is refused) in minor units of
 * `currency`, exactly; null when it is not a plain non-negative decimal or has more decimals
 * than the currency.
 */
export function decimalToMinorUnits(amount: string | number, currency: string): number | null {
  const text = typeof amount === 'number' ? String(amount) : amount.trim();
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return null;
  const digits = currencyDigits(currency);
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return null;
  const minor = Number(`${m[1]}${fraction.padEnd(digits, '0')}`);
  return Number.isSafeInteger(minor) ? minor : null;
}
