import type { InboundWebhook, StoreOrder, WebhookContent } from '@print-api/connector-kit';
import type { Selectable } from 'kysely';
import { retryDelayFor } from '../connect/connector-errors.ts';
import type { OrderFetches } from './order-fetches.ts';
import type { OrderIngester } from './order-ingester.ts';
import type { StoreRedactor } from './store-redactor.ts';
import { ERASED_BODY, markProcessed } from './stored-events.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoreCredentials } from '../connect/store-credentials.ts';
import type { StoreWebhookEventsTable } from '../stores-tables.ts';
import type { StoresContext } from '../stores-context.ts';

type StoredEvent = Selectable<StoreWebhookEventsTable>;

/** A stored delivery as the connector reads it. */
const requestOf = (event: StoredEvent): InboundWebhook => ({
  headers: event.headers,
  rawBody: event.raw_body,
  path: event.path,
  query: {},
});

/** Events of one batch ingested side by side. */
const EVENTS_PARALLEL = 4;

export interface EventIngesterDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context' | 'logger'> {
  connections: StoreConnections;
  credentials: StoreCredentials;
  orders: OrderIngester;
  /** Thin notifications' orders, fetched merged per store. */
  fetches: OrderFetches;
  redactor: StoreRedactor;
  /** The store's catalogue changed: sync its listings soon. */
  listingsChanged: (store: StoreRow) => Promise<void>;
}

/**
 * Ingesting stored webhooks: what each means (the connector parses it) becomes store orders
 * (OrderIngester), a disconnection or a redaction; the delivery is then marked processed.
 */
export class EventIngester {
  readonly #deps: EventIngesterDeps;

  constructor(deps: EventIngesterDeps) {
    this.#deps = deps;
  }

