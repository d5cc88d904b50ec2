import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import nock from 'nock';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { cardsReseller } from '../helpers/reference-store.ts';
import { startFileServer } from '../orders/orders-helpers.ts';
import { scaled, waitFor } from '../helpers/wait.ts';

const SHOP = 'https://ref-shop.example';
/** The reference connector's package folder: loaded by configuration, as an operator loads any connector. */
const REFERENCE_CONNECTOR = fileURLToPath(new URL('../../../test/reference-connector', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = <T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000, intervalMs?: number): Promise<T> =>
  waitFor('the condition', check, timeoutMs, intervalMs) as Promise<T>;

/** An ingest row once its store order was handled (read once: a second read could see a later state). */
function settled<R extends { status: string }>(row: R | undefined): R | undefined {
  return row && row.status !== 'received' ? row : undefined;
}
function inStatus<R extends { status: string }>(row: R | undefined, status: string): R | undefined {
  return row?.status === status ? row : undefined;
}

function refOrder(
  id: string,
  over: Partial<{ paid: boolean; cancelled: boolean; updated_at: string; items: unknown[]; ship_to: unknown }> = {},
) {
  return {
    id,
    number: `#${id}`,
    paid: true,
    cancelled: false,
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:05:00Z',
    items: [
      { id: `${id}-1`, sku: 'CARD-01', qty: 250, product_id: 'p-1', variant_id: 'v-1' },
      { id: `${id}-2`, sku: 'TSHIRT-XL', qty: 1 },
      { id: `${id}-3`, sku: null, qty: 1 },
    ],
    ship_to: {
      name: 'Eva Jansen',
      email: 'eva@example.nl',
      street: 'Dam 1',
      zip: '1012 JS',
      city: 'Amsterdam',
      country: 'nl',
    },
    ...over,
  };
}

for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`the ingestion pipeline with the reference connector [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    let key: string;
    let resellerId: string;
    let storeId: string;
    let secret = '';
    const shipments: unknown[] = [];
    const polls: string[] = [];

    const deliver = async (order: unknown, opts: { eventId?: string; forge?: boolean } = {}) => {
      const body = JSON.stringify({ order });
      const signature = createHmac('sha256', opts.forge ? 'wrong' : secret)
        .update(body)
        .digest('hex');
      const res = await fetch(`${t.baseUrl}/connectors/reference/webhooks/${storeId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-ref-signature': signature,
          'x-ref-event-id': opts.eventId ?? randomUUID(),
          'x-ref-topic': 'order.updated',
          'user-agent': 'RefShop-Hookshot/1.0',
        },
        body,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const ingest = (externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirst();

    before(async function () {
      files = await startFileServer();
      t = await startTestService(
        this,
        backend,
        {
          PRODUCTION_SIMULATOR: 'on',
          PRODUCTION_SIMULATOR_STEP_MS: '1000',
          CONNECTORS: REFERENCE_CONNECTOR,
          CONNECTOR_REFERENCE_PAGE_SIZE: '20',
        },
        { maintenanceIntervalMs: 200 },
      );
      nock.disableNetConnect();
      nock.enableNetConnect(/127\.0\.0\.1|localhost/);
      nock(SHOP)
        .persist()
        .get('/api/shop')
        .reply(200, { id: 'ref-shop-1', name: 'Reference Shop' })
        // nock 15 hangs on reply functions for fetch POSTs with a body: capture through the body matcher instead.
        .post('/api/webhooks', (body: unknown) => {
          // nock tries this matcher on other requests too (the polls' GETs, without a body).
          const parsed = (typeof body === 'string' ? (body ? JSON.parse(body) : {}) : body) as
            | { secret?: string }
            | undefined;
          if (parsed?.secret) secret = parsed.secret;
          return true;
        })
        .reply(201, { id: 'wh-1' })
        .get(/\/api\/orders.*/)
        .reply(200, { orders: [] })
        // Order 1016's shipment is refused for good (the shop archived it): its push ends failed.
        .post('/api/orders/1016/shipments')
        .reply(422, { error: 'order 1016 is archived' })
        .post(/\/api\/orders\/(?!1016\/)[^/]+\/shipments/, (body: unknown) => {
          shipments.push({ body: typeof body === 'string' ? JSON.parse(body) : body });
          return true;
        })
        .reply(201, {})
        // Recorded as replied: nock 15's reply functions do not suit core's fetch.
        .on('replied', (req: { url?: string; path?: string }) => {
          const url = new URL(req.url ?? req.path ?? '', SHOP);
          if (url.pathname === '/api/orders') polls.push(url.search);
        });
      const r = await cardsReseller(t, files);
      key = r.key;
      resellerId = r.id;
      const store = await t.api(key, 'POST', '/stores', { platform: 'REFERENCE', shopUrl: SHOP, token: 'tok-123' });
      expect(store.status, JSON.stringify(store.body)).to.equal(201);
      storeId = store.body.data.id;
      await until(async () => secret !== '' && secret !== undefined);
    });
    after(async () => {
      nock.cleanAll();
      nock.enableNetConnect();
      await t?.close();
      await files?.close();
    });

    it('connects the store through the connector and never shows its credentials', async () => {
      const store = (await t.api(key, 'GET', `/stores/${storeId}`)).body.data;
      expect(store).to.include({
        platform: 'REFERENCE',
        externalId: 'ref-shop-1',
        name: 'Reference Shop',
        status: 'connected',
      });
      expect(JSON.stringify(store)).not.to.contain('tok-123');
      const row = await t.service.db
        .selectFrom('stores')
        .selectAll()
        .where('id', '=', storeId)
        .executeTakeFirstOrThrow();
      expect(row.credentials_sealed).not.to.contain('tok-123');
      expect(row.webhook_secret_sealed).not.to.contain(secret);
    });

    it('polls the store with the page size its CONNECTOR_REFERENCE_PAGE_SIZE setting gives', async () => {
      // The first poll follows the connection.
      const uri = await until(async () => polls[0]);
      expect(uri).to.match(/[?&]limit=20(&|$)/);
    });

    it('refuses a forged webhook with 401 and stores nothing', async () => {
      const res = await deliver(refOrder('F-1'), { forge: true });
      expect(res.status).to.equal(401);
      expect(await t.service.db.selectFrom('store_webhook_events').selectAll().execute()).to.have.length(0);
    });

    it('places a paid store order with source REFERENCE, skipping the lines that are not print items', async () => {
      const res = await deliver(refOrder('1001'));
      expect(res.status).to.equal(200);
      const row = await until(async () => ((await ingest('1001'))?.order_id ? ingest('1001') : undefined));
      const order = (await t.api(key, 'GET', `/orders/${row!.order_id}`)).body.data;
      expect(order).to.include({ source: 'REFERENCE', externalOrderId: '1001', storeId, state: 'SUBMITTED' });
      expect(order.lines).to.have.length(1);
      expect(order.recipient.country).to.equal('NL');
      expect(row!.skipped_lines.map((l) => l.sku)).to.deep.equal(['TSHIRT-XL', null]);
      const links = (await t.api(key, 'GET', `/stores/${storeId}/links`)).body.data;
      expect(links[0]).to.include({
        sku: 'CARD-01',
        externalProductId: 'p-1',
        externalVariantId: 'v-1',
        discovered: true,
      });
    });

    it("shows the back-office the reseller's stores and a store's ingests, and another reseller's store as unknown", async () => {
      await until(async () => (await ingest('1001'))?.order_id);
      const stores = await t.admin('GET', `/resellers/${resellerId}/stores`);
      expect(stores.status, JSON.stringify(stores.body)).to.equal(200);
      expect(stores.body.data.map((s: { id: string }) => s.id)).to.deep.equal([storeId]);
      expect(JSON.stringify(stores.body)).not.to.contain('tok-123');
      const ingests = await t.admin('GET', `/resellers/${resellerId}/stores/${storeId}/ingests`);
      expect(ingests.status, JSON.stringify(ingests.body)).to.equal(200);
      expect(ingests.body.data.map((i: { externalOrderId: string }) => i.externalOrderId)).to.include('1001');
      const other = await t.reseller();
      expect((await t.admin('GET', `/resellers/${other.id}/stores/${storeId}/ingests`)).status).to.equal(404);
      expect((await t.admin('GET', `/resellers/${other.id}/stores`)).body.data).to.deep.equal([]);
    });

    it("keeps an Italian order's province and company in the placed order's recipient", async () => {
      const ship_to = {
        name: 'Giulia Rossi',
        company: 'Tipografia Rossi S.r.l.',
        street: 'Via Torino 12',
        zip: '20121',
        city: 'Milano',
        province: ' MI ',
        country: 'it',
      };
      await deliver(refOrder('1001-IT', { ship_to }));
      const row = await until(async () => ((await ingest('1001-IT'))?.order_id ? ingest('1001-IT') : undefined));
      const order = (await t.api(key, 'GET', `/orders/${row!.order_id}`)).body.data;
      expect(order.recipient).to.deep.include({
        name: 'Giulia Rossi',
        company: 'Tipografia Rossi S.r.l.',
        postalCode: '20121',
        city: 'Milano',
        state: 'MI',
        country: 'IT',
      });
      const created = await t.service.db
        .selectFrom('events')
        .select('payload')
        .where('order_id', '=', order.id)
        .where('type', '=', 'order.created')
        .executeTakeFirstOrThrow();
      const payload = typeof created.payload === 'string' ? JSON.parse(created.payload) : created.payload;
      expect((payload as any).data.order.recipient).to.deep.include({
        company: 'Tipografia Rossi S.r.l.',
        state: 'MI',
      });
    });

    it("uses the products of the store's mode only: a live store neither links nor prints the reseller's test products", async () => {
      const testKey = (await t.admin('POST', `/resellers/${resellerId}/api-keys`, { mode: 'test' })).body.data
        .key as string;
      expect(
        (
          await t.api(testKey, 'POST', '/reseller-products', {
            sku: 'TEST-ONLY',
            title: 'Sandbox cards',
            productId: 'business-cards',
            fileUrl: `${files.url}/art/flyer.pdf`,
          })
        ).status,
      ).to.equal(201);
      const link = await t.api(key, 'POST', `/stores/${storeId}/links`, {
        resellerProduct: 'TEST-ONLY',
        externalProductId: 'p-9',
      });
      expect(link.status, JSON.stringify(link.body)).to.equal(404);
      // The test key does not see the live store either.
      expect(
        (
          await t.api(testKey, 'POST', `/stores/${storeId}/links`, {
            resellerProduct: 'TEST-ONLY',
            externalProductId: 'p-9',
          })
        ).status,
      ).to.equal(404);
      const order = refOrder('1090', {
        items: [
          { id: '1090-1', sku: 'CARD-01', qty: 250 },
          { id: '1090-2', sku: 'TEST-ONLY', qty: 250, product_id: 'p-9' },
        ],
      });
      expect((await deliver(order)).status).to.equal(200);
      const row = await until(async () => ((await ingest('1090'))?.order_id ? ingest('1090') : undefined));
      expect(row!.skipped_lines).to.deep.equal([
        { sku: 'TEST-ONLY', quantity: 250, reason: 'not one of your SKUs: not a print item' },
      ]);
      const placed = (await t.api(key, 'GET', `/orders/${row!.order_id}`)).body.data;
      expect(placed.lines.map((l: { resellerSku: string }) => l.resellerSku)).to.deep.equal(['CARD-01']);
    });

    it('turns the same order delivered five times, concurrently, into one print order', async () => {
      const order = refOrder('1002');
      await Promise.all(Array.from({ length: 5 }, (_, i) => deliver(order, { eventId: `evt-1002-${i}` })));
      await until(async () => (await ingest('1002'))?.order_id);
      await sleep(300);
      const orders = await t.service.db
        .selectFrom('orders')
        .select('id')
        .where('external_order_id', '=', '1002')
        .execute();
      expect(orders).to.have.length(1);
    });

    it('ingests the webhooks received together despite one it cannot read, which is retried on its own and ends failed', async () => {
      const failedBefore = (
        await t.service.queue
          .queues()
          .find((q) => q.name === 'ingest-reference')!
          .counts()
      ).failed;
      const good = ['1101', '1102', '1103', '1104'];
      const results = await Promise.all([
        ...good.map((id) => deliver(refOrder(id))),
        deliver({ id: 'BAD-1' }, { eventId: 'evt-bad-1' }),
      ]);
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
      for (const id of good) await until(async () => (await ingest(id))?.order_id);
      await until(
        async () =>
          (
            await t.service.queue
              .queues()
              .find((q) => q.name === 'ingest-reference')!
              .counts()
          ).failed > failedBefore,
      );
      const bad = await t.service.db
        .selectFrom('store_webhook_events')
        .select('processed_at')
        .where('event_key', '=', 'evt-bad-1')
        .executeTakeFirstOrThrow();
      expect(bad.processed_at).to.equal(null);
      expect(await ingest('BAD-1')).to.equal(undefined);
    });

    it('waits for payment, then places the order when the paid update arrives (even after an older copy)', async () => {
      await deliver(refOrder('1003', { paid: false, updated_at: '2026-11-20T10:01:00Z' }));
      expect((await until(async () => settled(await ingest('1003'))))!.status).to.equal('waiting_payment');
      await deliver(refOrder('1003', { paid: true, updated_at: '2026-11-20T10:03:00Z' }));
      const placed = await until(async () => inStatus(await ingest('1003'), 'placed'));
      expect(placed!.order_id).to.be.a('string');
    });

    it('records a store order without print lines and places nothing', async () => {
      await deliver(refOrder('1004', { items: [{ id: 'x', sku: 'MUG', qty: 2 }] }));
      const row = await until(async () => settled(await ingest('1004')));
      expect(row!.status).to.equal('no_print_lines');
      expect(row!.order_id).to.equal(null);
    });

    /**
     * Runs `body` with the production simulator's steps held: "while that is still possible" cannot hinge on an
     * update arriving within the simulator's second (beside other work, one did not). Held steps go on after.
     */
    const withProductionHeld = async (body: () => Promise<void>) => {
      const orders = t.service.services.orders;
      const report = orders.reportProduction;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      orders.reportProduction = async (...args: Parameters<typeof report>) => {
        await held;
        return report.apply(orders, args);
      };
      try {
        await body();
      } finally {
        orders.reportProduction = report;
        release();
      }
    };

    it('cancels our order when the store cancels it, while that is still possible', () =>
      withProductionHeld(async () => {
        await deliver(refOrder('1005'));
        const placed = await until(async () => (await ingest('1005'))?.order_id);
        const res = await deliver(refOrder('1005', { cancelled: true, updated_at: '2026-11-20T11:00:00Z' }));
        expect(res.status).to.equal(200);
        const row = await until(async () => {
          const row = await ingest('1005');
          return row && (row.status === 'cancelled' || row.error) ? row : undefined;
        });
        const order = (await t.api(key, 'GET', `/orders/${placed}`)).body.data;
        expect(order.state).to.equal('CANCELLED');
        expect(row!.status).to.equal('cancelled');
      }));

    it('a cancellation that arrives twice (the webhook and a poll, or a retried job) leaves the ingest cancelled, without an error, and refunds once', () =>
      withProductionHeld(async () => {
        await deliver(refOrder('1017'));
        const placed = await until(async () => (await ingest('1017'))?.order_id);
        const cancelled = refOrder('1017', { cancelled: true, updated_at: '2026-11-20T11:00:00Z' });
        expect((await deliver(cancelled)).status).to.equal(200);
        await until(async () => (await ingest('1017'))?.status === 'cancelled');
        const events = await t.service.db.selectFrom('store_webhook_events').select('id').execute();
        expect((await deliver(cancelled)).status).to.equal(200);
        // The second copy is processed (its own event), and finds ours cancelled already.
        await until(async () => {
          const after = await t.service.db
            .selectFrom('store_webhook_events')
            .select('processed_at')
            .where(
              'id',
              'not in',
              events.map((e) => e.id),
            )
            .execute();
          return after.length > 0 && after.every((e) => e.processed_at !== null);
        });
        const row = await ingest('1017');
        expect(row!.status).to.equal('cancelled');
        expect(row!.error).to.equal(null);
        expect((await t.api(key, 'GET', `/orders/${placed}`)).body.data.state).to.equal('CANCELLED');
        const refunds = await t.service.db
          .selectFrom('wallet_ledger')
          .select('amount_cents')
          .where('order_id', '=', placed!)
          .where('kind', '=', 'order_refund')
          .execute();
        expect(refunds).to.have.length(1);
      }));

    it('pushes the tracking back to the store once the production simulator ships', async () => {
      await deliver(refOrder('1006'));
      const orderId = await until(async () => (await ingest('1006'))?.order_id);
      // Asked through the API every 250 ms: at every 25 ms the three simulated steps (a second
      // each) would spend the key's 120 requests a minute, and the next test would get 429s.
      const order = await until(
        async () => {
          const o = (await t.api(key, 'GET', `/orders/${orderId}`)).body.data;
          return o.tracking ? o : undefined;
        },
        30_000,
        250,
      );
      const pushed = (await until(
        async () => shipments.find((s: any) => s.body.tracking_number === order.tracking.trackingNumber),
        20_000,
      )) as any;
      expect(pushed.body).to.include({ carrier: order.tracking.carrier, tracking_url: order.tracking.trackingUrl });
      // The store answers the push before its outcome is written: the row follows a moment later.
      const fulfilment = await until(async () => {
        const f = await t.service.db
          .selectFrom('store_fulfilments')
          .selectAll()
          .where('order_id', '=', orderId)
          .executeTakeFirst();
        return f?.status === 'pushed' ? f : undefined;
      });
      expect(fulfilment!.status).to.equal('pushed');
      // A cancellation that comes after production started cannot cancel ours: it is recorded, not lost.
      await deliver(refOrder('1006', { cancelled: true, updated_at: '2026-11-20T12:00:00Z' }));
      const row = await until(async () => ((await ingest('1006'))?.error ? ingest('1006') : undefined));
      expect(row!.error).to.match(/could not be: Order .* cannot be cancelled/);
      expect((await t.api(key, 'GET', `/orders/${orderId}`)).body.data.state).to.equal('SUBMITTED');
    });

    it('starts the tracking push from order.shipped: no write of the order, nor any other, scans for shipments', async () => {
      const upkeep = t.service.services.orders.upkeep;
      const scan = upkeep.shippedStoreOrders;
      let scans = 0;
      upkeep.shippedStoreOrders = (query) => {
        scans++;
        return scan.call(upkeep, query);
      };
      try {
        // Every write of this order (order.created, order.submitted, order.in_production, ...) and
        // of anything else meanwhile is an outbox write: none of them reads the shipped orders.
        await deliver(refOrder('1008'));
        const orderId = await until(async () => (await ingest('1008'))?.order_id);
        const fulfilment = () =>
          t.service.db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
        await until(async () => (await fulfilment())?.status === 'pushed', 30_000, 250);
        const order = (await t.api(key, 'GET', `/orders/${orderId}`)).body.data;
        expect(shipments.some((s: any) => s.body.tracking_number === order.tracking.trackingNumber)).to.equal(true);
        expect(scans, 'scans of the shipped orders').to.equal(0);
      } finally {
        upkeep.shippedStoreOrders = scan;
      }
    });

    it('queues a tracking push again whose job was lost (Redis away when it was queued)', async () => {
      await deliver(refOrder('1007'));
      const orderId = await until(async () => (await ingest('1007'))?.order_id);
      const fulfilment = () =>
        t.service.db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
      await until(async () => (await fulfilment())?.status === 'pushed', 30_000, 250);
      const pushes = shipments.length;
      // As a push whose job could not be added is left: pending, never tried, queued minutes ago.
      await t.service.db
        .updateTable('store_fulfilments')
        .set({ status: 'pending', attempts: 0, updated_at: new Date(Date.now() - 5 * 60_000) })
        .where('order_id', '=', orderId)
        .execute();
      // Queued again by this call or by the maintenance sweep (every 200 ms here), whichever comes first.
      await t.service.services.storesModule.fulfilments.queueShipments();
      await until(async () => (await fulfilment())?.status === 'pushed', 20_000, 100);
      expect(shipments.length).to.equal(pushes + 1);
    });

    it('queues again a push tried and failed whose job was lost, not one still waiting out its backoff nor one given up', async () => {
      const fulfilment = (orderId: string) =>
        t.service.db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
      const pushedOrder = async (externalId: string) => {
        await deliver(refOrder(externalId));
        const orderId = await until(async () => (await ingest(externalId))?.order_id ?? undefined);
        await until(async () => (await fulfilment(orderId))?.status === 'pushed', 30_000, 250);
        const order = (await t.api(key, 'GET', `/orders/${orderId}`)).body.data;
        const pushes = () => shipments.filter((s: any) => s.body.tracking_number === order.tracking.trackingNumber);
        return { orderId, pushes };
      };
      // Made and shipped together: the production simulator steps once a second, three orders in turn took 9 s.
      const [lost, waiting, given] = await Promise.all([pushedOrder('1012'), pushedOrder('1013'), pushedOrder('1014')]);
      const fiveMinutesAgo = new Date(Date.now() - 5 * 60_000);
      const rewrite = (orderId: string, row: { status: 'pending' | 'failed'; attempts: number }) =>
        t.service.db
          .updateTable('store_fulfilments')
          .set({ ...row, last_error: 'socket hang up', updated_at: fiveMinutesAgo })
          .where('order_id', '=', orderId)
          .execute();
      // Tried 3 times, the last 5 minutes ago: its retry was due 20 s after, and its job is gone (Redis restarted empty).
      await rewrite(lost.orderId, { status: 'pending', attempts: 3 });
      // Tried 10 times: its next attempt comes 5 s × 2⁹ (43 minutes) after the last.
      await rewrite(waiting.orderId, { status: 'pending', attempts: 10 });
      // Given up: never queued again by a sweep.
      await rewrite(given.orderId, { status: 'failed', attempts: 15 });
      await t.service.services.storesModule.fulfilments.queueShipments();
      await until(async () => (await fulfilment(lost.orderId))?.status === 'pushed', 20_000, 100);
      expect(lost.pushes()).to.have.length(2);
      // A round more, then the fulfil queue idle: nothing was queued for the other two.
      await t.service.services.storesModule.fulfilments.queueShipments();
      const fulfil = t.service.queue.queues().find((q) => q.name === 'fulfil-reference')!;
      await until(async () => {
        const c = await fulfil.counts();
        return c.waiting + c.active === 0;
      });
      expect(await fulfilment(waiting.orderId)).to.include({ status: 'pending', attempts: 10 });
      expect(await fulfilment(given.orderId)).to.include({ status: 'failed', attempts: 15 });
      expect(waiting.pushes()).to.have.length(1);
      expect(given.pushes()).to.have.length(1);
    });

    it('queues at the next round a shipment whose push could not be queued when it shipped (Redis away)', async () => {
      const fulfil = t.service.queue.queues().find((q) => q.name === 'fulfil-reference')!;
      const { maintenance } = t.service.services;
      await maintenance.stop();
      const add = fulfil.add;
      const refused: unknown[] = [];
      fulfil.add = (data) => {
        refused.push(data);
        return Promise.reject(new Error('Connection is closed.'));
      };
      try {
        await deliver(refOrder('1015'));
        const orderId = await until(async () => (await ingest('1015'))?.order_id ?? undefined);
        const fulfilment = () =>
          t.service.db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
        // Shipped, its push recorded as pending, and its job refused by the queue.
        await until(async () => refused.some((d) => (d as { orderId?: string }).orderId === orderId), 30_000, 100);
        expect(await fulfilment()).to.include({ status: 'pending', attempts: 0 });
        fulfil.add = add;
        // The next round queues it at once (not only once it is overdue, a minute on).
        expect(await t.service.services.storesModule.fulfilments.queueShipments()).to.be.at.least(1);
        await until(async () => (await fulfilment())?.status === 'pushed', 20_000, 100);
      } finally {
        fulfil.add = add;
        maintenance.start();
      }
    });

    it('marks a push the store refuses for good failed, its reason kept, and no sweep queues it again', async () => {
      await deliver(refOrder('1016'));
      const orderId = await until(async () => (await ingest('1016'))?.order_id ?? undefined);
      const fulfilment = () =>
        t.service.db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
      const failed = await until(
        async () => ((await fulfilment())?.status === 'failed' ? fulfilment() : undefined),
        30_000,
        250,
      );
      expect(failed).to.include({ attempts: 1 });
      expect(failed!.last_error).to.match(/422.*archived/);
      await t.service.services.storesModule.fulfilments.queueShipments();
      await t.service.services.storesModule.fulfilments.requeuePending();
      expect(await fulfilment()).to.include({ status: 'failed', attempts: 1 });
    });

    it("spends no push attempt on a wait for the store's call budget", async () => {
      await deliver(refOrder('1009'));
      const orderId = await until(async () => (await ingest('1009'))?.order_id);
      const fulfilment = () =>
        t.service.db.selectFrom('store_fulfilments').selectAll().where('order_id', '=', orderId).executeTakeFirst();
      await until(async () => (await fulfilment())?.status === 'pushed', 30_000, 250);
      const pushes = shipments.length;
      // Every call of the store's window taken, then the push queued again (by this call or the
      // maintenance sweep, whichever comes first): it must wait for the next window.
      const store = (await t.service.services.storesModule.stores.connections.findById(storeId))!;
      await until(
        async () =>
          t.service.services.storesModule.calls.slot(store).then(
            () => false,
            () => true,
          ),
        10_000,
        0,
      );
      await t.service.db
        .updateTable('store_fulfilments')
        .set({ status: 'pending', attempts: 0, updated_at: new Date(Date.now() - 5 * 60_000) })
        .where('order_id', '=', orderId)
        .execute();
      await t.service.services.storesModule.fulfilments.queueShipments();
      const pushed = await until(
        async () => ((await fulfilment())?.status === 'pushed' ? fulfilment() : undefined),
        20_000,
        100,
      );
      expect(pushed!.attempts).to.equal(1);
      expect(shipments.length).to.equal(pushes + 1);
    });

    it('guards a linked SKU against deletion until the store is disconnected', async () => {
      const refused = await t.api(key, 'DELETE', '/reseller-products/CARD-01');
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('reseller_product_linked');
      expect(refused.body.error.message).to.contain(storeId);
      expect((await t.api(key, 'GET', '/reseller-products/CARD-01')).body.data.links).to.equal(1);
      expect((await t.api(key, 'DELETE', `/stores/${storeId}`)).body.data.status).to.equal('disconnected');
      expect((await t.api(key, 'DELETE', '/reseller-products/CARD-01')).status).to.equal(200);
      const ingests = (await t.api(key, 'GET', `/stores/${storeId}/ingests`)).body.data;
      expect(ingests.length).to.be.at.least(5);
    });
  });
}
