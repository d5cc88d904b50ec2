import type { Decimal } from 'decimal.js';
import { LRUCache } from 'lru-cache';
import type { Catalog } from '../catalog/catalog.ts';
import type { Product } from '../catalog/catalog-schema.ts';
import type { OptionValues } from './configuration.ts';
import { Exact, roundCents } from './money.ts';
import { shippingNetCents } from './shipping-rates.ts';
import { vatRatePercent } from './vat-rates.ts';

export { supportedCountries, unsupportedCountryProblem } from './vat-rates.ts';

/** A line whose product, options and quantity have passed every rule (resolveConfiguration). */
export interface ResolvedLine {
  line: number;
  product: Product;
  quantity: number;
  options: OptionValues;
  derivedOptions: OptionValues;
}

/** One priced line of a quote. Its amounts are authoritative; the quote totals are their sums. */
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
  /** Standard VAT rate of the destination, percent, e.g. "21" or "8.1". */
  vatRate: string;
  vatCents: number;
  totalCents: number;
  weightGrams: number;
}

/** The `data` of POST /quotes. */
export interface Quote {
  country: string;
  currency: 'EUR';
  lines: QuoteLine[];
  shipping: { netCents: number; vatCents: number; totalCents: number; weightGrams: number; zone: string };
  totals: {
    publicNetCents: number;
    discountCents: number;
    netCents: number;
    shippingCents: number;
    vatCents: number;
    totalCents: number;
  };
}

const BPS = 10_000;

type OptionValue = Product['options'][number]['values'][number];

/** Each option value's factors as decimals, parsed once: the catalogue never changes while we run. */
const parsedFactors = new WeakMap<OptionValue, { priceFactor: Decimal | null; weightFactor: Decimal | null }>();

function factorsOf(value: OptionValue): { priceFactor: Decimal | null; weightFactor: Decimal | null } {
  let parsed = parsedFactors.get(value);
  if (!parsed) {
    // null stands for a factor of exactly 1: nothing to multiply.
    const exact = (f: string) => (new Exact(f).eq(1) ? null : new Exact(f));
    parsed = { priceFactor: exact(value.priceFactor), weightFactor: exact(value.weightFactor) };
    parsedFactors.set(value, parsed);
  }
  return parsed;
}

/** The product of the chosen values' factors: option surcharges (price) or heavier stock (weight). */
function factor(product: Product, options: OptionValues, field: 'priceFactor' | 'weightFactor'): Decimal {
  let acc: Decimal = ONE;
  for (const o of product.options) {
    const value = o.values.find((v) => v.value === options[o.key]);
    if (!value) throw new RangeError(`${product.id}: '${o.key}' has no value '${options[o.key]}'`);
    const f = factorsOf(value)[field];
    if (f) acc = acc.times(f);
  }
  return acc;
}

const ONE = new Exact(1);

/**
 * The public unit price in cents, excl. VAT, exact: a run-priced product's run price times the
 * option surcharges, spread over the run (run sizes 2^a·5^b keep it a terminating decimal); a
 * piece-priced product's volume-tier price times the surcharges.
 */
export function unitPublicPrice(product: Product, options: OptionValues, quantity: number): Decimal {
  const q = product.quantity;
  if (q.pricedBy === 'copies') {
    const run = product.runPrices?.[String(quantity)];
    if (run === undefined) throw new RangeError(`${product.id} has no run of ${quantity}`);
    return new Exact(run).times(factor(product, options, 'priceFactor')).dividedBy(quantity);
  }
  const tier = q.tiers.findLast((t) => quantity >= t.from) ?? q.tiers[0]!;
  return new Exact(tier.unitCents).times(factor(product, options, 'priceFactor'));
}

/** Shipping weight of a line in whole grams, rounded up (a parcel never weighs less than its contents). */
export function lineWeightGrams(product: Product, options: OptionValues, quantity: number): number {
  return new Exact(product.weightGramsPerPiece)
    .times(factor(product, options, 'weightFactor'))
    .times(quantity)
    .ceil()
    .toNumber();
}

/** A line's money for one discount and VAT rate: what priceLine adds to the line's identity. */
type LineAmounts = Omit<QuoteLine, 'line' | 'productId' | 'quantity' | 'options' | 'derivedOptions'>;

interface ConfigurationCost {
  unitPublic: Decimal;
  weightGrams: number;
  /** The line amounts by discount and destination (`<bps>:<country>`), computed once each. */
  amounts: LRUCache<string, LineAmounts>;
}

/**
 * Unit price and weight of a complete configuration and quantity, and its line amounts per
 * discount and VAT rate. They depend on the catalogue alone, which is fixed while the process
 * runs, so the most recent ones are kept (a reseller quotes and orders the same few
 * configurations over and over, to a few countries).
 */
const configurationCosts = new WeakMap<Product, LRUCache<string, ConfigurationCost>>();

