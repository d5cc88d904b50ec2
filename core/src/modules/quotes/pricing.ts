import { Decimal } from 'decimal.js';
import type { Catalog } from '../catalog/catalog.ts';
import type { Product } from '../catalog/catalog-schema.ts';
import type { OptionValues } from './configuration.ts';

/** A line whose product, options and quantity have passed every rule. */
export interface ResolvedLine {
  line: number;
  product: Product;
  quantity: number;
  options: OptionValues;
  derivedOptions: OptionValues;
}

export interface QuoteLine {
  line: number;
  productId: string;
  quantity: number;
  options: OptionValues;
  derivedOptions: OptionValues;
  /** Exact public unit price in cents, excl. VAT. */
  unitPublicPrice: string;
  /** Exact unit price in cents after the reseller's discount, excl. VAT (sub-cent digits kept). */
  unitNetPrice: string;
  publicNetCents: number;
  discountCents: number;
  netCents: number;
  vatRate: string;
  vatCents: number;
  totalCents: number;
  weightGrams: number;
}

export interface Quote {
  country: string;
  currency: 'EUR';
  lines: QuoteLine[];
  shipping: { netCents: number; vatCents: number; totalCents: number; weightGrams: number; zone: string };
  totals: { publicNetCents: number; discountCents: number; netCents: number; shippingCents: number; vatCents: number; totalCents: number };
}

const cents = (d: Decimal): number => d.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();

const factor = (product: Product, options: OptionValues, field: 'priceFactor' | 'weightFactor'): Decimal =>
  product.options.reduce((acc, o) => acc.times(o.values.find((v) => v.value === options[o.key])?.[field] ?? '1'), new Decimal(1));

/** The public unit price (cents, exact): the run's price spread over the run, or the volume tier's piece price. */
export function unitPublicPrice(product: Product, options: OptionValues, quantity: number): Decimal {
  const q = product.quantity;
  if (q.pricedBy === 'copies') {
    const run = product.runPrices?.[String(quantity)];
    if (!run) throw new RangeError(`${product.id} has no run of ${quantity}`);
    return new Decimal(run).times(factor(product, options, 'priceFactor')).dividedBy(quantity);
  }
  const tier = [...q.tiers].reverse().find((t) => quantity >= t.from) ?? q.tiers[0]!;
  return new Decimal(tier.unitCents).times(factor(product, options, 'priceFactor'));
}

export function lineWeightGrams(product: Product, options: OptionValues, quantity: number): number {
  return new Decimal(product.weightGramsPerPiece).times(factor(product, options, 'weightFactor')).times(quantity).ceil().toNumber();
}

/** Every country we ship to, sorted. */
export function supportedCountries(catalog: Catalog): string[] {
  return Object.keys(catalog.countries.countries).sort();
}

export function shippingNetCents(catalog: Catalog, country: string, weightGrams: number): { cents: number; zone: string } {
  const { zone } = catalog.countries.countries[country]!;
  const table = catalog.countries.shippingZones[zone]!;
  const bracket = table.brackets.find((b) => weightGrams <= b.upToGrams);
  if (bracket) return { cents: cents(new Decimal(bracket.cents)), zone };
  const last = table.brackets[table.brackets.length - 1]!;
  const extra = Math.ceil((weightGrams - last.upToGrams) / 10_000);
  return { cents: cents(new Decimal(last.cents).plus(new Decimal(table.perExtra10kgCents).times(extra))), zone };
}

/**
 * Prices resolved lines for a destination: public price, the reseller's discount on it
 * (excl. VAT), VAT at the destination's standard rate, shipping by zone and weight. Each amount
 * is rounded once, half up, per line; totals are exact sums of the lines and shipping.
 */
export function priceQuote(input: { lines: ResolvedLine[]; country: string; discountBps: number }, catalog: Catalog): Quote {
  const country = catalog.countries.countries[input.country];
  if (!country) throw new RangeError(`unsupported country ${input.country}`);
  const vatRate = new Decimal(country.vatRate);
  const keep = new Decimal(10_000 - input.discountBps).dividedBy(10_000);

  const lines: QuoteLine[] = input.lines.map((l) => {
    const unitPublic = unitPublicPrice(l.product, l.options, l.quantity);
    const unitNet = unitPublic.times(keep);
    const publicNetCents = cents(unitPublic.times(l.quantity));
    const netCents = cents(unitNet.times(l.quantity));
    const vatCents = cents(new Decimal(netCents).times(vatRate).dividedBy(100));
    return {
      line: l.line,
      productId: l.product.id,
      quantity: l.quantity,
      options: l.options,
      derivedOptions: l.derivedOptions,
      unitPublicPrice: unitPublic.toFixed(),
      unitNetPrice: unitNet.toFixed(),
      publicNetCents,
      discountCents: publicNetCents - netCents,
      netCents,
      vatRate: vatRate.toFixed(),
      vatCents,
      totalCents: netCents + vatCents,
      weightGrams: lineWeightGrams(l.product, l.options, l.quantity),
    };
  });

  const weightGrams = lines.reduce((s, l) => s + l.weightGrams, 0);
  const ship = shippingNetCents(catalog, input.country, weightGrams);
  const shippingVat = cents(new Decimal(ship.cents).times(vatRate).dividedBy(100));
  const sum = (f: (l: QuoteLine) => number) => lines.reduce((s, l) => s + f(l), 0);
  const netCents = sum((l) => l.netCents);
  const vatCents = sum((l) => l.vatCents) + shippingVat;
  return {
    country: input.country,
    currency: 'EUR',
    lines,
    shipping: { netCents: ship.cents, vatCents: shippingVat, totalCents: ship.cents + shippingVat, weightGrams, zone: ship.zone },
    totals: {
      publicNetCents: sum((l) => l.publicNetCents),
      discountCents: sum((l) => l.discountCents),
      netCents,
      shippingCents: ship.cents,
      vatCents,
      totalCents: netCents + ship.cents + vatCents,
    },
  };
}
