import type { Connector, StoreConnection } from '@print-api/connector-kit';
import type { Kysely } from 'kysely';
import type { StoreRow } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';

/**
 * What a store's platform says of where it sells: its currency (ISO 4217) and its own country (ISO 3166-1 alpha-2; null
 * when unknown).
 */
export interface StoreLocale {
  currency: string;
  country: string | null;
}

const COUNTRY = /^[A-Z]{2}$/;

/**
 * A store's currency and country, asked of its platform in one go (the connector's
 * `storeCurrency` and `storeCountry`) and kept on the store: once, by its first complete
 * listings sync (so the dashboard knows the country before anything is published) or its first
 * publish, whichever comes first. A connector that cannot say the currency sells in euros. The
 * country is no reason to refuse a publish: where the platform does not give it (a grant
 * without the permission), the currency is kept and the country asked again next time.
 */
export class StoreLocales {
  readonly #deps: Pick<StoresContext, 'db' | 'context' | 'logger'>;

  constructor(deps: Pick<StoresContext, 'db' | 'context' | 'logger'>) {
    this.#deps = deps;
  }

  /** Whether the store's platform was asked already. */
  learned(store: StoreRow): store is StoreRow & { currency: string } {
    return store.locale_learned_at !== null && store.currency !== null;
  }

  /** The store's locale: as kept, or asked of its platform now and kept. */
  async of(store: StoreRow, connector: Connector<unknown>, connection: StoreConnection<unknown>): Promise<StoreLocale> {
    if (this.learned(store)) return { currency: store.currency, country: store.country };
    const ctx = this.#deps.context(store.platform);
    const currency = connector.storeCurrency
      ? (await connector.storeCurrency(ctx, connection)).toUpperCase()
      : (store.currency ?? 'EUR');
    let country = store.country;
    let learnedAt: Date | null = null;
    try {
      const said = connector.storeCountry
        ? (await connector.storeCountry(ctx, connection))?.trim().toUpperCase()
        : null;
      country = said && COUNTRY.test(said) ? said : null;
      learnedAt = new Date();
    } catch (err) {
      this.#deps.logger.warn("store's country not given by its platform; asked again later", {
        storeId: store.id,
        error: (err as Error).message,
      });
    }
    await this.#deps.db
      .updateTable('stores')
      .set({ currency, country, locale_learned_at: learnedAt })
      .where('id', '=', store.id)
      .execute();
    return { currency, country };
  }
}

/**
 * The store's country (`country`, null when its platform does not say) next to its currency,
 * and when both were asked (`locale_learned_at`): stores that knew their currency already are
 * asked again once, for the country.
 */
export const storeCountryMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('stores').addColumn('country', 'text').execute();
    await db.schema.alterTable('stores').addColumn('locale_learned_at', 'timestamptz').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const column of ['locale_learned_at', 'country'])
      await db.schema.alterTable('stores').dropColumn(column).execute();
  },
};
