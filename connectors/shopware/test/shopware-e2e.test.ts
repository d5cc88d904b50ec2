import assert from 'node:assert/strict';
import { eventually, storeProbes, type ConformanceHarness } from '@print-api/connector-kit/testing';
import { startFakePlatformService } from '@print-api/core/testing';
import { shopwareConnector } from '../src/index.ts';
import { FakeShopware, lineItem, saveOrder, shopwareStore } from './fake-shopware.ts';
import { hexId, type FakeShopwareShop } from './fake-shopware-shop.ts';
import { takeContractViolations } from './shopware-contract.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const OTHER_SKU = 'MUG-DELFT';

// The scenarios every platform shares run in conformance.test.ts; here the acceptance of issue 38 for Shopware, and
// what Shopware makes different (a payment moves the transaction, not the order; promotions; variants).
describe('Shopware end to end (real PostgreSQL + Redis, the fake Shopware over local HTTPS)', function () {
  // Every call the connector made kept to Shopware's Admin API contract.
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  this.timeout(90_000);
  let h: ConformanceHarness;
  const shopware = new FakeShopware();

  before(async function () {
    h = await startFakePlatformService(this, (server) => shopware.start(server), {
      connectors: [shopwareConnector],
      publicUrl: PUBLIC_URL,
    });
  });
  after(() => h?.close());

  const { ingests, ingestIn, orders, order, syncRead } = storeProbes(() => h);

  async function connected(mode: 'live' | 'test' = 'live', before?: (shop: FakeShopwareShop) => void) {
    const r = await h.reseller(mode);
    const shop = shopware.newShop();
    before?.(shop);
    const res = await h.api(r.key, 'POST', '/stores', {
      platform: 'SHOPWARE',
      shopUrl: `${shop.url}/admin`,
      accessKeyId: shop.accessKeyId,
      secretAccessKey: shop.secretAccessKey,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await eventually(async () => shop.seen('POST', /^\/api\/search\/order$/).length > 0, 'the first poll');
    return { key: r.key, shop, storeId: res.body.data.id as string, store: shopwareStore(shop, res.body.data.id) };
  }

  it('connects an integration: the shop named after its storefront, the keys sealed; wrong keys are 422 and store nothing, a private address is never called', async () => {
    const r = await h.reseller('live');
    const shop = shopware.newShop();
    const wrong = await h.api(r.key, 'POST', '/stores', {
      platform: 'SHOPWARE',
      shopUrl: shop.url,
      accessKeyId: shop.accessKeyId,
      secretAccessKey: 'not-the-secret-of-this-integration',
    });
    assert.equal(wrong.status, 422, JSON.stringify(wrong.body));
    assert.equal(wrong.body.error.code, 'store_credentials_rejected');
    assert.deepEqual((await h.api(r.key, 'GET', '/stores')).body.data, []);
    const plain = await h.api(r.key, 'POST', '/stores', {
      platform: 'SHOPWARE',
      shopUrl: shop.url.replace('https:', 'http:'),
      accessKeyId: shop.accessKeyId,
      secretAccessKey: shop.secretAccessKey,
    });
    assert.equal(plain.status, 400, JSON.stringify(plain.body));
    const internal = await h.api(r.key, 'POST', '/stores', {
      platform: 'SHOPWARE',
      shopUrl: 'https://10.0.0.7/shop',
      accessKeyId: shop.accessKeyId,
      secretAccessKey: shop.secretAccessKey,
    });
    assert.equal(internal.status, 422, JSON.stringify(internal.body));
    assert.equal(internal.body.error.code, 'store_not_connectable');
    assert.deepEqual((await h.api(r.key, 'GET', '/stores')).body.data, []);

    const lacking = shopware.newShop();
    lacking.missingPrivileges.add('sales_channel:read');
    const refused = await h.api(r.key, 'POST', '/stores', {
      platform: 'SHOPWARE',
      shopUrl: lacking.url,
      accessKeyId: lacking.accessKeyId,
      secretAccessKey: lacking.secretAccessKey,
    });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'store_credentials_rejected');
    assert.match(refused.body.error.message, /role lacks the permission/);
    assert.deepEqual((await h.api(r.key, 'GET', '/stores')).body.data, []);

    const { key, storeId } = await connected();
    const view = (await h.api(key, 'GET', `/stores/${storeId}`)).body.data;
    assert.equal(view.platform, 'SHOPWARE');
    assert.equal(view.name, 'Tulip Prints');
    assert.equal(view.externalId, [...shopware.shops.values()].at(-1)!.url);
    assert.ok(!JSON.stringify(view).includes([...shopware.shops.values()].at(-1)!.secretAccessKey));
  });

  it('a paid order becomes one print order with source SHOPWARE: only our SKUs, recipient with state and company', async () => {
    const { key, shop, storeId } = await connected();
    const id = hexId();
    const promotion = { ...lineItem(id, null, 1, 9), type: 'promotion', label: '10% off', payload: { code: 'TULIP' } };
    saveOrder(shop, {
      id,
      paid: true,
      lines: [
        { sku: h.sku, quantity: 2 },
        { sku: OTHER_SKU, quantity: 1 },
      ],
      extraLines: [promotion],
    });
    await syncRead(key, storeId);
    const placed = await ingestIn(key, storeId, id, 'placed');
    const view = await order(key, placed.orderId!);
    assert.equal(view.source, 'SHOPWARE');
    assert.equal(view.externalOrderId, id);
    assert.deepEqual(
      view.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
      [[h.sku, 2]],
    );
    assert.deepEqual(
      placed.skippedLines.map((s: any) => [s.sku, s.quantity]),
      [[OTHER_SKU, 1]],
    );
    assert.equal(view.recipient.state, 'MI');
    assert.equal(view.recipient.company, 'Studio Bianchi');
    assert.equal(view.recipient.country, 'IT');
    assert.equal(view.recipient.address2, 'Scala B');
    await syncRead(key, storeId);
    assert.deepEqual(
      (await orders(key)).map((o) => o.id),
      [placed.orderId],
    );
  });

  it('an unpaid order waits; paid later (only its transaction changes) it is placed; a cancelled one is never printed', async () => {
    const { key, shop, storeId, store } = await connected();
    const waiting = store.saveOrder({ paid: false, lines: [{ sku: h.sku, quantity: 1 }] });
    const cancelled = store.saveOrder({ paid: false, lines: [{ sku: h.sku, quantity: 1 }] });
    await syncRead(key, storeId);
    await ingestIn(key, storeId, waiting, 'waiting_payment');
    store.saveOrder({ id: cancelled, paid: false, cancelled: true, lines: [{ sku: h.sku, quantity: 1 }] });
    store.saveOrder({ id: waiting, paid: true, lines: [{ sku: h.sku, quantity: 1 }] });
    assert.equal(shop.orders.get(waiting)!.updatedAt, null, 'the payment left the order row as it was');
    await syncRead(key, storeId);
    await ingestIn(key, storeId, waiting, 'placed');
    await ingestIn(key, storeId, cancelled, 'cancelled');
    // Paid after its cancellation (a late capture): still never printed.
    store.saveOrder({ id: cancelled, paid: true, cancelled: true, lines: [{ sku: h.sku, quantity: 1 }] });
    await syncRead(key, storeId);
    assert.equal((await orders(key)).length, 1);
    assert.equal((await ingests(key, storeId)).find((i) => i.externalOrderId === cancelled)!.orderId, null);
  });

  it('tracking goes back exactly once: the tracking code on the delivery, then the delivery shipped', async () => {
    const { key, shop, storeId, store } = await connected('test');
    const id = store.saveOrder({ paid: true, lines: [{ sku: h.sku, quantity: 1 }] });
    await syncRead(key, storeId);
    const placed = await ingestIn(key, storeId, id, 'placed');
    const delivery = shop.orders.get(id)!.deliveries[0];
    await eventually(async () => delivery.stateMachineState.technicalName === 'shipped', 'the delivery shipped');
    const tracking = (await order(key, placed.orderId!)).tracking;
    assert.deepEqual(delivery.trackingCodes, [tracking.trackingNumber]);
    await syncRead(key, storeId);
    await syncRead(key, storeId);
    assert.equal(shop.seen('PATCH', /^\/api\/order-delivery\//).length, 1);
    assert.equal(shop.seen('POST', /\/state\/ship$/).length, 1);
  });

  it('an order with lines we do not print is shipped partially', async () => {
    const { key, shop, storeId, store } = await connected('test');
    const id = store.saveOrder({
      paid: true,
      lines: [
        { sku: h.sku, quantity: 1 },
        { sku: OTHER_SKU, quantity: 1 },
      ],
    });
    await syncRead(key, storeId);
    await ingestIn(key, storeId, id, 'placed');
    const delivery = shop.orders.get(id)!.deliveries[0];
    await eventually(
      async () => delivery.stateMachineState.technicalName === 'shipped_partially',
      'the delivery shipped partially',
    );
    assert.equal(delivery.trackingCodes.length, 1);
  });

  it('the listing sync guards a listed SKU (a variant by its product number) from deletion', async () => {
    const { key, storeId } = await connected('live', (shop) => {
      const parent = hexId();
      shop.products.set(parent, {
        id: parent,
        parentId: null,
        productNumber: 'SW-POSTER',
        name: 'Tulip poster',
        active: true,
        childCount: 1,
      });
      const variant = hexId();
      shop.products.set(variant, {
        id: variant,
        parentId: parent,
        productNumber: h.sku,
        name: null,
        active: null,
        childCount: 0,
      });
    });
    const listed = await eventually(
      async () =>
        (await h.api(key, 'GET', `/stores/${storeId}/listings?limit=100`)).body.data.find(
          (l: { sku: string | null }) => l.sku === h.sku,
        ),
      'the variant listed',
    );
    assert.equal(listed.title, 'Tulip poster');
    assert.equal(listed.active, true);
    assert.ok(listed.resellerProduct, 'matched to the reseller product');
    const refused = await h.api(key, 'DELETE', `/reseller-products/${h.sku}`);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'reseller_product_linked');
  });

  it('a published product is in the shop with its SKU, price, tax and storefront visibility', async () => {
    const { key, shop, storeId } = await connected();
    const res = await h.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: h.sku,
      title: 'Tulip poster A2',
      priceCents: 2495,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const p = shop.products.get(res.body.data.externalProductId)!;
    assert.equal(p.productNumber, h.sku);
    assert.deepEqual(p.price, [{ currencyId: shop.currency.id, gross: 24.95, net: 20.45, linked: true }]);
    assert.equal(p.taxId, shop.taxes[0]!.id);
    assert.deepEqual(
      p.visibilities.map((v: { salesChannelId: string; visibility: number }) => [v.salesChannelId, v.visibility]),
      [[shop.salesChannel.id, 30]],
    );
    assert.equal(p.active, true);
  });

  it('the merchant deletes the integration: the next call finds out and disconnects the store with the reason', async () => {
    const { key, shop, storeId } = await connected();
    shop.deleteIntegration();
    await eventually(
      async () => [202, 409].includes((await h.api(key, 'POST', `/stores/${storeId}/sync`)).status),
      'a sync',
    );
    const view = await eventually(async () => {
      const v = (await h.api(key, 'GET', `/stores/${storeId}`)).body.data;
      return v.status === 'disconnected' && v;
    }, 'disconnection');
    assert.match(view.lastError, /integration was deleted/);
  });
});
