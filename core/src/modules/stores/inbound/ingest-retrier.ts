import type { StoreOrder } from '@print-api/connector-kit';
import { Refusal, wrongState, notFound } from '../../../kernel/refusal.ts';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { answeringFor } from '../connect/connector-errors.ts';
import type { OrderIngester } from './order-ingester.ts';
import type { StoreCalls } from '../outbound/store-calls.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoreCredentials } from '../connect/store-credentials.ts';
import { ingestView, ofListing, skippedOnly } from './store-ingests.ts';
import { ERASED_BODY } from './stored-events.ts';
import type { StoresContext } from '../stores-context.ts';

/** Outcomes a retry can change: nothing was placed, and nothing says it never can be. */
const RETRYABLE = new Set(['no_print_lines', 'failed', 'received', 'waiting_address']);
/** Stored deliveries of the store read (newest first) to find the order when the platform cannot be asked for it. */
const STORED_DELIVERIES_SCANNED = 500;
/**
 * How long a retry waits for one of the store's calls when its budget is spent, before it answers 503 with Retry-After.
 */
const RETRY_WAITS_FOR_BUDGET_MS = 3000;

/** Skipped store orders queued at most by one bulk retry (the next request takes the rest). */
export const BULK_RETRY_MAX = 500;

export interface IngestRetrierDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context' | 'logger'> {
  connections: StoreConnections;
  credentials: StoreCredentials;
  calls: StoreCalls;
  ingester: OrderIngester;
  /**
   * Queues the retry of one ingest (the bulk retry's job, run by retryQueued); `attempts` tells one retry of it from
   * the next.
   */
  queueRetry: (store: StoreRow, ingestId: string, attempts: number) => Promise<void>;
}

/**
 * `POST /stores/{id}/ingests/{ingestId}/retry`: a store order whose lines were skipped (or whose
 * placement failed) ingested again, once the reseller has created the missing product or mapped
 * its listing. The order is fetched again from the platform when its connector can
 * (`fetchOrders`), else taken from the newest stored delivery that carried it. The idempotency
 * key is the same (`<platform>:<store>:<order>`): never a second print order, and an order
 * placed already is not placed again. `POST /stores/{id}/ingests/retry` queues that same retry
 * for every skipped order of the store (or of one listing).
 */
export class IngestRetrier {
  readonly #deps: IngestRetrierDeps;

  constructor(deps: IngestRetrierDeps) {
    this.#deps = deps;
  }

  async retry(tenant: Tenant, storeId: string, ingestId: string): Promise<ReturnType<typeof ingestView>> {
    const store = await this.#deps.connections.row(tenant, storeId);
    const ingest = await this.#deps.db
      .selectFrom('store_ingests')
      .selectAll()
      .where('id', '=', ingestId)
      .where('store_id', '=', storeId)
      .executeTakeFirst();
    if (!ingest) throw notFound('store ingest', ingestId);
    if (store.status !== 'connected') throw disconnected(storeId);
    if (ingest.redacted_at)
      throw wrongState(
        'ingest_not_retryable',
        `Store order ${ingest.external_order_id} was erased on the customer's request.`,
      );
    if (ingest.order_id || !RETRYABLE.has(ingest.status)) {
      throw wrongState(
        'ingest_not_retryable',
        `Store order ${ingest.external_order_id} is ${ingest.status}${ingest.order_id ? ` (order ${ingest.order_id})` : ''}: there is nothing to retry.`,
      );
    }
    const order = await this.#order(store, ingest.external_order_id, true);
    await this.#deps.ingester.ingest(store, order);
    const after = await this.#deps.db
      .selectFrom('store_ingests')
      .selectAll()
      .where('id', '=', ingestId)
      .executeTakeFirstOrThrow();
    return ingestView(after);
  }