function configurationCost(product: Product, options: OptionValues, quantity: number): ConfigurationCost {
  let costs = configurationCosts.get(product);
  if (!costs) configurationCosts.set(product, (costs = new LRUCache({ max: 1000 })));
  let key = String(quantity);
  for (const o of product.options) key += `\u0000${options[o.key]}`;
  let cost = costs.get(key);
  if (!cost) {
    cost = {
      unitPublic: unitPublicPrice(product, options, quantity),
      weightGrams: lineWeightGrams(product, options, quantity),
      amounts: new LRUCache({ max: 64 }),
    };
    costs.set(key, cost);
  }
  return cost;
}

/** `country` names the VAT rate (the catalogue gives each country one) for the cache key. */
function lineAmounts(
  cost: ConfigurationCost,
  quantity: number,
  discountBps: number,
  country: string,
  vatRate: Decimal,
): LineAmounts {
  const key = `${discountBps}:${country}`;
  let amounts = cost.amounts.get(key);
  if (amounts) return amounts;
  const { unitPublic, weightGrams } = cost;
  const unitNet = unitPublic.times(BPS - discountBps).dividedBy(BPS);
  // Each amount is rounded once from its exact value; the discount is the difference, so
  // net = public - discount holds exactly and net is within half a cent of unitNet x quantity.
  const publicNetCents = roundCents(unitPublic.times(quantity));
  const netCents = roundCents(unitNet.times(quantity));
  const vatCents = roundCents(new Exact(netCents).times(vatRate).dividedBy(100));
  amounts = {
    unitPublicPrice: unitPublic.toFixed(),
    unitNetPrice: unitNet.toFixed(),
    publicNetCents,
    discountCents: publicNetCents - netCents,
    netCents,
    vatRate: vatRate.toFixed(),
    vatCents,
    totalCents: netCents + vatCents,
    weightGrams,
  };
  cost.amounts.set(key, amounts);
  return amounts;
}

function priceLine(l: ResolvedLine, discountBps: number, country: string, vatRate: Decimal): QuoteLine {
  const amounts = lineAmounts(
    configurationCost(l.product, l.options, l.quantity),
    l.quantity,
    discountBps,
    country,
    vatRate,
  );
  return {
    line: l.line,
    productId: l.product.id,
    quantity: l.quantity,
    options: { ...l.options },
    derivedOptions: { ...l.derivedOptions },
    ...amounts,
  };
}

/**
 * Prices resolved lines for a destination: public price, the reseller's discount on it (basis
 * points, excl. VAT), VAT at the destination's standard rate, shipping by zone and total weight
 * (VAT on shipping too). Amounts are integer cents, rounded half up once per line amount; the
 * totals are exact sums of the lines and shipping, and every totalCents = netCents + vatCents.
 * Throws a RangeError for an unsupported country (check with supportedCountries first) or a
 * discount outside 0-10000 bps.
 */
export function priceQuote(
  input: { lines: ResolvedLine[]; country: string; discountBps: number },
  catalog: Catalog,
): Quote {
  if (!Number.isSafeInteger(input.discountBps) || input.discountBps < 0 || input.discountBps > BPS) {
    throw new RangeError(`discountBps must be a whole number from 0 to ${BPS}, not ${input.discountBps}`);
  }
  const vatRate = vatRatePercent(catalog, input.country);
  const lines = input.lines.map((l) => priceLine(l, input.discountBps, input.country, vatRate));

  const weightGrams = lines.reduce((s, l) => s + l.weightGrams, 0);
  const ship = shippingNetCents(catalog, input.country, weightGrams);
  const shippingVat = roundCents(new Exact(ship.cents).times(vatRate).dividedBy(100));
  const sum = (f: (l: QuoteLine) => number) => lines.reduce((s, l) => s + f(l), 0);
  const netCents = sum((l) => l.netCents);
  const vatCents = sum((l) => l.vatCents) + shippingVat;
  return {
    country: input.country,
    currency: 'EUR',
    lines,
    shipping: {
      netCents: ship.cents,
      vatCents: shippingVat,
      totalCents: ship.cents + shippingVat,
      weightGrams,
      zone: ship.zone,
    },
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

/** An order line's money, taken from its quote line so an order costs exactly what its quote said. */
export interface OrderLinePrice extends Omit<QuoteLine, 'unitPublicPrice' | 'unitNetPrice'> {
  /** The exact unit net price (the quote's unitNetPrice). */
  unitPrice: string;
  /** unitPrice rounded half up to whole cents; informational, the line amounts stay authoritative. */
  unitPriceCents: number;
}

/** The order-line view of a priced quote (spec §2 Order: line.unitPrice and line.unitPriceCents). */
export function priceLinesForOrder(quote: Quote): OrderLinePrice[] {
  return quote.lines.map(({ unitPublicPrice: _public, unitNetPrice, ...rest }) => ({
    ...rest,
    unitPrice: unitNetPrice,
    unitPriceCents: roundCents(new Exact(unitNetPrice)),
  }));
}
