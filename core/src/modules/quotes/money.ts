import { Decimal } from 'decimal.js';

/**
 * decimal.js with room to spare: the default keeps 20 significant digits, which could round an
 * exact unit price (run price x option factors / run size) before anyone asked for cents.
 */
export const Exact: typeof Decimal = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

/** Whole cents, half up. Called once per line amount, so every rounding is visible and counted once. */
export function roundCents(amount: Decimal): number {
  const cents = amount.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  if (!Number.isSafeInteger(cents)) throw new RangeError(`amount ${amount.toFixed()} is out of range`);
  return cents;
}
