import { expect } from 'chai';
import { defineConnector } from '@print-api/connector-kit';
import { referenceConnector } from '../../../test/reference-connector/src/index.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { ReferenceShop, refOrder, type RefOrderJson } from '../helpers/reference-shop.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';
import { startFileServer } from '../orders/orders-helpers.ts';
import { createEndpoint, FAST_WEBHOOKS, Receiver, signatureIsValid } from '../webhooks/webhook-test-helpers.ts';

/** The reference platform without `fetchOrders`: a retry takes the order from the newest stored delivery. */
const { fetchOrders: _fetch, ...withoutFetch } = referenceConnector;
const storedOnly = defineConnector({
  ...withoutFetch,
  manifest: {
    ...referenceConnector.manifest,
    platform: 'REFERENCE_STORED',
    displayName: 'Reference shop (no order fetch)',
  },
});

/**
 * The reference platform without `listOrders`: a store that is never polled, so that only the deliveries and the
 * retries a test makes ingest its orders (a poll of the same order could place it the moment its product exists).
 */
const { listOrders: _list, ...withoutListing } = referenceConnector;
const unpolled = defineConnector({
  ...withoutListing,
  manifest: {
    ...referenceConnector.manifest,
    platform: 'REFERENCE_UNPOLLED',
    displayName: 'Reference shop (not polled)',
    capabilities: { ...referenceConnector.manifest.capabilities, polling: false },
  },
});