  /**
   * A batch of stored webhooks, read in two queries and ingested EVENTS_PARALLEL at a time. One
   * that fails goes back on the queue as a job of its own (`retryAlone`, with the usual retries
   * and waits) while the rest go on; the batch itself fails only when that cannot be queued, and
   * its retry skips what was processed.
   */
  async processBatch(
    eventIds: string[],
    retryAlone: (eventId: string, delayMs: number) => Promise<void>,
  ): Promise<void> {
    const loaded = await this.#load(eventIds);
    const { contents, fetched } = await this.#readTogether(loaded);
    let next = 0;
    const lane = async () => {
      while (next < eventIds.length) {
        const eventId = eventIds[next++]!;
        const found = loaded.get(eventId);
        if (!found) continue;
        try {
          await this.#process(found.event, found.store, contents.get(eventId), fetched.get(eventId));
        } catch (err) {
          this.#deps.logger.warn('stored webhook not ingested; retried on its own', {
            eventId,
            error: (err as Error).message,
          });
          await retryAlone(eventId, retryDelayFor(err));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(EVENTS_PARALLEL, eventIds.length) }, lane));
  }

  /** One stored webhook, unless it was processed already. */
  async process(eventId: string): Promise<void> {
    const found = (await this.#load([eventId])).get(eventId);
    if (found) await this.#process(found.event, found.store);
  }

  /** Stored webhooks not yet processed, with their stores. */
  async #load(eventIds: string[]): Promise<Map<string, { event: StoredEvent; store: StoreRow | undefined }>> {
    const events = await this.#deps.db
      .selectFrom('store_webhook_events')
      .selectAll()
      .where('id', 'in', eventIds)
      .where('processed_at', 'is', null)
      .execute();
    const storeIds = [...new Set(events.flatMap((e) => (e.store_id ? [e.store_id] : [])))];
    const stores = new Map(
      (storeIds.length
        ? await this.#deps.db.selectFrom('stores').selectAll().where('id', 'in', storeIds).execute()
        : []
      ).map((s) => [s.id, s]),
    );
    return new Map(
      events.map((event) => [event.id, { event, store: event.store_id ? stores.get(event.store_id) : undefined }]),
    );
  }

  /**
   * What each delivery of a batch means, read once; and the orders thin notifications name,
   * asked for together: every order the batch's deliveries to a store name in one ask, merged
   * with what other batches ask of the store meanwhile (OrderFetches), so a platform whose
   * notifications carry no order, such as TikTok Shop, does not spend a call of the store's
   * budget per delivery. A delivery left out (not understood, or the fetch failed) is read and
   * fetched on its own by #process.
   */
  async #readTogether(
    loaded: Map<string, { event: StoredEvent; store: StoreRow | undefined }>,
  ): Promise<{ contents: Map<string, WebhookContent>; fetched: Map<string, StoreOrder[]> }> {
    const contents = new Map<string, WebhookContent>();
    const fetched = new Map<string, StoreOrder[]>();
    const thin = new Map<string, { store: StoreRow; events: Array<{ id: string; orderIds: string[] }> }>();
    for (const [eventId, { event, store }] of loaded) {
      if (!store || !this.#deps.connectors.get(event.platform)) continue;
      const content = await this.#content(store, requestOf(event)).catch(() => undefined);
      if (!content) continue;
      contents.set(eventId, content);
      if (content.kind !== 'fetch' || !this.#deps.connectors.get(store.platform)?.fetchOrders) continue;
      const group = thin.get(store.id) ?? { store, events: [] };
      group.events.push({ id: eventId, orderIds: content.externalOrderIds });
      thin.set(store.id, group);
    }
    await Promise.all(
      [...thin.values()].map(async ({ store, events }) => {
        try {
          const orders = await this.#deps.fetches.fetch(store, [...new Set(events.flatMap((e) => e.orderIds))]);
          const byId = new Map(orders.map((o) => [o.externalId, o]));
          for (const e of events)
            fetched.set(
              e.id,
              e.orderIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])),
            );
        } catch (err) {
          this.#deps.logger.warn('orders of a batch not fetched together; each delivery fetches its own', {
            storeId: store.id,
            events: events.length,
            error: (err as Error).message,
          });
        }
      }),
    );
    return { contents, fetched };
  }

  async #process(
    event: StoredEvent,
    store: StoreRow | undefined,
    read?: WebhookContent,
    fetched?: StoreOrder[],
  ): Promise<void> {
    const eventId = event.id;
    const connector = this.#deps.connectors.get(event.platform);
    // The last order of a delivery records its outcome and marks the delivery processed in one statement.
    let marked = false;
    if (store && connector) {
      const ctx = this.#deps.context(store.platform);
      const content = read ?? (await this.#content(store, requestOf(event)));
      switch (content.kind) {
        case 'orders':
          for (const [i, order] of content.orders.entries())
            marked = await this.#deps.orders.ingest(
              store,
              order,
              i === content.orders.length - 1 ? eventId : undefined,
            );
          break;
        case 'fetch':
          if (connector.fetchOrders)
            for (const order of fetched ?? (await this.#deps.fetches.fetch(store, content.externalOrderIds)))
              await this.#deps.orders.ingest(store, order);
          break;
        case 'listings_changed':
          await this.#deps.listingsChanged(store);
          break;
        case 'uninstalled':
          await this.#deps.connections.markDisconnected(
            store.id,
            content.reason ?? 'The app was uninstalled from the store.',
          );
          break;
        case 'store_warning':
          await this.#deps.connections.noteProblem(store.id, content.message);
          break;
        case 'redact':
          await this.#deps.redactor.redact(store.id, content.externalOrderIds);
          // The request itself names the customer: keep only that it happened.
          await this.#deps.db
            .updateTable('store_webhook_events')
            .set({ raw_body: ERASED_BODY, headers: '{}' })
            .where('id', '=', eventId)
            .execute();
          break;
        case 'ignored':
          break;
      }
    }
    if (!marked) await markProcessed(this.#deps.db, eventId).execute();
  }

  /**
   * What the delivery means. A disconnected store's deliveries change nothing, except privacy requests, which are
   * always honoured.
   */
  async #content(store: StoreRow, req: InboundWebhook): Promise<WebhookContent> {
    const connector = this.#deps.connectors.get(store.platform)!;
    const ctx = this.#deps.context(store.platform);
    const connection = this.#deps.credentials.connection(store);
    if (store.status === 'connected') return connector.parseWebhook(ctx, connection, req);
    const parsed = await connector.parseWebhook(ctx, connection, req).catch((err: Error) => {
      this.#deps.logger.warn('delivery to a disconnected store not understood', {
        storeId: store.id,
        error: err.message,
      });
      return null;
    });
    return parsed?.kind === 'redact' ? parsed : { kind: 'ignored', reason: 'the store is disconnected' };
  }
}
