import type { ColumnType, Kysely } from 'kysely';

/**
 * The European Central Bank's euro reference rates, one row per currency and day, as its daily
 * file gave them (`ECB_RATES_URL`): what margins in a store's currency are converted at.
 */
export interface ExchangeRatesTable {
  /** ISO 4217 code of the currency one euro buys `value` of (GBP, CHF, …). */
  quote: string;
  /** The day the ECB set the rate (`YYYY-MM-DD`, the file's `Cube time`). */
  rate_date: string;
  /** The rate as the file wrote it (a decimal string: no float ever holds it). */
  value: string;
  source: string;
  fetched_at: ColumnType<Date, Date, Date>;
}

export interface ExchangeRatesTables {
  exchange_rates: ExchangeRatesTable;
}

export const exchangeRatesMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('exchange_rates')
      .addColumn('quote', 'text', (c) => c.notNull())
      .addColumn('rate_date', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('fetched_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('exchange_rates_pkey', ['quote', 'rate_date'])
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('exchange_rates').execute();
  },
};