  /**
   * Queues a retry of each skipped order of the store (of one listing: `externalProductId`), the
   * oldest first, at most BULK_RETRY_MAX; answers how many, and whether more are left. An order
   * queued twice (two requests before its retry ran) is retried once.
   */
  async retrySkipped(tenant: Tenant, storeId: string, filter: { externalProductId?: string | undefined }) {
    const store = await this.#deps.connections.row(tenant, storeId);
    if (store.status !== 'connected') throw disconnected(storeId);
    const rows = await this.#deps.db
      .selectFrom('store_ingests')
      .select(['id', 'attempts'])
      .where('store_id', '=', storeId)
      .where(skippedOnly())
      .where('order_id', 'is', null)
      .where('redacted_at', 'is', null)
      .$if(filter.externalProductId !== undefined, (qb) => qb.where(ofListing(filter.externalProductId!)))
      .orderBy('created_at')
      .orderBy('id')
      .limit(BULK_RETRY_MAX + 1)
      .execute();
    const queued = rows.slice(0, BULK_RETRY_MAX);
    for (const row of queued) await this.#deps.queueRetry(store, row.id, row.attempts);
    return {
      storeId,
      status: 'skipped' as const,
      externalProductId: filter.externalProductId ?? null,
      queued: queued.length,
      more: rows.length > BULK_RETRY_MAX,
    };
  }

  /**
   * A queued retry (the bulk retry's job): the order ingested again as `retry` does. Nothing to
   * do when it was placed (or erased, or the store disconnected) meanwhile; an order the platform
   * no longer has is logged, not retried.
   */
  async retryQueued(storeId: string, ingestId: string): Promise<void> {
    const store = await this.#deps.connections.findById(storeId);
    const ingest = await this.#deps.db
      .selectFrom('store_ingests')
      .selectAll()
      .where('id', '=', ingestId)
      .where('store_id', '=', storeId)
      .executeTakeFirst();
    if (
      !store ||
      store.status !== 'connected' ||
      !ingest ||
      ingest.redacted_at ||
      ingest.order_id ||
      !RETRYABLE.has(ingest.status)
    )
      return;
    let order: StoreOrder;
    try {
      order = await this.#order(store, ingest.external_order_id, false);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.#deps.logger.warn('skipped store order not retried', {
        storeId,
        ingestId,
        code: err.code,
        error: err.message,
      });
      return;
    }
    await this.#deps.ingester.ingest(store, order);
  }

  /**
   * The store order as the platform has it now, or as its newest stored delivery carried it.
   * `answering`: a request waits for it (a spent call budget answers 503 after a short wait);
   * else a job does (it waits for the budget through the queue).
   */
  async #order(store: StoreRow, externalOrderId: string, answering: boolean): Promise<StoreOrder> {
    const connector = this.#deps.connections.connector(store.platform);
    const ctx = this.#deps.context(store.platform);
    if (connector.fetchOrders) {
      const fetched = answering
        ? await answeringFor(connector.manifest.displayName, 'credentials', async () => {
            try {
              return await connector.fetchOrders!(
                ctx,
                await this.#deps.calls.connectionWithin(store, RETRY_WAITS_FOR_BUDGET_MS),
                [externalOrderId],
              );
            } catch (err) {
              if (err instanceof RetryLaterError) {
                const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
                throw new Refusal(
                  'store_rate_limited',
                  `${connector.manifest.displayName} allows no more calls for this store now; try again in ${seconds} s.`,
                  undefined,
                  { retryAfter: seconds },
                );
              }
              throw err;
            }
          })
        : await connector.fetchOrders(ctx, await this.#deps.calls.connection(store), [externalOrderId]);
      const order = fetched.find((o) => o.externalId === externalOrderId);
      if (!order)
        throw wrongState(
          'store_order_not_found',
          `${connector.manifest.displayName} no longer has order ${externalOrderId}.`,
        );
      return order;
    }
    const deliveries = await this.#deps.db
      .selectFrom('store_webhook_events')
      .selectAll()
      .where('store_id', '=', store.id)
      .where('raw_body', '!=', ERASED_BODY)
      .orderBy('received_at', 'desc')
      .limit(STORED_DELIVERIES_SCANNED)
      .execute();
    const connection = this.#deps.credentials.connection(store);
    for (const d of deliveries) {
      const content = await connector
        .parseWebhook(ctx, connection, { headers: d.headers, rawBody: d.raw_body, path: d.path, query: {} })
        .catch(() => null);
      const order =
        content?.kind === 'orders' ? content.orders.find((o) => o.externalId === externalOrderId) : undefined;
      if (order) return order;
    }
    throw wrongState(
      'store_order_not_found',
      `Order ${externalOrderId} cannot be fetched from ${connector.manifest.displayName} and no stored delivery of it is left: it is ingested again when the store sends it again.`,
    );
  }
}

const disconnected = (storeId: string) =>
  wrongState('store_disconnected', `Store ${storeId} is disconnected: connect it again to retry its orders.`);
