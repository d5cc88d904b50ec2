import type { Logger } from '../../infra/logger.ts';
import type { Db } from '../tables.ts';
import type { StoresService } from './stores-service.ts';

/**
 * Redaction (privacy requests such as Shopify's customers/redact and shop/redact): erases the
 * personal data we hold for store orders, on every connection we ever had to the store
 * (reconnects make new rows), and the store's processed deliveries.
 */
export class StoreRedactor {
  readonly #db: Db;
  readonly #stores: StoresService;
  readonly #logger: Logger;

  constructor(deps: { db: Db; stores: StoresService; logger: Logger }) {
    this.#db = deps.db;
    this.#stores = deps.stores;
    this.#logger = deps.logger;
  }

  /** Erases the personal data we hold for these store orders (or the whole store). */
  async redact(storeId: string, externalOrderIds: string[] | 'all'): Promise<void> {
    const store = await this.#stores.findById(storeId);
    const storeIds = store ? (await this.#db.selectFrom('stores').select('id').where('platform', '=', store.platform).where('external_id', '=', store.external_id).execute()).map((r) => r.id) : [storeId];
    const now = new Date();
    let ingests = this.#db.updateTable('store_ingests').set({ external_name: null, skipped_lines: '[]', error: null, updated_at: now }).where('store_id', 'in', storeIds);
    if (externalOrderIds !== 'all') ingests = ingests.where('external_order_id', 'in', externalOrderIds.length ? externalOrderIds : ['']);
    await ingests.execute();
    await this.#db.updateTable('store_webhook_events').set({ raw_body: '', headers: '{}' }).where('store_id', 'in', storeIds).where('processed_at', 'is not', null).execute();
    this.#logger.info('store data redacted', { storeId, orders: externalOrderIds === 'all' ? 'all' : externalOrderIds.length });
  }
}
