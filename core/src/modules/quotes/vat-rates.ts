import type { Decimal } from 'decimal.js';
import type { ErrorDetail } from '../../kernel/refusal.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { Exact } from './money.ts';

/** The 27 EU member states; the catalogue must ship to each, at its standard VAT rate. */
export const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
] as const;

/** Every destination country (ISO-2), sorted: the EU, plus GB, CH and NO. Rates live in `countries.json`. */
export function supportedCountries(catalog: Catalog): string[] {
  let list = sortedCountries.get(catalog);
  if (!list)
    sortedCountries.set(catalog, (list = Object.freeze(Object.keys(catalog.countries.countries).sort()) as string[]));
  return list;
}

const sortedCountries = new WeakMap<Catalog, string[]>();

/** The standard VAT rate of `country` in percent (e.g. 21, 8.1). Throws for a country we do not ship to. */
export function vatRatePercent(catalog: Catalog, country: string): Decimal {
  let rates = parsedRates.get(catalog);
  if (!rates) parsedRates.set(catalog, (rates = new Map()));
  let rate = rates.get(country);
  if (!rate) {
    const entry = Object.hasOwn(catalog.countries.countries, country)
      ? catalog.countries.countries[country]
      : undefined;
    if (!entry) throw new RangeError(`unsupported country ${country}`);
    rates.set(country, (rate = new Exact(entry.vatRate)));
  }
  return rate;
}

/** Each country's rate parsed once (decimals are immutable; the catalogue does not change). */
const parsedRates = new WeakMap<Catalog, Map<string, Decimal>>();

/**
 * The 422 detail for a destination we do not ship to; the HTTP layer lists the supported
 * countries from `allowedValues`.
 */
export function unsupportedCountryProblem(
  country: string,
  catalog: Catalog,
): ErrorDetail & { code: 'unsupported_country'; allowedValues: string[] } {
  const allowed = supportedCountries(catalog);
  return {
    field: 'country',
    code: 'unsupported_country',
    message: `We do not ship to '${country}'. Supported countries: ${allowed.join(', ')}.`,
    allowedValues: allowed,
  };
}
