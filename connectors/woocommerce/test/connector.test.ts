import { expect } from 'chai';
import { ConnectorError, type Shipment } from '@print-api/connector-kit';
import { wooCommerceWebhook } from './webhook-signer.ts';
import { connectSchema } from '../src/config.ts';
import { wooCommerceConnector as woo } from '../src/index.ts';
import { pollWindow } from '../src/order-polling.ts';
import errors from './fixtures/errors.json' with { type: 'json' };
import noteFixture from './fixtures/order-note.json' with { type: 'json' };
import trackingItem from './fixtures/shipment-tracking-item.json' with { type: 'json' };
import webhookFixture from './fixtures/webhook.json' with { type: 'json' };
import wpIndex from './fixtures/wp-index.json' with { type: 'json' };
import {
  CREDENTIALS,
  inbound,
  modifiedAt,
  PUBLIC_URL,
  store,
  STORE_URL,
  testContext,
  testStore,
  unpaidOrder,
  useNock,
  wooOrder,
  rejection,
} from './woo-fixtures.ts';

const CALLBACK = `${PUBLIC_URL}/connectors/woocommerce/webhooks/sto_01`;
const hook = (id: number, topic: string, deliveryUrl: string, status = 'active') => ({
  ...webhookFixture,
  id,
  name: `Print API ${topic}`,
  topic,
  status,
  delivery_url: deliveryUrl,
  event: topic.split('.')[1],
});

const expectSame = (actual: unknown, expected: unknown): boolean => (expect(actual).to.deep.equal(expected), true);

