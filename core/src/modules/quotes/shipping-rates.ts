import type { Catalog } from '../catalog/catalog.ts';
import { Exact, roundCents } from './money.ts';

/** Each started 10 kg above the heaviest bracket costs the zone's `perExtra10kgCents`. */
const EXTRA_STEP_GRAMS = 10_000;

/**
 * Net shipping (cents, excl. VAT) to `country` for a parcel of `weightGrams`: the first weight
 * bracket of the country's zone that holds the weight, or the heaviest bracket plus a surcharge
 * per started 10 kg above it.
 */
export function shippingNetCents(
  catalog: Catalog,
  country: string,
  weightGrams: number,
): { cents: number; zone: string } {
  const entry = Object.hasOwn(catalog.countries.countries, country) ? catalog.countries.countries[country] : undefined;
  if (!entry) throw new RangeError(`unsupported country ${country}`);
  const table = catalog.countries.shippingZones[entry.zone]!;
  const bracket = table.brackets.find((b) => weightGrams <= b.upToGrams);
  if (bracket) return { cents: roundCents(new Exact(bracket.cents)), zone: entry.zone };
  const heaviest = table.brackets[table.brackets.length - 1]!;
  const steps = Math.ceil((weightGrams - heaviest.upToGrams) / EXTRA_STEP_GRAMS);
  return {
    cents: roundCents(new Exact(heaviest.cents).plus(new Exact(table.perExtra10kgCents).times(steps))),
    zone: entry.zone,
  };
}
