import { expect } from 'chai';
import { eventually as waitFor, startTestService, type TestService, scaled } from '@print-api/core/testing';
import { sandboxConnector } from '../src/index.ts';

const SKU = 'POSTER-TULIPS';
const OTHER_SKU = 'MUG-DELFT';

/** Waits for `probe` to answer something truthy, polling against a deadline (what it waits for named first). */
const eventually = <T>(what: string, probe: () => Promise<T | undefined | null | false>): Promise<T> =>
  waitFor(probe, what, 20_000);

/**
 * A sandbox store end to end on the real service: connected with a test key (a live key is
 * refused), its store orders made through the API arrive as signed webhooks, are ingested and
 * placed as test print orders (source SANDBOX), and the production simulator's tracking is
 * pushed back to the sandbox store.
 */
for (const backend of ['postgres+redis', 'pglite'] as const) {
  describe(`sandbox store [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let key: string;

    const api = (method: string, path: string, body?: unknown, as = key) => t.api(as, method, path, body);
    const connect = async (as = key, name?: string) => {
      const res = await api('POST', '/stores', { platform: 'SANDBOX', ...(name ? { name } : {}) }, as);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data as { id: string; platform: string; status: string; testMode: boolean; name: string };
    };
    const ingest = async (storeId: string, externalOrderId: string) =>
      (
        (await api('GET', `/stores/${storeId}/ingests?limit=100`)).body.data as Array<{
          externalOrderId: string;
          status: string;
          orderId: string | null;
          skippedLines: Array<{ sku: string | null }>;
        }>
      ).find((i) => i.externalOrderId === externalOrderId);
    const ingestIn = (storeId: string, externalOrderId: string, status: string) =>
      eventually(`store order ${externalOrderId} ${status}`, async () => {
        const i = await ingest(storeId, externalOrderId);
        return i?.status === status && i;
      });

    before(async function () {
      t = await startTestService(
        this,
        backend,
        { PRODUCTION_SIMULATOR_STEP_MS: '50', RATE_LIMIT_PER_MINUTE: '100000' },
        { connectors: [sandboxConnector], maintenanceIntervalMs: 200 },
      );
      key = (await t.reseller({ mode: 'test' })).key;
      const sample = (await api('GET', '/products/posters')).body.data.sampleFiles[0].url as string;
      const product = await api('POST', '/reseller-products', {
        sku: SKU,
        title: 'Tulip poster A2',
        productId: 'posters',
        fileUrl: sample,
      });
      expect(product.status, JSON.stringify(product.body)).to.equal(201);
    });
    after(async () => t?.close());

    it('refuses a live key: sandbox stores are for test keys, and nothing is made', async () => {
      const live = (await t.reseller({ mode: 'live' })).key;
      const res = await api('POST', '/stores', { platform: 'SANDBOX' }, live);
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('store_not_connectable');
      expect(res.body.error.message).to.match(/^Sandbox stores are for test keys/);
      expect((await api('GET', '/stores', undefined, live)).body.data).to.deep.equal([]);
      expect(await t.service.db.selectFrom('sandbox_shops').select('id').execute()).to.have.length(0);
    });

    it('places a store order as a test print order (source SANDBOX), skips the line that is not a SKU of yours, and pushes the tracking back', async () => {
      const store = await connect(key, 'Tulip test shop');
      expect(store).to.include({ platform: 'SANDBOX', status: 'connected', testMode: true, name: 'Tulip test shop' });
      const made = await api('POST', `/stores/${store.id}/sandbox-orders`, {
        lines: [
          { sku: SKU, quantity: 2, title: 'Tulip poster' },
          { sku: OTHER_SKU, quantity: 1 },
        ],
      });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      const externalOrderId = made.body.data.externalOrderId as string;
      expect(made.body.data).to.include({ name: `#${externalOrderId}`, paid: true });
      expect(made.body.data.fulfillments).to.deep.equal([]);

      const placed = await ingestIn(store.id, externalOrderId, 'placed');
      expect(placed.skippedLines.map((l) => l.sku)).to.deep.equal([OTHER_SKU]);
      const order = (await api('GET', `/orders/${placed.orderId}`)).body.data;
      expect(order).to.include({ source: 'SANDBOX', externalOrderId, storeId: store.id });
      expect(
        order.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
      ).to.deep.equal([[SKU, 2]]);
      expect(order.recipient).to.include({ name: 'Sanne de Vries', city: 'Amsterdam', country: 'NL' });

      const held = await eventually('the tracking pushed back', async () => {
        const res = await api('GET', `/stores/${store.id}/sandbox-orders/${externalOrderId}`);
        return res.body.data.fulfillments.length > 0 && res.body.data;
      });
      const shipped = (await api('GET', `/orders/${placed.orderId}`)).body.data;
      expect(held.fulfillments).to.have.length(1);
      expect(held.fulfillments[0]).to.include({
        carrier: shipped.tracking.carrier,
        trackingNumber: shipped.tracking.trackingNumber,
        trackingUrl: shipped.tracking.trackingUrl,
      });
      // The printed lines only (the pipeline names them by SKU).
      expect(held.fulfillments[0].lines).to.deep.equal([{ externalLineId: null, sku: SKU, quantity: 2 }]);
      const listed = await api('GET', `/stores/${store.id}/sandbox-orders`);
      expect(listed.body.data.map((o: { externalOrderId: string }) => o.externalOrderId)).to.deep.equal([
        externalOrderId,
      ]);
    });

    it('waits for payment: an unpaid store order is not placed until it is paid', async () => {
      const store = await connect();
      const made = await api('POST', `/stores/${store.id}/sandbox-orders`, {
        lines: [{ sku: SKU, quantity: 1 }],
        paid: false,
      });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      const id = made.body.data.externalOrderId as string;
      await ingestIn(store.id, id, 'waiting_payment');
      const before = (await api('GET', '/orders?limit=100')).body.data.filter(
        (o: { storeId: string }) => o.storeId === store.id,
      );
      expect(before).to.deep.equal([]);
      const paid = await api('POST', `/stores/${store.id}/sandbox-orders/${id}/pay`);
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      expect(paid.body.data.paid).to.equal(true);
      const placed = await ingestIn(store.id, id, 'placed');
      expect((await api('GET', `/orders/${placed.orderId}`)).body.data.source).to.equal('SANDBOX');
      // Paying again changes nothing.
      expect((await api('POST', `/stores/${store.id}/sandbox-orders/${id}/pay`)).status).to.equal(200);
    });

    it('refuses bad store orders with the precise field, writing nothing', async () => {
      const store = await connect();
      const cases: Array<[unknown, string]> = [
        [{ lines: [] }, 'lines'],
        [{ lines: [{ sku: SKU, quantity: 0 }] }, 'lines[0].quantity'],
        [{ lines: [{ sku: SKU, quantity: 1, colour: 'red' }] }, 'lines[0]'],
        [
          {
            lines: [{ sku: SKU, quantity: 1 }],
            recipient: { name: 'X', address1: 'Y', postalCode: '1', city: 'Z', country: 'Netherlands' },
          },
          'recipient.country',
        ],
        [{ lines: [{ sku: SKU, quantity: 1 }], paid: 'yes' }, 'paid'],
      ];
      for (const [body, field] of cases) {
        const res = await api('POST', `/stores/${store.id}/sandbox-orders`, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.code).to.equal('invalid_request');
        expect(
          res.body.error.details.map((d: { field: string }) => d.field),
          JSON.stringify(res.body),
        ).to.include(field);
      }
      expect((await api('GET', `/stores/${store.id}/sandbox-orders`)).body.data).to.deep.equal([]);
      const missing = await api('GET', `/stores/${store.id}/sandbox-orders/9999`);
      expect(missing.status).to.equal(404);
      expect(missing.body.error.code).to.equal('not_found');
      expect((await api('POST', `/stores/${store.id}/sandbox-orders/9999/pay`)).status).to.equal(404);
    });

    it("answers 404 for another reseller's sandbox store, and 409 once the store is disconnected", async () => {
      const store = await connect();
      const made = await api('POST', `/stores/${store.id}/sandbox-orders`, { lines: [{ sku: SKU, quantity: 1 }] });
      const other = (await t.reseller({ mode: 'test' })).key;
      for (const [method, path, body] of [
        ['POST', `/stores/${store.id}/sandbox-orders`, { lines: [{ sku: SKU, quantity: 1 }] }],
        ['GET', `/stores/${store.id}/sandbox-orders`, undefined],
        ['GET', `/stores/${store.id}/sandbox-orders/${made.body.data.externalOrderId}`, undefined],
        ['POST', `/stores/${store.id}/sandbox-orders/${made.body.data.externalOrderId}/pay`, undefined],
        ['POST', `/stores/${store.id}/sandbox-listings`, { title: 'Poster' }],
      ] as const) {
        const res = await api(method, path, body, other);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body.error.code).to.equal('not_found');
      }
      expect((await api('GET', `/stores/${store.id}/sandbox-orders`)).body.data).to.have.length(1);
      expect((await api('DELETE', `/stores/${store.id}`)).status).to.equal(200);
      const refused = await api('POST', `/stores/${store.id}/sandbox-orders`, { lines: [{ sku: SKU, quantity: 1 }] });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('store_disconnected');
    });

    it('syncs a listing made in the sandbox store and matches it to your product by SKU', async () => {
      const store = await connect();
      const made = await api('POST', `/stores/${store.id}/sandbox-listings`, { sku: SKU, title: 'Tulip poster A2' });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      expect(made.body.data).to.include({ sku: SKU, title: 'Tulip poster A2', status: 'active' });
      const listing = await eventually(
        'the listing synced',
        async () => (await api('GET', `/stores/${store.id}/listings?matched=true`)).body.data[0],
      );
      expect(listing).to.include({ externalProductId: made.body.data.externalProductId, sku: SKU });
      expect(listing.resellerProduct.sku).to.equal(SKU);
    });
  });
}
