import assert from 'node:assert/strict';
import { eventually, storeProbes, type ConformanceHarness } from '@print-api/connector-kit/testing';
import { startFakePlatformService } from '@print-api/core/testing';
import { magentoConnector } from '../src/index.ts';
import { FakeMagento, magentoStore, takeContractViolations, type FakeMagentoShop } from './fake-magento.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const OTHER_SKU = 'MUG-DELFT';

// The scenarios every platform shares run in conformance.test.ts; here what Magento makes different.
describe('Magento end to end (real PostgreSQL + Redis, the fake Magento over local HTTPS)', function () {
  // Every call the connector made kept to Magento's admin REST schema and Adobe's search rules.
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  this.timeout(90_000);
  let h: ConformanceHarness;
  const magento = new FakeMagento();

  before(async function () {
    h = await startFakePlatformService(this, (server) => magento.start(server), {
      connectors: [magentoConnector],
      publicUrl: PUBLIC_URL,
    });
  });
  after(() => h?.close());

  const { ingests, ingestIn, orders, syncRead } = storeProbes(() => h);
  const stores = async (key: string) => (await h.api<{ data: unknown[] }>(key, 'GET', '/stores')).body.data;
  const connect = (key: string, body: Record<string, unknown>) =>
    h.api(key, 'POST', '/stores', { platform: 'MAGENTO', ...body });
  async function connected(mode: 'live' | 'test' = 'live', shop: FakeMagentoShop = magento.newShop()) {
    const r = await h.reseller(mode);
    const res = await connect(r.key, { baseUrl: shop.url, accessToken: shop.accessToken });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const storeId = res.body.data.id as string;
    await eventually(async () => shop.seen('GET', /^\/V1\/orders$/).length >= 2, 'the first poll');
    return { key: r.key, shop, storeId, store: magentoStore(shop, storeId) };
  }

  describe('connect', () => {
    it('connects with the access token as a Bearer token, checked against the store, under its REST address', async () => {
      const { key, shop, storeId } = await connected();
      const view = (await h.api(key, 'GET', `/stores/${storeId}`)).body.data;
      assert.deepEqual(
        [view.platform, view.externalId, view.name, view.status],
        ['MAGENTO', shop.url, new URL(shop.url).host, 'connected'],
      );
      assert.deepEqual(
        shop.requests.slice(0, 2).map((r) => [r.store, r.path]),
        [
          [null, '/V1/store/storeConfigs'],
          [null, '/V1/orders'],
        ],
      );
      const poll = shop.seen('GET', /^\/V1\/orders$/)[1]!.query;
      assert.equal(poll.get('searchCriteria[filterGroups][0][filters][0][field]'), 'updated_at');
      assert.equal(poll.get('searchCriteria[filterGroups][0][filters][0][conditionType]'), 'gteq');
      assert.match(poll.get('searchCriteria[filterGroups][0][filters][0][value]')!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      assert.deepEqual(
        [poll.get('searchCriteria[sortOrders][0][field]'), poll.get('searchCriteria[sortOrders][1][field]')],
        ['updated_at', 'entity_id'],
      );
    });

    it('takes the store code of a pasted REST address, and calls under /rest/<store_code>/V1', async () => {
      const r = await h.reseller('live');
      const shop = magento.newShop();
      const res = await connect(r.key, { baseUrl: `${shop.url}/rest/it/V1/`, accessToken: shop.accessToken });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.data.externalId, `${shop.url}/rest/it`);
      await eventually(async () => shop.seen('GET', /^\/V1\/orders$/).length >= 2, 'the first poll');
      assert.deepEqual(new Set(shop.requests.map((r) => r.store)), new Set(['it']));
    });

    it('refuses a wrong token (422 store_credentials_rejected, naming the bearer setting) and stores nothing', async () => {
      const r = await h.reseller('live');
      const shop = magento.newShop();
      const res = await connect(r.key, { baseUrl: shop.url, accessToken: 'x'.repeat(32) });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'store_credentials_rejected');
      assert.match(res.body.error.message, /isn't authorized to access Magento_Backend::store/);
      assert.match(res.body.error.message, /Allow OAuth Access Tokens to be used as standalone Bearer tokens/);
      shop.bearerTokensAllowed = false;
      const off = await connect(r.key, { baseUrl: shop.url, accessToken: shop.accessToken });
      assert.equal(off.body.error.code, 'store_credentials_rejected');
      assert.deepEqual(await stores(r.key), []);
    });

    it('refuses an integration without access to shipments, naming the resource, and stores nothing', async () => {
      const r = await h.reseller('live');
      const shop = magento.newShop();
      shop.deniedResources.add('Magento_Sales::shipment');
      const res = await connect(r.key, { baseUrl: shop.url, accessToken: shop.accessToken });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'store_credentials_rejected');
      assert.match(res.body.error.message, /isn't authorized to access Magento_Sales::shipment/);
      assert.deepEqual(await stores(r.key), []);
    });

    it('refuses what is not an https address or an access token (400, the fields named), calling nothing', async () => {
      const r = await h.reseller('live');
      const shop = magento.newShop();
      const res = await connect(r.key, { baseUrl: shop.url.replace('https:', 'http:'), accessToken: 'eyJhbGciOi.jwt' });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body.error.details.map((d: { field: string }) => d.field).sort(), [
        'accessToken',
        'baseUrl',
      ]);
      assert.equal(shop.requests.length, 0);
    });
  });

  describe('orders', () => {
    it('places a processing order once: source MAGENTO, only our SKUs, the recipient with state and company', async () => {
      const { key, storeId, store } = await connected();
      const id = store.saveOrder({
        paid: true,
        lines: [
          { sku: h.sku, quantity: 2 },
          { sku: OTHER_SKU, quantity: 1 },
        ],
      });
      await syncRead(key, storeId);
      const placed = await ingestIn(key, storeId, id, 'placed');
      await syncRead(key, storeId);
      const mine = await orders(key);
      assert.deepEqual(
        mine.map((o) => o.id),
        [placed.orderId],
      );
      const order = (await h.api(key, 'GET', `/orders/${placed.orderId}`)).body.data;
      assert.equal(order.source, 'MAGENTO');
      assert.equal(order.externalOrderId, id);
      assert.deepEqual(
        order.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
        [[h.sku, 2]],
      );
      assert.deepEqual(
        { state: order.recipient.state, company: order.recipient.company, country: order.recipient.country },
        { state: 'MI', company: 'Studio Bianchi S.r.l.', country: 'IT' },
      );
    });

    it('waits while pending or pending_payment, places once invoiced; a canceled order is never printed', async () => {
      const { key, storeId, store } = await connected();
      const pending = store.saveOrder({ paid: false, lines: [{ sku: h.sku, quantity: 1 }] });
      const awaiting = store.saveOrder({ paid: false, state: 'pending_payment', lines: [{ sku: h.sku, quantity: 1 }] });
      const canceled = store.saveOrder({ paid: false, cancelled: true, lines: [{ sku: h.sku, quantity: 1 }] });
      await syncRead(key, storeId);
      await ingestIn(key, storeId, pending, 'waiting_payment');
      await ingestIn(key, storeId, awaiting, 'waiting_payment');
      assert.notEqual((await ingests(key, storeId)).find((i) => i.externalOrderId === canceled)?.status, 'placed');
      assert.deepEqual(await orders(key), []);
      store.saveOrder({ id: pending, paid: true, lines: [{ sku: h.sku, quantity: 1 }] });
      await syncRead(key, storeId);
      await ingestIn(key, storeId, pending, 'placed');
      assert.equal((await orders(key)).length, 1);
      assert.notEqual((await ingests(key, storeId)).find((i) => i.externalOrderId === canceled)?.status, 'placed');
    });

    it("prints a configurable product's child once (not its parent too) and ships it through the parent, once", async () => {
      const { key, shop, storeId, store } = await connected('test');
      const id = store.saveOrder({ paid: true, lines: [{ sku: h.sku, quantity: 3, parentSku: 'POSTER-CONF' }] });
      await syncRead(key, storeId);
      const placed = await ingestIn(key, storeId, id, 'placed');
      assert.deepEqual(placed.skippedLines, []);
      const order = (await h.api(key, 'GET', `/orders/${placed.orderId}`)).body.data;
      assert.deepEqual(
        order.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
        [[h.sku, 3]],
      );
      // The test-mode order ships with tracking: one shipment, of the configurable parent's item.
      await eventually(async () => shop.shipments.length > 0, 'the shipment');
      const [parent] = shop.orders.get(Number(id))!.items;
      const [shipment] = shop.shipments;
      assert.deepEqual(shipment!.items, [{ order_item_id: parent!.item_id, qty: 3 }]);
      const tracking = (await h.api(key, 'GET', `/orders/${placed.orderId}`)).body.data.tracking;
      assert.deepEqual(
        shipment!.tracks.map((t: Record<string, unknown>) => [t.track_number, t.title]),
        [[tracking.trackingNumber, tracking.carrier]],
      );
      assert.equal(shipment!.comments[0].comment, `Track your parcel: ${tracking.trackingUrl}`);
      assert.equal(shop.orders.get(Number(id))!.state, 'complete');
      // Later polls read the completed order again: nothing is placed or shipped again.
      await syncRead(key, storeId);
      await syncRead(key, storeId);
      assert.equal((await orders(key)).length, 1);
      assert.equal(shop.shipments.length, 1);
      assert.equal(shop.seen('POST', /\/ship$/).length, 1);
    });
  });

  describe('listings and publishing', () => {
    it("guards a SKU the store lists: the reseller's product cannot be deleted while it is listed", async () => {
      const shop = magento.newShop();
      shop.products.set(7, { id: 7, sku: 'POSTER-TULIPS', name: 'Tulips', price: 20, status: 1, type_id: 'simple' });
      const { key, storeId } = await connected('live', shop);
      const listing = await eventually(
        async () =>
          (await h.api(key, 'GET', `/stores/${storeId}/listings?matched=true`)).body.data.find(
            (l: { externalProductId: string }) => l.externalProductId === '7',
          ),
        'the listing synced and matched',
      );
      assert.deepEqual([listing.sku, listing.active], [h.sku, true]);
      const refused = await h.api(key, 'DELETE', `/reseller-products/${h.sku}`);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'reseller_product_linked');
    });

    it('publishes a simple product: SKU, price, enabled, visible in catalogue and search, in stock, the default set', async () => {
      const { key, shop, storeId } = await connected();
      const res = await h.api(key, 'POST', `/stores/${storeId}/listings`, {
        resellerProduct: h.sku,
        title: 'Tulip poster A2',
        description: 'Giclée print',
        priceCents: 2495,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.data.currency, 'EUR');
      const sent = shop.seen('POST', /^\/V1\/products$/)[0]!.body!.product;
      assert.deepEqual(
        [sent.sku, sent.name, sent.price, sent.status, sent.visibility, sent.type_id, sent.attribute_set_id],
        [h.sku, 'Tulip poster A2', 24.95, 1, 4, 'simple', 4],
      );
      assert.deepEqual(sent.extension_attributes.stock_item, {
        is_in_stock: true,
        use_config_manage_stock: false,
        manage_stock: false,
      });
      const held = shop.products.get(Number(res.body.data.externalProductId))!;
      assert.deepEqual([held.sku, held.price], [h.sku, 24.95]);
    });
  });
});
