import { Refusal } from '../../../kernel/refusal.ts';
import type { Tenant } from '../../../kernel/tenant.ts';

/** A euro reference rate, as the exchange-rates module gives it. */
export interface MarginRate {
  base: 'EUR';
  quote: string;
  value: string;
  date: string;
  source: 'ECB';
  stale: boolean;
}

/**
 * What a listing's retail price leaves once our price for one piece is paid, in the store's currency: `costCents` is
 * a quote for the store's country (shipping and VAT included, in euros) converted at the ECB's rate (`rate`; null for
 * a store selling in euros). `costCents` and `marginCents` are null where the margin cannot be worked out (`notice`
 * says why: no rate for the currency yet, the store's country unknown, a product we cannot quote one piece of).
 */
export interface ListingMargin {
  currency: string;
  retailCents: number;
  costCents: number | null;
  marginCents: number | null;
  /** The country the quote is for: the store's own (null while its platform has not said it). */
  country: string | null;
  rate: MarginRate | null;
  notice: string | null;
}

export interface ListingMarginsDeps {
  /** Our price for one piece of `sku` delivered to `country`, in euro cents (throws a Refusal when it cannot be). */
  quoteEuroCents: (tenant: Tenant & { discountBps: number }, sku: string, country: string) => Promise<number>;
  /** Euro cents in `currency`'s minor units at the newest ECB rate, or why not. */
  fromEuroCents: (
    eurCents: number,
    currency: string,
  ) => Promise<{ ok: true; minorUnits: number; rate: MarginRate | null } | { ok: false; reason: string }>;
}

/** The margin of a retail price in a store's currency (listings' `margin`, the dashboard's publish form). */
export class ListingMargins {
  readonly #deps: ListingMarginsDeps;

  constructor(deps: ListingMarginsDeps) {
    this.#deps = deps;
  }

  async of(
    tenant: Tenant & { discountBps: number },
    listing: { sku: string; priceCents: number; currency: string; country: string | null },
  ): Promise<ListingMargin> {
    const { sku, priceCents, currency, country } = listing;
    const none = (notice: string, rate: MarginRate | null = null): ListingMargin => ({
      currency,
      retailCents: priceCents,
      costCents: null,
      marginCents: null,
      country,
      rate,
      notice,
    });
    if (!country)
      return none(
        "The store's platform has not said the store's country yet: our price depends on it (shipping, VAT).",
      );
    let eurCents: number;
    try {
      eurCents = await this.#deps.quoteEuroCents(tenant, sku, country);
    } catch (err) {
      if (err instanceof Refusal) return none(`Our price for one piece cannot be quoted: ${err.message}`);
      throw err;
    }
    const converted = await this.#deps.fromEuroCents(eurCents, currency);
    if (!converted.ok) return none(converted.reason);
    const { rate } = converted;
    return {
      currency,
      retailCents: priceCents,
      costCents: converted.minorUnits,
      marginCents: priceCents - converted.minorUnits,
      country,
      rate,
      notice: rate?.stale
        ? `The ECB rate of ${rate.date} is the newest we have (more than 4 days old): the margin may be off.`
        : null,
    };
  }
}
