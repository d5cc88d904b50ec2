import { currencyDigits } from '@print-api/connector-kit';
import type { Kysely } from 'kysely';
import type { Logger } from '../../infra/logger.ts';
import type { SafeFetch } from '../../infra/safe-fetch/safe-fetch.ts';
import { Exact } from '../quotes/money.ts';
import { EcbFileError, parseEcbDailyFile } from './ecb-daily-file.ts';
import type { ExchangeRatesTables } from './exchange-rates-tables.ts';

/** The ECB's daily file, where ECB_RATES_URL is not set. */
export const ECB_DAILY_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';
/** A rate set longer ago than this is shown as stale (the ECB sets one every working day). */
export const STALE_AFTER_DAYS = 4;
/** The file is fetched again once the last one is this old. */
const FETCH_EVERY_MS = 24 * 60 * 60_000;
/** After a failed fetch, this process tries again no sooner than this. */
const RETRY_AFTER_MS = 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

/** A euro reference rate: one euro buys `value` of `quote`, as set on `date`. */
export interface Rate {
  base: 'EUR';
  quote: string;
  /** As the ECB wrote it (a decimal string). */
  value: string;
  /** `YYYY-MM-DD`, the day the ECB set it. */
  date: string;
  source: 'ECB';
  /** Set more than STALE_AFTER_DAYS days ago: the worker has not fetched a newer file since. */
  stale: boolean;
}

/** An amount in euro cents converted to a currency: in its minor units, with the rate used (null for EUR). */
export type Conversion = { ok: true; minorUnits: number; rate: Rate | null } | { ok: false; reason: string };

export interface ExchangeRatesDeps {
  db: Kysely<ExchangeRatesTables>;
  safeFetch: SafeFetch;
  logger: Logger;
  /** The daily file's URL; null: rates are never fetched (tests, or an operator who turned it off). */
  url: string | null;
  clock?: (() => Date) | undefined;
}

/**
 * The ECB's euro reference rates: fetched by the worker once a day (a maintenance task) from
 * `url` through the SSRF-guarded fetch, kept with their date, and used to convert our prices
 * (in euros) to a store's currency. No rate is ever made up: a currency the ECB has not given a
 * rate for cannot be converted, and says so.
 */
export class ExchangeRates {
  readonly #deps: ExchangeRatesDeps;
  #lastAttempt = -Infinity;

  constructor(deps: ExchangeRatesDeps) {
    this.#deps = deps;
  }

  #now(): Date {
    return this.#deps.clock?.() ?? new Date();
  }

  /** The maintenance task: fetches the file when the last fetch is a day old (and this process's last try an hour). */
  async refreshDaily(): Promise<void> {
    if (!this.#deps.url) return;
    const now = this.#now().getTime();
    if (now - this.#lastAttempt < RETRY_AFTER_MS) return;
    const last = await this.#deps.db
      .selectFrom('exchange_rates')
      .select((eb) => eb.fn.max('fetched_at').as('at'))
      .executeTakeFirst();
    if (last?.at && now - new Date(last.at).getTime() < FETCH_EVERY_MS) return;
    this.#lastAttempt = now;
    await this.refresh();
  }

  /** Fetches the daily file now and keeps its rates; answers the day they were set. */
  async refresh(): Promise<string> {
    const { url, safeFetch, db, logger } = this.#deps;
    if (!url) throw new Error('ECB_RATES_URL is off');
    const res = await safeFetch.request(url, {
      timeoutMs: 15_000,
      maxRedirects: 3,
      maxBodyBytes: 256 * 1024,
      headers: { accept: 'application/xml, text/xml' },
    });
    if (res.status !== 200) throw new EcbFileError(`${url} answered ${res.status}`);
    const file = parseEcbDailyFile(res.body.toString('utf8'));
    const fetchedAt = this.#now();
    const rows = [...file.rates].map(([quote, value]) => ({
      quote,
      rate_date: file.date,
      value,
      source: 'ECB',
      fetched_at: fetchedAt,
    }));
    await db
      .insertInto('exchange_rates')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['quote', 'rate_date']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          fetched_at: eb.ref('excluded.fetched_at'),
        })),
      )
      .execute();
    logger.info('ECB reference rates kept', { date: file.date, currencies: rows.length });
    return file.date;
  }

  /** The newest rate of `currency` (null: the ECB gave none, or none was fetched yet). */
  async latest(currency: string): Promise<Rate | null> {
    const row = await this.#deps.db
      .selectFrom('exchange_rates')
      .select(['quote', 'rate_date', 'value'])
      .where('quote', '=', currency)
      .orderBy('rate_date', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    const age = this.#now().getTime() - Date.parse(`${row.rate_date}T00:00:00Z`);
    return {
      base: 'EUR',
      quote: row.quote,
      value: row.value,
      date: row.rate_date,
      source: 'ECB',
      stale: age > STALE_AFTER_DAYS * DAY_MS,
    };
  }

  /** `eurCents` in `currency`'s minor units at its newest rate (half up), or why it cannot be converted. */
  async fromEuroCents(eurCents: number, currency: string): Promise<Conversion> {
    if (currency === 'EUR') return { ok: true, minorUnits: eurCents, rate: null };
    const rate = await this.latest(currency);
    if (!rate)
      return {
        ok: false,
        reason: `No ECB reference rate for ${currency} is known yet: the margin cannot be converted to ${currency}.`,
      };
    const digits = currencyDigits(currency);
    const minor = new Exact(eurCents)
      .div(100)
      .mul(rate.value)
      .toDecimalPlaces(digits, Exact.ROUND_HALF_UP)
      .mul(new Exact(10).pow(digits))
      .toNumber();
    return { ok: true, minorUnits: minor, rate };
  }
}