describe('WooCommerce connector', () => {
  useNock();

  describe('connect (keys pasted)', () => {
    const input = {
      storeUrl: 'https://Shop.Example.com/',
      consumerKey: CREDENTIALS.consumerKey,
      consumerSecret: CREDENTIALS.consumerSecret,
    };

    it('checks read and write access, names the store after the site, normalises the store URL', async () => {
      store().get('/wp-json/wc/v3/webhooks').query({ per_page: '1' }).reply(200, []);
      store().post('/wp-json/wc/v3/webhooks/batch', {}).reply(200, {});
      store().get('/wp-json/').reply(200, wpIndex);
      const connection = await woo.connect(testContext(), woo.manifest.connectSchema.parse(input));
      expect(connection).to.deep.equal({ externalId: STORE_URL, name: 'Tulip Prints', credentials: CREDENTIALS });
    });

    it('refuses read-only keys with a precise auth error', async () => {
      store().get('/wp-json/wc/v3/webhooks').query({ per_page: '1' }).reply(200, []);
      store().post('/wp-json/wc/v3/webhooks/batch').reply(401, errors.readOnlyKey);
      const err = await rejection(woo.connect(testContext(), woo.manifest.connectSchema.parse(input)));
      expect(err.kind).to.equal('auth');
      expect(err.message).to.contain('Read/Write');
    });

    it('refuses unknown keys (auth) and a site that is down (upstream_unavailable)', async () => {
      store().get('/wp-json/wc/v3/webhooks').query(true).reply(401, errors.invalidKey);
      expect((await rejection(woo.connect(testContext(), woo.manifest.connectSchema.parse(input)))).kind).to.equal(
        'auth',
      );
      store().get('/wp-json/wc/v3/webhooks').query(true).reply(502, 'Bad Gateway');
      expect((await rejection(woo.connect(testContext(), woo.manifest.connectSchema.parse(input)))).kind).to.equal(
        'upstream_unavailable',
      );
    });

    it('tells a store on plain permalinks exactly what to change, and a URL without WooCommerce what is wrong', async () => {
      // Plain permalinks: /wp-json/ is WordPress's 404 page; the REST index answers at ?rest_route=/.
      const notFoundPage =
        '<!DOCTYPE html><html><head><title>Page not found – Tulip Prints</title></head><body>Oops! That page can’t be found.</body></html>';
      store()
        .get('/wp-json/wc/v3/webhooks')
        .query(true)
        .reply(404, notFoundPage, { 'content-type': 'text/html; charset=UTF-8' });
      store().get('/').query({ rest_route: '/' }).reply(200, wpIndex);
      const plain = await rejection(woo.connect(testContext(), woo.manifest.connectSchema.parse(input)));
      expect(plain.kind).to.equal('invalid_payload');
      expect(plain.message).to.contain('Settings > Permalinks').and.not.contain('<html');
      // Neither address answers like WooCommerce: not a store's home address.
      store()
        .get('/wp-json/wc/v3/webhooks')
        .query(true)
        .reply(404, notFoundPage, { 'content-type': 'text/html; charset=UTF-8' });
      store()
        .get('/')
        .query({ rest_route: '/' })
        .reply(404, notFoundPage, { 'content-type': 'text/html; charset=UTF-8' });
      const elsewhere = await rejection(woo.connect(testContext(), woo.manifest.connectSchema.parse(input)));
      expect(elsewhere.kind).to.equal('invalid_payload');
      expect(elsewhere.message).to.contain(`${STORE_URL}/wp-json/wc/v3`).and.not.contain('<html');
    });

    it('names the store after its host when WordPress hides its REST index', async () => {
      store().get('/wp-json/wc/v3/webhooks').query(true).reply(200, []);
      store().post('/wp-json/wc/v3/webhooks/batch').reply(200, {});
      store().get('/wp-json/').reply(401, { code: 'rest_not_logged_in' });
      expect((await woo.connect(testContext(), woo.manifest.connectSchema.parse(input))).name).to.equal(
        'shop.example.com',
      );
    });

    it('accepts HTTPS stores only, and WooCommerce-shaped keys only', () => {
      const schema = woo.manifest.connectSchema;
      expect(schema.safeParse({ ...input, storeUrl: 'http://shop.example.com' }).success).to.equal(false);
      expect(schema.safeParse({ ...input, consumerKey: 'ck_short' }).success).to.equal(false);
      expect(schema.safeParse({ ...input, consumerSecret: CREDENTIALS.consumerKey }).success).to.equal(false);
      expect(schema.safeParse({ ...input, extra: 1 }).success).to.equal(false);
      expect(connectSchema.parse({ ...input, storeUrl: 'https://example.com/shop/' }).storeUrl).to.equal(
        'https://example.com/shop',
      );
    });
  });

  describe('registerWebhooks', () => {
    it('creates order.created, order.updated and the product topics with one non-empty per-store secret', async () => {
      const bodies: Array<Record<string, string>> = [];
      store()
        .get('/wp-json/wc/v3/webhooks')
        .query(true)
        .reply(200, [hook(9, 'order.created', 'https://other-app.example/hook')]);
      store()
        .post('/wp-json/wc/v3/webhooks', (b: Record<string, string>) => (bodies.push(b), true))
        .times(5)
        .reply(201, () => ({ ...webhookFixture, id: 100 + bodies.length, topic: bodies.at(-1)!.topic }));
      const { webhookSecret } = await woo.registerWebhooks!(testContext(), testStore(), CALLBACK);
      expect(webhookSecret).to.match(/^[0-9a-f]{64}$/);
      expect(bodies.map((b) => b.topic)).to.deep.equal([
        'order.created',
        'order.updated',
        'product.created',
        'product.updated',
        'product.deleted',
      ]);
      for (const b of bodies) expect(b).to.include({ delivery_url: CALLBACK, secret: webhookSecret, status: 'active' });
    });

    it('on reconnect keeps the secret, re-activates ours, deletes duplicates and those of an earlier connection', async () => {
      const secret = 'a'.repeat(64);
      const updates: unknown[] = [];
      store()
        .get('/wp-json/wc/v3/webhooks')
        .query(true)
        .reply(200, [
          hook(1, 'order.created', CALLBACK, 'disabled'),
          hook(2, 'order.updated', CALLBACK),
          hook(3, 'order.updated', CALLBACK),
          hook(4, 'order.created', `${PUBLIC_URL}/connectors/woocommerce/webhooks/sto_old`),
          hook(5, 'order.created', 'https://other-app.example/hook'),
        ]);
      store()
        .put(/\/wp-json\/wc\/v3\/webhooks\/[12]$/, (b) => (updates.push(b), true))
        .times(2)
        .reply(200, webhookFixture);
      store().delete('/wp-json/wc/v3/webhooks/3').query({ force: 'true' }).reply(200, {});
      store().delete('/wp-json/wc/v3/webhooks/4').query({ force: 'true' }).reply(200, {});
      const created: string[] = [];
      store()
        .post('/wp-json/wc/v3/webhooks', (b: Record<string, string>) => (created.push(b.topic!), true))
        .times(3)
        .reply(201, () => ({ ...webhookFixture, id: 200 + created.length, topic: created.at(-1) }));
      const { webhookSecret } = await woo.registerWebhooks!(testContext(), testStore(secret), CALLBACK);
      expect(webhookSecret).to.equal(secret);
      expect(created).to.deep.equal(['product.created', 'product.updated', 'product.deleted']);
      expect(updates).to.deep.equal([
        { secret, status: 'active' },
        { secret, status: 'active' },
      ]);
    });
  });

  describe('parseWebhook', () => {
    it('turns order.created / order.updated into the order, and ignores other topics', async () => {
      const ctx = testContext();
      const created = await woo.parseWebhook(
        ctx,
        testStore('s'),
        inbound(wooCommerceWebhook({ payload: wooOrder(), secret: 's', topic: 'order.created', source: STORE_URL })),
      );
      expect(created.kind === 'orders' ? created.orders[0]!.externalId : null).to.equal('1842');
      const coupon = await woo.parseWebhook(
        ctx,
        testStore('s'),
        inbound(wooCommerceWebhook({ payload: { id: 311 }, secret: 's', topic: 'coupon.updated', source: STORE_URL })),
      );
      expect(coupon.kind).to.equal('ignored');
    });
  });

  describe('listOrders (polling)', () => {
    const now = new Date('2025-05-14T10:00:00Z');
    const ctx = () => testContext(() => now);

    it('starts an hour back, pages from the newest change read, then continues after the newest change', async () => {
      const orders = (
        q: {
          modified_after?: string;
          offset?: string;
          per_page?: string;
          orderby?: string;
          order?: string;
          dates_are_gmt?: string;
        },
        after: string,
      ) =>
        q.modified_after === after &&
        q.offset === '0' &&
        q.per_page === '50' &&
        q.orderby === 'modified' &&
        q.order === 'asc' &&
        q.dates_are_gmt === 'true';
      // A full page: 49 orders modified at 09:10:00, one at 09:12:00.
      const full = Array.from({ length: 50 }, (_, i) =>
        modifiedAt(unpaidOrder({ id: i + 1 }), i < 49 ? '2025-05-14T09:10:00' : '2025-05-14T09:12:00'),
      );
      store().get('/wp-json/wc/v3/webhooks').query(true).reply(200, []);
      store()
        .get('/wp-json/wc/v3/orders')
        .query((q) => orders(q, '2025-05-14T08:59:59'))
        .reply(200, full);
      const first = await woo.listOrders!(ctx(), testStore(), null);
      expect(first.orders).to.have.length(50);
      expect(pollWindow.read(first.nextCursor, now)).to.deep.include({
        since: new Date('2025-05-14T09:12:00Z'),
        offset: 0,
        firstPage: false,
      });

      // The next page starts at 09:12:00 again (an order modified meanwhile cannot push another past the boundary).
      store()
        .get('/wp-json/wc/v3/orders')
        .query((q) => orders(q, '2025-05-14T09:11:59'))
        .reply(200, [
          modifiedAt(unpaidOrder({ id: 50 }), '2025-05-14T09:12:00'),
          modifiedAt(wooOrder({ id: 51 }), '2025-05-14T09:20:00'),
        ]);
      const second = await woo.listOrders!(ctx(), testStore(), first.nextCursor);
      expect(second.orders.map((o) => [o.externalId, o.paid])).to.deep.equal([
        ['50', false],
        ['51', true],
      ]);
      expect(pollWindow.read(second.nextCursor, now)).to.deep.include({
        firstPage: true,
        newest: new Date('2025-05-14T09:20:00Z'),
      });

      // The next run asks for what changed after 09:20:00; nothing did, and the cursor stays.
      store().get('/wp-json/wc/v3/webhooks').query(true).reply(200, []);
      store()
        .get('/wp-json/wc/v3/orders')
        .query((q) => orders(q, '2025-05-14T09:20:00'))
        .reply(200, []);
      const third = await woo.listOrders!(ctx(), testStore(), second.nextCursor);
      expect(third.orders).to.deep.equal([]);
      expect(third.nextCursor).to.equal(second.nextCursor);
    });

    it('carries on from a cursor stored in the earlier format (after its `after`)', async () => {
      store().get('/wp-json/wc/v3/webhooks').query(true).reply(200, []);
      store()
        .get('/wp-json/wc/v3/orders')
        .query((q) => q.modified_after === '2025-05-14T07:30:00' && q.offset === '0')
        .reply(200, []);
      await woo.listOrders!(
        ctx(),
        testStore(),
        JSON.stringify({ after: '2025-05-14T07:30:00', page: 3, newest: '2025-05-14T07:45:00' }),
      );
    });

    it("re-enables our webhooks WooCommerce disabled after failed deliveries where the store's own URL is not known (and leaves others alone)", async () => {
      const c = ctx();
      store()
        .get('/wp-json/wc/v3/webhooks')
        .query(true)
        .reply(200, [
          hook(1, 'order.created', CALLBACK, 'disabled'),
          hook(2, 'order.updated', CALLBACK),
          hook(3, 'order.created', 'https://other-app.example/hook', 'disabled'),
        ]);
      store()
        .put('/wp-json/wc/v3/webhooks/1', { status: 'active' })
        .reply(200, hook(1, 'order.created', CALLBACK));
      store().get('/wp-json/wc/v3/orders').query(true).reply(200, [], { 'X-WP-TotalPages': '0' });
      await woo.listOrders!(c, testStore(), null);
      expect(c.logs.warn.join()).to.contain('re-enabled');
    });
  });

  describe('pushShipment', () => {
    const shipment: Shipment = {
      externalOrderId: '1842',
      carrier: 'PostNL',
      trackingNumber: '3S0000000000',
      trackingUrl: 'https://jouw.postnl.nl/track-and-trace/3S0000000000-NL-3511AZ',
      lines: [{ externalLineId: null, sku: 'poster-tulips', quantity: 2 }],
    };
    const now = () => new Date('2025-05-16T12:20:00Z');

    it('adds a customer note, a Shipment Tracking item, then completes the order', async () => {
      const order: string[] = [];
      store().get('/wp-json/wc/v3/orders/1842/notes').query({ type: 'customer' }).reply(200, []);
      store()
        .post(
          '/wp-json/wc/v3/orders/1842/notes',
          (b) => (
            order.push('note'),
            b.customer_note === true && b.note.includes('3S0000000000') && b.note.includes(shipment.trackingUrl)
          ),
        )
        .reply(201, noteFixture);
      store().get('/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings').reply(200, []);
      store()
        .post(
          '/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings',
          (b) =>
            (order.push('tracking'), true) &&
            expectSame(b, {
              custom_tracking_provider: 'PostNL',
              custom_tracking_link: shipment.trackingUrl,
              tracking_number: '3S0000000000',
              date_shipped: '2025-05-16',
            }),
        )
        .reply(201, trackingItem);
      store().get('/wp-json/wc/v3/orders/1842').reply(200, wooOrder());
      store()
        .put('/wp-json/wc/v3/orders/1842', (b) => (order.push('completed'), b.status === 'completed'))
        .reply(200, wooOrder({ status: 'completed' }));
      await woo.pushShipment!(testContext(now), testStore(), shipment);
      expect(order).to.deep.equal(['note', 'tracking', 'completed']);
    });

    it('skips the tracking item when the store has no Shipment Tracking extension', async () => {
      store().get('/wp-json/wc/v3/orders/1842/notes').query(true).reply(200, []);
      store().post('/wp-json/wc/v3/orders/1842/notes').reply(201, noteFixture);
      store().get('/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings').reply(404, errors.noRoute);
      store().get('/wp-json/wc/v3/orders/1842').reply(200, wooOrder());
      store()
        .put('/wp-json/wc/v3/orders/1842', { status: 'completed' })
        .reply(200, wooOrder({ status: 'completed' }));
      await woo.pushShipment!(testContext(now), testStore(), shipment);
    });

    it('repeats nothing on a retry: note and item already there, order already completed', async () => {
      store().get('/wp-json/wc/v3/orders/1842/notes').query(true).reply(200, [noteFixture]);
      store().get('/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings').reply(200, [trackingItem]);
      store()
        .get('/wp-json/wc/v3/orders/1842')
        .reply(200, wooOrder({ status: 'completed' }));
      await woo.pushShipment!(testContext(now), testStore(), shipment);
    });

    it('leaves the status of an order with lines we did not print to the merchant', async () => {
      const base = wooOrder().line_items[0]!;
      const c = testContext(now);
      store().get('/wp-json/wc/v3/orders/1842/notes').query(true).reply(200, []);
      store().post('/wp-json/wc/v3/orders/1842/notes').reply(201, noteFixture);
      store().get('/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings').reply(404, errors.noRoute);
      store()
        .get('/wp-json/wc/v3/orders/1842')
        .reply(200, wooOrder({ line_items: [base, { ...base, id: 413, sku: 'MUG-01', name: 'Mug' }] }));
      await woo.pushShipment!(c, testStore(), shipment);
      expect(c.logs.info.join()).to.contain('status left to the merchant');
    });

    it('surfaces a 429 as rate_limited so the queue waits and tries again', async () => {
      store().get('/wp-json/wc/v3/orders/1842/notes').query(true).reply(429, '', { 'Retry-After': '2' });
      expect(await rejection(woo.pushShipment!(testContext(now), testStore(), shipment))).to.include({
        kind: 'rate_limited',
        retryAfterMs: 2000,
      });
    });
  });
});
