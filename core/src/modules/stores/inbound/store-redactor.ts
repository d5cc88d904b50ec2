import { sql } from 'kysely';
import { ERASED_BODY } from './stored-events.ts';
import type { StoreConnections } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';

export interface StoreRedactorDeps extends Pick<StoresContext, 'db' | 'logger'> {
  connections: StoreConnections;
}

/**
 * Redaction (privacy requests such as Shopify's customers/redact and shop/redact): erases the
 * personal data we hold for store orders, on every connection we ever had to the store
 * (reconnects make new rows).
 *
 * Ingestion may be under way while it runs: a delivery stored but not yet processed, whose
 * order may already be placed (an order is placed before its delivery is marked processed).
 * Its body is still needed to finish, so it is flagged instead, and erased by the statement
 * that marks it processed; an ingest erased here stays erased when its outcome is recorded
 * afterwards (store_ingests.redacted_at). Nothing personal outlives the request by being in
 * flight during it.
 */
export class StoreRedactor {
  readonly #deps: StoreRedactorDeps;

  constructor(deps: StoreRedactorDeps) {
    this.#deps = deps;
  }

  /** Erases the personal data we hold for these store orders (or the whole store), and the store's deliveries. */
  async redact(storeId: string, externalOrderIds: string[] | 'all'): Promise<void> {
    const store = await this.#deps.connections.findById(storeId);
    const storeIds = store
      ? (
          await this.#deps.db
            .selectFrom('stores')
            .select('id')
            .where('platform', '=', store.platform)
            .where('external_id', '=', store.external_id)
            .execute()
        ).map((r) => r.id)
      : [storeId];
    const now = new Date();
    let ingests = this.#deps.db
      .updateTable('store_ingests')
      .set({ external_name: null, skipped_lines: '[]', error: null, redacted_at: now, updated_at: now })
      .where('store_id', 'in', storeIds);
    if (externalOrderIds !== 'all')
      ingests = ingests.where('external_order_id', 'in', externalOrderIds.length ? externalOrderIds : ['']);
    await ingests.execute();
    // One statement for both, decided on each row as it is when updated: a delivery whose
    // processed mark commits first is erased now, one still waiting is erased by its mark.
    await this.#deps.db
      .updateTable('store_webhook_events')
      .set({
        raw_body: sql<Buffer>`case when processed_at is null then raw_body else ''::bytea end`,
        headers: sql<string>`case when processed_at is null then headers else '{}'::jsonb end`,
        erase_when_processed: sql<boolean>`processed_at is null`,
      })
      .where('store_id', 'in', storeIds)
      .where((eb) => eb.or([eb('processed_at', 'is', null), eb('raw_body', '!=', ERASED_BODY)]))
      .execute();
    this.#deps.logger.info('store data redacted', {
      storeId,
      orders: externalOrderIds === 'all' ? 'all' : externalOrderIds.length,
    });
  }
}
