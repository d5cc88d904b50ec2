import { expect } from 'chai';
import { wooCommerceWebhook } from './webhook-signer.ts';
import {
  connectorE2eService,
  eventually,
  pollNow,
  posterReseller,
  type TestHttpsServer,
  type TestService,
  scaled,
} from '@print-api/core/testing';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooStore, takeContractViolations } from './fake-woo-store.ts';
import { connectWooStore, modifiedAt, wooOrder } from './woo-fixtures.ts';

const PUBLIC_URL = 'https://print-api.example.com';

// The scenarios every platform shares (placement, payment, SKU matching, cancellations, signatures,
// catch-up, push-back, 429, uninstall) run in conformance.test.ts; here only what WooCommerce makes different.
describe('WooCommerce end to end (real PostgreSQL + Redis, the store behind nock)', function () {
  // Every call the connector made (and every order and webhook the fake answered) kept to WooCommerce's REST contract.
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  this.timeout(scaled(30_000));
  let t: TestService;
  let files: TestHttpsServer;
  let shops = 0;

  connectorE2eService(PUBLIC_URL, { connectors: [wooCommerceConnector] }, (started) => {
    ({ t, files } = started);
  });

  const db = () => t.service.db;
  const events = async (storeId: string) =>
    Number(
      (
        await db()
          .selectFrom('store_webhook_events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('store_id', '=', storeId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const ingest = (storeId: string, orderId: number | string) =>
    db()
      .selectFrom('store_ingests')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', String(orderId))
      .executeTakeFirst();
  const printOrders = (storeId: string) =>
    db().selectFrom('orders').selectAll().where('store_id', '=', storeId).execute();

  /** A reseller with a funded wallet and the poster product, and a WooCommerce store connected with pasted keys. */
  async function connected(opts: { mode?: 'live' | 'test' } = {}) {
    const mode = opts.mode ?? 'live';
    const reseller = await posterReseller(t, files, mode);
    const shop = new FakeWooStore({
      host: `shop-${++shops}.example.com`,
      ourBaseUrl: t.baseUrl,
      publicUrl: PUBLIC_URL,
    });
    const storeId = await connectWooStore(t, reseller.key, shop);
    // The connect-time catch-up poll has run (it reads the webhooks, then the orders).
    await eventually(async () => shop.seen('GET', /\/wc\/v3\/orders$/).length > 0, 'the first poll');
    return { reseller, shop, storeId };
  }

  describe('connect', () => {
    it('connects pasted keys: checked with the store, sealed at rest, signed order and product webhooks, pings answered and not stored', async () => {
      const { reseller, shop, storeId } = await connected();
      const view = (await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data;
      expect(view).to.include({
        platform: 'WOOCOMMERCE',
        externalId: shop.url,
        name: 'Tulip Prints',
        status: 'connected',
      });
      expect(shop.webhooks.map((w) => [w.topic, w.status, w.delivery_url])).to.deep.equal([
        ['order.created', 'active', `${PUBLIC_URL}/connectors/woocommerce/webhooks/${storeId}`],
        ['order.updated', 'active', `${PUBLIC_URL}/connectors/woocommerce/webhooks/${storeId}`],
        ...['product.created', 'product.updated', 'product.deleted'].map((topic) => [
          topic,
          'active',
          `${PUBLIC_URL}/connectors/woocommerce/webhooks/${storeId}`,
        ]),
      ]);
      const secret = shop.webhooks[0]!.secret;
      expect(secret).to.match(/^[0-9a-f]{64}$/);
      for (const hook of shop.webhooks) expect(hook.secret).to.equal(secret);
      expect(shop.pings).to.deep.equal([200, 200, 200, 200, 200]);
      expect(await events(storeId)).to.equal(0);
      const row = await db().selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
      expect(row.credentials_sealed).not.to.contain(shop.consumerSecret);
      expect(row.webhook_secret_sealed).not.to.contain(secret);
      expect(t.service.services.stores.credentials.connection(row).webhookSecret).to.equal(secret);
      // Every call to the store was counted for the operators, by platform.
      const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
      expect(metrics).to.match(
        /^connector_http_requests_total\{platform="WOOCOMMERCE",operation="GET",status="200"\} [1-9]/m,
      );
      expect(metrics).to.match(
        /^connector_http_request_duration_seconds_count\{platform="WOOCOMMERCE",operation="POST"\} [1-9]/m,
      );
    });

    it('connects through the /wc-auth/v1/authorize key-issuing flow: keys POSTed to our HTTPS callback, checked, merchant sent back', async () => {
      const reseller = await t.reseller();
      const shop = new FakeWooStore({
        host: `shop-${++shops}.example.com`,
        ourBaseUrl: t.baseUrl,
        publicUrl: PUBLIC_URL,
      });
      const begin = await t.api(reseller.key, 'POST', '/stores/credential-requests', {
        platform: 'WOOCOMMERCE',
        storeUrl: `${shop.url}/`,
        returnUrl: 'https://app.reseller.example/stores?from=woo',
      });
      expect(begin.status, JSON.stringify(begin.body)).to.equal(201);
      const authorize = new URL(begin.body.data.redirectUrl);
      expect(`${authorize.origin}${authorize.pathname}`).to.equal(`${shop.url}/wc-auth/v1/authorize`);
      const q = authorize.searchParams;
      expect(q.get('app_name')).to.equal('Print API');
      expect(q.get('scope')).to.equal('read_write');
      expect(q.get('callback_url')).to.equal(`${PUBLIC_URL}/connectors/woocommerce/credentials/${q.get('user_id')}`);
      expect(q.get('return_url')).to.equal(`${q.get('callback_url')}/return`);

      const approval = await shop.approve(begin.body.data.redirectUrl);
      expect(approval.callbackStatus).to.equal(200);
      expect(approval.returnedTo).to.equal(
        `https://app.reseller.example/stores?from=woo&success=1&user_id=${encodeURIComponent(q.get('user_id')!)}`,
      );
      // The return address redirects once, at the end of the completed flow; afterwards it is a page (no open redirect
      // on our domain).
      const again = await fetch(`${q.get('return_url')!.replace(PUBLIC_URL, t.baseUrl)}?success=1`, {
        redirect: 'manual',
        headers: { 'user-agent': 'print-api-tests/1.0' },
      });
      expect(again.status).to.equal(200);
      expect(again.headers.get('location')).to.equal(null);
      const [store] = (await t.api(reseller.key, 'GET', '/stores')).body.data;
      expect(store).to.include({ platform: 'WOOCOMMERCE', externalId: shop.url, status: 'connected' });
      expect(shop.webhooks.map((w) => w.topic)).to.deep.equal([
        'order.created',
        'order.updated',
        'product.created',
        'product.updated',
        'product.deleted',
      ]);
      expect(shop.pings).to.deep.equal([200, 200, 200, 200, 200]);
      const row = await db().selectFrom('stores').selectAll().where('id', '=', store.id).executeTakeFirstOrThrow();
      expect(t.service.services.stores.credentials.connection(row).credentials).to.deep.equal({
        storeUrl: shop.url,
        consumerKey: shop.consumerKey,
        consumerSecret: shop.consumerSecret,
      });
    });

    it('refuses keys POSTed for another request, a forged state, and read-only keys: nothing connected', async () => {
      const reseller = await t.reseller();
      const shop = new FakeWooStore({
        host: `shop-${++shops}.example.com`,
        ourBaseUrl: t.baseUrl,
        publicUrl: PUBLIC_URL,
      });
      const begin = await t.api(reseller.key, 'POST', '/stores/credential-requests', {
        platform: 'WOOCOMMERCE',
        storeUrl: shop.url,
      });
      const url = begin.body.data.redirectUrl as string;
      expect((await shop.approve(url, (k) => ({ ...k, user_id: 'someone-else' }))).callbackStatus).to.equal(422);
      const callback = new URL(url).searchParams.get('callback_url')!;
      const forged = await fetch(
        callback.replace(PUBLIC_URL, t.baseUrl).replace(/credentials\/v1\.[^.]+/, 'credentials/v1.AAAAAAAAAAAAAAAA'),
        { method: 'POST', body: '{}' },
      );
      expect(forged.status).to.equal(404);
      const readOnly = new URL(url);
      readOnly.searchParams.set('scope', 'read');
      expect((await shop.approve(readOnly.toString())).callbackStatus).to.equal(422);
      expect((await t.api(reseller.key, 'GET', '/stores')).body.data).to.deep.equal([]);
      expect(shop.webhooks).to.deep.equal([]);
      const http = await t.api(reseller.key, 'POST', '/stores/credential-requests', {
        platform: 'WOOCOMMERCE',
        storeUrl: 'http://insecure.example.com',
      });
      expect(http.status).to.equal(400);
    });

    it('refuses a store on plain permalinks with 422 store_not_connectable saying what to change, and connects nothing', async () => {
      const reseller = await t.reseller();
      const shop = new FakeWooStore({
        host: `shop-${++shops}.example.com`,
        ourBaseUrl: t.baseUrl,
        publicUrl: PUBLIC_URL,
      });
      shop.plainPermalinks = true;
      const res = await t.api(reseller.key, 'POST', '/stores', {
        platform: 'WOOCOMMERCE',
        storeUrl: shop.url,
        consumerKey: shop.consumerKey,
        consumerSecret: shop.consumerSecret,
      });
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('store_not_connectable');
      expect(res.body.error.message).to.contain('Settings > Permalinks');
      expect((await t.api(reseller.key, 'GET', '/stores')).body.data).to.deep.equal([]);
      expect(shop.webhooks).to.deep.equal([]);
    });

    it('refuses read-only keys (422) and plain-HTTP stores (400), and connects nothing', async () => {
      const reseller = await t.reseller();
      const shop = new FakeWooStore({
        host: `shop-${++shops}.example.com`,
        ourBaseUrl: t.baseUrl,
        publicUrl: PUBLIC_URL,
      });
      shop.permissions = 'read';
      const readOnly = await t.api(reseller.key, 'POST', '/stores', {
        platform: 'WOOCOMMERCE',
        storeUrl: shop.url,
        consumerKey: shop.consumerKey,
        consumerSecret: shop.consumerSecret,
      });
      expect(readOnly.status).to.equal(422);
      expect(readOnly.body.error.code).to.equal('store_credentials_rejected');
      expect(readOnly.body.error.message).to.contain('Read/Write');
      const http = await t.api(reseller.key, 'POST', '/stores', {
        platform: 'WOOCOMMERCE',
        storeUrl: shop.url.replace('https:', 'http:'),
        consumerKey: shop.consumerKey,
        consumerSecret: shop.consumerSecret,
      });
      expect(http.status).to.equal(400);
      expect((await t.api(reseller.key, 'GET', '/stores')).body.data).to.deep.equal([]);
      expect(shop.webhooks).to.deep.equal([]);
    });
  });

  describe('inbound webhooks', () => {
    it('answers 401 to forged, unsigned and stale signatures, and stores nothing', async () => {
      const { shop, storeId } = await connected();
      const hook = shop.hook('order.updated');
      const order = shop.save(wooOrder());
      const genuine = wooCommerceWebhook({
        payload: order,
        secret: hook.secret,
        topic: 'order.updated',
        source: shop.url,
        webhookId: hook.id,
      });
      const forged = wooCommerceWebhook({
        payload: order,
        secret: 'f'.repeat(64),
        topic: 'order.updated',
        source: shop.url,
        webhookId: hook.id,
      });
      const { 'x-wc-webhook-signature': _sig, ...unsigned } = genuine.headers;
      const stale = {
        headers: genuine.headers,
        body: JSON.stringify(modifiedAt(wooOrder({ status: 'cancelled' }), '2025-05-14T10:00:00')),
      };
      const emptyKey = wooCommerceWebhook({
        payload: order,
        secret: '',
        topic: 'order.updated',
        source: shop.url,
        webhookId: hook.id,
      });
      expect(await shop.send(hook, forged)).to.equal(401);
      expect(await shop.send(hook, { headers: unsigned, body: genuine.body })).to.equal(401);
      expect(await shop.send(hook, stale)).to.equal(401);
      expect(await shop.send(hook, emptyKey)).to.equal(401);
      expect(await events(storeId)).to.equal(0);
      expect(await printOrders(storeId)).to.deep.equal([]);
    });

    it('answers the unsigned creation ping with 200 and stores nothing', async () => {
      const { shop, storeId } = await connected();
      expect(
        await shop.send(shop.hook('order.created'), {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `webhook_id=${shop.hook('order.created').id}`,
        }),
      ).to.equal(200);
      expect(await events(storeId)).to.equal(0);
    });
  });

  describe('back to the store', () => {
    it('pushes the tracking after the production simulator ships: customer note, Shipment Tracking item, status completed', async () => {
      const { shop, storeId } = await connected({ mode: 'test' });
      await shop.deliver(shop.save(wooOrder()), 'order.created');
      const orderId = await eventually(async () => (await ingest(storeId, 1842))?.order_id, 'placement');
      await eventually(async () => shop.orders.get(1842)!.status === 'completed', 'status completed', 15_000);
      const order = await db().selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
      const tracking = order.tracking!;
      expect(shop.notes.get(1842)).to.have.length(1);
      expect(shop.notes.get(1842)![0]).to.include({ customer_note: true });
      expect(shop.notes.get(1842)![0]!.note).to.contain(tracking.trackingNumber).and.contain(tracking.trackingUrl);
      expect(shop.trackings.get(1842)).to.deep.equal([
        {
          tracking_id: shop.trackings.get(1842)![0]!.tracking_id,
          tracking_provider: 'PostNL',
          tracking_link: tracking.trackingUrl,
          tracking_number: tracking.trackingNumber,
          date_shipped: new Date().toISOString().slice(0, 10),
        },
      ]);
      const fulfilment = await eventually(async () => {
        const f = await db()
          .selectFrom('store_fulfilments')
          .selectAll()
          .where('order_id', '=', orderId)
          .executeTakeFirst();
        return f?.status === 'pushed' && f;
      }, 'fulfilment pushed');
      expect(fulfilment.attempts).to.equal(1);
    });
  });

  describe('polling', () => {
    it('creates anew our webhook WooCommerce disabled after failed deliveries (its failure count gone with it), registers a deleted one again, and tells the merchant on the store', async () => {
      const { reseller, shop, storeId } = await connected();
      // Our service refused seven deliveries in a row (here: signed with another secret; a database restart answering
      // 503 does the same).
      const hook = shop.hook('order.updated');
      for (let i = 0; i < 7; i++)
        expect(
          await shop.send(
            hook,
            wooCommerceWebhook({
              payload: wooOrder(),
              secret: 'not-the-secret',
              topic: 'order.updated',
              source: shop.url,
              webhookId: hook.id,
            }),
          ),
        ).to.equal(401);
      expect(hook.status).to.equal('disabled');
      // And the merchant deleted another of ours.
      shop.webhooks.splice(
        shop.webhooks.findIndex((w) => w.topic === 'product.deleted'),
        1,
      );
      expect((await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data.notices).to.deep.equal([]);

      await pollNow(t, storeId);
      const replaced = shop.hook('order.updated');
      expect(replaced).to.include({ status: 'active', failure_count: 0 });
      expect(replaced.id).to.not.equal(hook.id);
      expect(shop.webhooks.find((w) => w.id === hook.id)).to.equal(undefined);
      const recreated = shop.hook('product.deleted');
      expect(recreated).to.include({
        status: 'active',
        delivery_url: `${PUBLIC_URL}/connectors/woocommerce/webhooks/${storeId}`,
        secret: shop.hook('order.created').secret,
      });
      const notices: string[] = (await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data.notices;
      expect(notices).to.have.length(1);
      expect(notices[0]).to.match(
        /disabled the store's webhooks for order\.updated after repeated failed deliveries: created anew \(set active again, they would keep their failure count and be disabled by the next failed delivery\); the store's webhooks for product\.deleted were gone: registered again on \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
      );
      // Deliveries reach us again, signed with the store's secret.
      expect(await shop.deliver(wooOrder(), 'order.updated')).to.equal(200);
      await eventually(async () => (await ingest(storeId, 1842))?.status === 'placed', 'the delivered order placed');
      // A poll with nothing to repair leaves the webhooks as they are.
      const calls =
        shop.seen('POST', /\/wc\/v3\/webhooks$/).length + shop.seen('PUT', /\/wc\/v3\/webhooks\/\d+$/).length;
      await pollNow(t, storeId);
      expect(
        shop.seen('POST', /\/wc\/v3\/webhooks$/).length + shop.seen('PUT', /\/wc\/v3\/webhooks\/\d+$/).length,
      ).to.equal(calls);
    });
  });
});