/**
 * Skipped store orders come back: an order whose SKUs are none of the reseller's products is
 * recorded as skipped and told through `store.order_skipped` (signed, through the webhook
 * system); once the product exists, a retry places it once.
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`skipped store orders [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    let receiver: Receiver;
    let hookSecret: string;
    let shop: ReferenceShop;
    let key: string;

    const connect = async (platform: string, target: ReferenceShop) => {
      const res = await t.api(key, 'POST', '/stores', { platform, shopUrl: target.url, token: 'tok-1' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await waitFor('the webhook secret', () => target.webhookSecret);
      return res.body.data.id as string;
    };
    const deliver = async (target: ReferenceShop, slug: string, storeId: string, order: RefOrderJson) => {
      const req = target.signed(order);
      const res = await fetch(`${t.baseUrl}/connectors/${slug}/webhooks/${storeId}`, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
      });
      expect(res.status).to.equal(200);
    };
    const ingest = (storeId: string, externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirst();
    const skippedEvents = async () =>
      (
        await t.service.db.selectFrom('events').select('payload').where('type', '=', 'store.order_skipped').execute()
      ).map((e) => (e.payload as unknown as { data: unknown }).data);
    const createProduct = async (sku: string) => {
      const res = await t.api(key, 'POST', '/reseller-products', {
        sku,
        title: sku,
        productId: 'business-cards',
        fileUrl: `${files.url}/art/flyer.pdf`,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    };

    before(async function () {
      files = await startFileServer();
      receiver = await Receiver.start();
      shop = await ReferenceShop.start();
      t = await startTestService(
        this,
        backend,
        {},
        { ...FAST_WEBHOOKS, connectors: [referenceConnector, storedOnly, unpolled] },
      );
      const r = await t.reseller();
      key = r.key;
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 10_000_000 });
      hookSecret = (await createEndpoint(t, key, receiver.hook('/skipped'), ['store.order_skipped'])).secret;
      await createProduct('CARD-01');
    });
    after(async () => {
      await t?.close();
      await shop?.close();
      await receiver?.close();
      await files?.close();
    });

    it('records an order for unmatched SKUs as skipped and tells the reseller once (store.order_skipped, signed); once the product exists, a retry places it once', async () => {
      // Not polled: the store's first (catch-up) poll, or a later one, would place K-1 as soon as its product exists,
      // before the retry this test makes (seen once, the first poll late on a busy machine).
      const storeId = await connect('REFERENCE_UNPOLLED', shop);
      const order = refOrder('K-1', {
        items: [
          { id: 'K-1-1', sku: 'POSTER-A2', qty: 250, product_id: 'p-4' },
          { id: 'K-1-2', sku: null, qty: 1 },
        ],
      });
      shop.orders.set('K-1', order);
      await deliver(shop, 'reference-unpolled', storeId, order);
      const skipped = await waitFor('K-1 skipped', async () =>
        (await ingest(storeId, 'K-1'))?.status === 'no_print_lines' ? ingest(storeId, 'K-1') : undefined,
      );

      const listed = await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped`);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      expect(listed.body.data.map((i: { externalOrderId: string }) => i.externalOrderId)).to.deep.equal(['K-1']);

      const sent = (await waitFor('the store.order_skipped delivery', () => receiver.requests('/skipped')[0], 20_000))!;
      expect(signatureIsValid(hookSecret, sent.headers, sent.raw)).to.equal(true);
      expect(sent.event.type).to.equal('store.order_skipped');
      expect(sent.event.data).to.deep.include({
        store: { id: storeId, platform: 'REFERENCE_UNPOLLED', name: 'Reference Shop' },
        storeOrder: { ingestId: skipped!.id, externalOrderId: 'K-1', name: '#K-1' },
        unmatchedSkus: ['POSTER-A2'],
      });

      // The same order delivered again tells nothing new.
      await deliver(shop, 'reference-unpolled', storeId, order);
      await waitFor('the second delivery ingested', async () => ((await ingest(storeId, 'K-1'))?.attempts ?? 0) >= 2);
      expect(await skippedEvents()).to.have.length(1);

      // Retried before the product exists: still skipped.
      const early = await t.api(key, 'POST', `/stores/${storeId}/ingests/${skipped!.id}/retry`);
      expect(early.status, JSON.stringify(early.body)).to.equal(200);
      expect(early.body.data).to.include({ status: 'no_print_lines', orderId: null });

      await createProduct('poster-a2');
      const asked = shop.server.hits('/api/order');
      const retried = await t.api(key, 'POST', `/stores/${storeId}/ingests/${skipped!.id}/retry`);
      expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
      expect(retried.body.data.status).to.equal('placed');
      expect(shop.server.hits('/api/order')).to.equal(asked + 1);
      const placed = (await t.api(key, 'GET', `/orders/${retried.body.data.orderId}`)).body.data;
      expect(placed).to.include({ source: 'REFERENCE_UNPOLLED', externalOrderId: 'K-1', storeId });

      // Placed once: another retry is refused, and a later delivery of the order changes nothing.
      const again = await t.api(key, 'POST', `/stores/${storeId}/ingests/${skipped!.id}/retry`);
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('ingest_not_retryable');
      await deliver(shop, 'reference-unpolled', storeId, order);
      await waitFor('the third delivery processed', async () =>
        (
          await t.service.db
            .selectFrom('store_webhook_events')
            .select('processed_at')
            .where('store_id', '=', storeId)
            .execute()
        ).every((e) => e.processed_at !== null),
      );
      const orders = await t.service.db
        .selectFrom('orders')
        .select('id')
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', 'K-1')
        .execute();
      expect(orders.map((o) => o.id)).to.deep.equal([retried.body.data.orderId]);
      expect((await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped`)).body.data).to.deep.equal([]);
    });

    it('tells a skipped order once when its copies are ingested side by side (a webhook and the catch-up poll)', async () => {
      const other = await ReferenceShop.start();
      try {
        const storeId = await connect('REFERENCE', other);
        const store = (await t.service.services.storesModule.stores.connections.findById(storeId))!;
        const order = {
          externalId: 'R-1',
          name: '#R-1',
          paid: true,
          cancelled: false,
          createdAt: '2026-11-20T10:00:00Z',
          updatedAt: '2026-11-20T10:05:00Z',
          lines: [
            { externalLineId: 'R-1-1', sku: 'BANNER-X', quantity: 1, externalProductId: null, externalVariantId: null },
          ],
          recipient: null,
        };
        const before = (await skippedEvents()).length;
        await Promise.all(
          Array.from({ length: 5 }, () => t.service.services.storesModule.ingester.ingest(store, order)),
        );
        expect((await ingest(storeId, 'R-1'))!.status).to.equal('no_print_lines');
        expect((await skippedEvents()).length - before).to.equal(1);
      } finally {
        await other.close();
      }
    });

    it('does not count an order placed with some lines skipped, nor one of only lines without SKUs, as skipped', async () => {
      const other = await ReferenceShop.start();
      try {
        const storeId = await connect('REFERENCE', other);
        const before = (await skippedEvents()).length;
        await deliver(
          other,
          'reference',
          storeId,
          refOrder('M-1', {
            items: [
              { id: 'M-1-1', sku: 'CARD-01', qty: 250 },
              { id: 'M-1-2', sku: 'MUG-01', qty: 1 },
            ],
          }),
        );
        await deliver(other, 'reference', storeId, refOrder('M-2', { items: [{ id: 'M-2-1', sku: null, qty: 1 }] }));
        await waitFor('M-1 placed', async () => (await ingest(storeId, 'M-1'))?.status === 'placed');
        await waitFor('M-2 recorded', async () => (await ingest(storeId, 'M-2'))?.status === 'no_print_lines');
        expect((await t.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped`)).body.data).to.deep.equal([]);
        expect(
          (await t.api(key, 'GET', `/stores/${storeId}/ingests?status=placed`)).body.data.map(
            (i: { externalOrderId: string }) => i.externalOrderId,
          ),
        ).to.deep.equal(['M-1']);
        expect(await skippedEvents()).to.have.length(before);
      } finally {
        await other.close();
      }
    });

    it('retries from the newest stored delivery where the platform cannot be asked for the order', async () => {
      const other = await ReferenceShop.start();
      try {
        const storeId = await connect('REFERENCE_STORED', other);
        const order = refOrder('S-1', { items: [{ id: 'S-1-1', sku: 'CALENDAR-A4', qty: 250 }] });
        await deliver(other, 'reference-stored', storeId, order);
        const skipped = await waitFor('S-1 skipped', async () =>
          (await ingest(storeId, 'S-1'))?.status === 'no_print_lines' ? ingest(storeId, 'S-1') : undefined,
        );
        await createProduct('CALENDAR-A4');
        const retried = await t.api(key, 'POST', `/stores/${storeId}/ingests/${skipped!.id}/retry`);
        expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
        expect(retried.body.data, JSON.stringify(retried.body.data)).to.include({ status: 'placed' });
        expect(other.server.hits('/api/order')).to.equal(0);
      } finally {
        await other.close();
      }
    });
  });
}
