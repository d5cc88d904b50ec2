import type { StoreOrder } from '@print-api/connector-kit';
import { Refusal, wrongState, notFound } from '../refusal.ts';
import { RetryLaterError } from '../../infra/queue/job-queue.ts';
import type { Tenant } from '../orders/orders-service.ts';
import { answeringFor } from './connector-errors.ts';
import type { OrderIngester } from './order-ingester.ts';
import type { StoreCalls } from './store-calls.ts';
import type { StoreConnections, StoreRow } from './store-connections.ts';
import type { StoreCredentials } from './store-credentials.ts';
import { ingestView } from './store-ingests.ts';
import type { StoresContext } from './stores-context.ts';

/** Outcomes a retry can change: nothing was placed, and nothing says it never can be. */
const RETRYABLE = new Set(['no_print_lines', 'failed', 'received', 'waiting_address']);
/** Stored deliveries of the store read (newest first) to find the order when the platform cannot be asked for it. */
const STORED_DELIVERIES_SCANNED = 500;
/** How long a retry waits for one of the store's calls when its budget is spent, before it answers 503 with Retry-After. */
const RETRY_WAITS_FOR_BUDGET_MS = 3000;

export interface IngestRetrierDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context'> {
  connections: StoreConnections;
  credentials: StoreCredentials;
  calls: StoreCalls;
  ingester: OrderIngester;
}

/**
 * `POST /stores/{id}/ingests/{ingestId}/retry`: a store order whose lines were skipped (or whose
 * placement failed) ingested again, once the reseller has created the missing product. The
 * order is fetched again from the platform when its connector can (`fetchOrders`), else taken
 * from the newest stored delivery that carried it. The idempotency key is the same
 * (`<platform>:<store>:<order>`): never a second print order, and an order placed already is
 * not placed again.
 */
export class IngestRetrier {
  readonly #deps: IngestRetrierDeps;

  constructor(deps: IngestRetrierDeps) {
    this.#deps = deps;
  }

  async retry(tenant: Tenant, storeId: string, ingestId: string): Promise<ReturnType<typeof ingestView>> {
    const store = await this.#deps.connections.row(tenant, storeId);
    const ingest = await this.#deps.db.selectFrom('store_ingests').selectAll().where('id', '=', ingestId).where('store_id', '=', storeId).executeTakeFirst();
    if (!ingest) throw notFound('store ingest', ingestId);
    if (store.status !== 'connected') throw wrongState('store_disconnected', `Store ${storeId} is disconnected: connect it again to retry its orders.`);
    if (ingest.redacted_at) throw wrongState('ingest_not_retryable', `Store order ${ingest.external_order_id} was erased on the customer's request.`);
    if (ingest.order_id || !RETRYABLE.has(ingest.status)) {
      throw wrongState('ingest_not_retryable', `Store order ${ingest.external_order_id} is ${ingest.status}${ingest.order_id ? ` (order ${ingest.order_id})` : ''}: there is nothing to retry.`);
    }
    const order = await this.#order(store, ingest.external_order_id);
    await this.#deps.ingester.ingest(store, order);
    const after = await this.#deps.db.selectFrom('store_ingests').selectAll().where('id', '=', ingestId).executeTakeFirstOrThrow();
    return ingestView(after);
  }

  /** The store order as the platform has it now, or as its newest stored delivery carried it. */
  async #order(store: StoreRow, externalOrderId: string): Promise<StoreOrder> {
    const connector = this.#deps.connections.connector(store.platform);
    const ctx = this.#deps.context(store.platform);
    if (connector.fetchOrders) {
      const fetched = await answeringFor(connector.manifest.displayName, 'credentials', async () => {
        try {
          return await connector.fetchOrders!(ctx, await this.#deps.calls.connectionWithin(store, RETRY_WAITS_FOR_BUDGET_MS), [externalOrderId]);
        } catch (err) {
          if (err instanceof RetryLaterError) {
            const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
            throw new Refusal('store_rate_limited', `${connector.manifest.displayName} allows no more calls for this store now; try again in ${seconds} s.`, undefined, { retryAfter: seconds });
          }
          throw err;
        }
      });
      const order = fetched.find((o) => o.externalId === externalOrderId);
      if (!order) throw wrongState('store_order_not_found', `${connector.manifest.displayName} no longer has order ${externalOrderId}.`);
      return order;
    }
    const deliveries = await this.#deps.db
      .selectFrom('store_webhook_events')
      .selectAll()
      .where('store_id', '=', store.id)
      .where('raw_body', '!=', '')
      .orderBy('received_at', 'desc')
      .limit(STORED_DELIVERIES_SCANNED)
      .execute();
    const connection = this.#deps.credentials.connection(store);
    for (const d of deliveries) {
      const content = await connector
        .parseWebhook(ctx, connection, { headers: d.headers, rawBody: Buffer.from(d.raw_body, 'base64'), path: d.path, query: {} })
        .catch(() => null);
      const order = content?.kind === 'orders' ? content.orders.find((o) => o.externalId === externalOrderId) : undefined;
      if (order) return order;
    }
    throw wrongState('store_order_not_found', `Order ${externalOrderId} cannot be fetched from ${connector.manifest.displayName} and no stored delivery of it is left: it is ingested again when the store sends it again.`);
  }
}
