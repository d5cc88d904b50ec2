import { expect } from 'chai';
import { ConnectorError, type Connector, type StoreOrder } from '@print-api/connector-kit';
import { mapReferenceOrder, referenceConnector } from '../../../test/reference-connector/src/index.ts';
import { ConnectorRegistry } from '../../src/modules/stores/connector-registry.ts';
import { EventIngester } from '../../src/modules/stores/inbound/event-ingester.ts';
import { OrderFetches } from '../../src/modules/stores/inbound/order-fetches.ts';
import { refOrder } from '../helpers/reference-shop.ts';
import { referenceStoreWorld, type ReferenceStoreWorld } from '../helpers/reference-store.ts';
import type { TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';

/**
 * What a connector can tell core beyond orders: an order the platform ships itself (recorded,
 * never placed, the reason on every line) and a warning the merchant must act on (the store's
 * lastError until it reconnects); thin notifications of one batch fetched together.
 */
describe('store orders not ours to print, and store warnings', function () {
  this.timeout(scaled(60_000));
  let world: ReferenceStoreWorld | undefined;
  let t: TestService;
  let storeId: string;
  const store = () => t.service.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();

  before(async function () {
    world = await referenceStoreWorld(this, 'pglite');
    ({ t, storeId } = world);
  });
  after(async () => world?.close());

  it('records an order the platform ships itself as no_print_lines, every line skipped with the reason, and places nothing', async () => {
    const order = {
      ...mapReferenceOrder(refOrder('N-1', { paid: true })),
      notForPrint: 'shipped by the platform itself',
    };
    await t.service.services.storesModule.ingester.ingest(await store(), order);
    const ingest = await t.service.db
      .selectFrom('store_ingests')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', 'N-1')
      .executeTakeFirstOrThrow();
    expect(ingest.status).to.equal('no_print_lines');
    expect(ingest.skipped_lines).to.deep.equal(
      order.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, reason: 'shipped by the platform itself' })),
    );
    expect(
      await t.service.db
        .selectFrom('orders')
        .select('id')
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', 'N-1')
        .execute(),
    ).to.deep.equal([]);
  });

  /**
   * The reference platform as a thin-notification platform (each delivery names an order to fetch); `fetchOrders` as
   * given.
   */
  let fetches: OrderFetches;
  function thinIngester(fetchOrders: Connector<any, any>['fetchOrders'], fetchOrdersMax?: number): EventIngester {
    const thin: Connector<any, any> = {
      ...referenceConnector,
      manifest: { ...referenceConnector.manifest, ...(fetchOrdersMax ? { fetchOrdersMax } : {}) },
      parseWebhook: async (_ctx, _store, req) => ({
        kind: 'fetch',
        externalOrderIds: [JSON.parse(req.rawBody.toString()).order_id as string],
      }),
      fetchOrders,
    };
    const module = t.service.services.storesModule;
    const connectors = new ConnectorRegistry([thin]);
    const context = () => ({}) as never;
    return new EventIngester({
      db: t.service.db,
      connections: t.service.services.stores.connections,
      credentials: t.service.services.stores.credentials,
      connectors,
      context,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never,
      orders: module.ingester,
      fetches: (fetches = new OrderFetches({ connectors, context, calls: module.calls })),
      redactor: module.redactor,
      listingsChanged: async () => undefined,
    });
  }

  async function storeThinDeliveries(ids: string[]): Promise<string[]> {
    const eventIds = ids.map((id) => `whe_thin_${id}`);
    await t.service.db
      .insertInto('store_webhook_events')
      .values(
        ids.map((id, i) => ({
          id: eventIds[i]!,
          platform: referenceConnector.manifest.platform,
          store_id: storeId,
          event_key: `thin-${id}`,
          topic: 'order.updated',
          headers: '{}',
          raw_body: Buffer.from(JSON.stringify({ order_id: id })),
          path: storeId,
          received_at: new Date(),
          processed_at: null,
        })),
      )
      .execute();
    return eventIds;
  }

  it('waits out a short rate limit on the shared fetch instead of fetching delivery by delivery', async () => {
    const asked: string[][] = [];
    const events = thinIngester(async (_ctx, _store, ids): Promise<StoreOrder[]> => {
      asked.push(ids);
      if (asked.length === 1) throw new ConnectorError('rate_limited', 'slow down', { retryAfterMs: 50 });
      return ids.map((id) => mapReferenceOrder(refOrder(id, { paid: true })));
    });
    const ids = ['W-1', 'W-2'];
    await events.processBatch(await storeThinDeliveries(ids), async () => {
      throw new Error('no delivery should be retried alone');
    });
    expect(asked).to.deep.equal([ids, ids]);
  });

  it('fetches the orders thin notifications of one batch name in one call per store', async () => {
    const asked: string[][] = [];
    const events = thinIngester(async (_ctx, _store, ids): Promise<StoreOrder[]> => {
      asked.push(ids);
      return ids.map((id) => mapReferenceOrder(refOrder(id, { paid: true })));
    });
    const ids = ['T-1', 'T-2', 'T-3'];
    const eventIds = await storeThinDeliveries(ids);
    await events.processBatch(eventIds, async () => {
      throw new Error('no delivery should be retried alone');
    });
    expect(asked).to.deep.equal([ids]);
    const ingests = await t.service.db
      .selectFrom('store_ingests')
      .select(['external_order_id', 'status'])
      .where('store_id', '=', storeId)
      .where('external_order_id', 'in', ids)
      .orderBy('external_order_id')
      .execute();
    expect(ingests.map((i) => [i.external_order_id, i.status])).to.deep.equal(ids.map((id) => [id, 'placed']));
    const processed = await t.service.db
      .selectFrom('store_webhook_events')
      .select('processed_at')
      .where('id', 'in', eventIds)
      .execute();
    expect(processed.every((e) => e.processed_at !== null)).to.equal(true);
  });

  it('merges the orders other batches ask of the store while its call is under way into the next call, up to fetchOrdersMax ids', async () => {
    const asked: string[][] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));
    let firstStarted!: () => void;
    const started = new Promise<void>((r) => (firstStarted = r));
    const events = thinIngester(async (_ctx, _store, ids): Promise<StoreOrder[]> => {
      asked.push(ids);
      if (asked.length === 1) {
        firstStarted();
        await firstHeld;
      }
      return ids.map((id) => mapReferenceOrder(refOrder(id, { paid: true })));
    }, 3);
    const notAlone = async () => {
      throw new Error('no delivery should be retried alone');
    };
    const first = events.processBatch(await storeThinDeliveries(['M-1']), notAlone);
    await started;
    // Three batches arrive while the first call is under way: their four orders go in two calls of at most three.
    const later = [['M-2', 'M-3'], ['M-4'], ['M-5']];
    const batches = await Promise.all(later.map((ids) => storeThinDeliveries(ids)));
    const rest = batches.map((eventIds) => events.processBatch(eventIds, notAlone));
    await waitFor('the three batches asking', () => fetches.waiting(storeId) === 3);
    releaseFirst();
    await Promise.all([first, ...rest]);
    expect(asked).to.deep.equal([['M-1'], ['M-2', 'M-3', 'M-4'], ['M-5']]);
    const ids = ['M-1', 'M-2', 'M-3', 'M-4', 'M-5'];
    const ingests = await t.service.db
      .selectFrom('store_ingests')
      .select(['external_order_id', 'status'])
      .where('store_id', '=', storeId)
      .where('external_order_id', 'in', ids)
      .orderBy('external_order_id')
      .execute();
    expect(ingests.map((i) => [i.external_order_id, i.status])).to.deep.equal(ids.map((id) => [id, 'placed']));
  });

  it('tells every batch waiting on a failed fetch, and each delivery then fetches its own', async () => {
    const asked: string[][] = [];
    const events = thinIngester(async (_ctx, _store, ids): Promise<StoreOrder[]> => {
      asked.push(ids);
      if (asked.length === 1) throw new ConnectorError('upstream_unavailable', 'platform down for a moment');
      return ids.map((id) => mapReferenceOrder(refOrder(id, { paid: true })));
    });
    const alone: string[] = [];
    await events.processBatch(await storeThinDeliveries(['F-1', 'F-2']), async (eventId) => void alone.push(eventId));
    expect(asked[0]).to.deep.equal(['F-1', 'F-2']);
    expect(alone, 'nothing retried alone: the deliveries fetched their own orders').to.deep.equal([]);
    expect(asked.slice(1).flat().sort()).to.deep.equal(['F-1', 'F-2']);
  });

  it("shows what a poll repaired among the store's notices, for a week", async () => {
    const row = await store();
    const tenant = { resellerId: row.reseller_id, mode: row.mode };
    const notice = "The platform had disabled the store's webhooks after failed deliveries: set active again.";
    const original = referenceConnector.listOrders!;
    referenceConnector.listOrders = async (ctx, connection, cursor) => ({
      ...(await original(ctx, connection, cursor)),
      notice,
    });
    try {
      await t.service.services.storesModule.poller.poll(storeId);
    } finally {
      referenceConnector.listOrders = original;
    }
    expect((await t.service.services.stores.connections.get(tenant, storeId)).notices).to.deep.equal([notice]);
    await t.service.db
      .updateTable('stores')
      .set({ poll_notice_at: new Date(Date.now() - 8 * 24 * 3600_000) })
      .where('id', '=', storeId)
      .execute();
    expect((await t.service.services.stores.connections.get(tenant, storeId)).notices).to.deep.equal([]);
  });

  it("shows a warning as the connected store's lastError, and a disconnection's reason", async () => {
    await t.service.services.stores.connections.noteProblem(storeId, 'The authorisation expires on 2026-12-25.');
    expect((await store()).last_error).to.equal('The authorisation expires on 2026-12-25.');
    expect((await store()).status).to.equal('connected');
    await t.service.services.stores.connections.markDisconnected(storeId, 'The seller revoked the app.');
    await t.service.services.stores.connections.noteProblem(storeId, 'a late warning');
    expect(await store()).to.deep.include({ status: 'disconnected', last_error: 'The seller revoked the app.' });
  });
});
