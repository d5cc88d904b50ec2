import { expect } from 'chai';
import type { FakeHttpsServer, FakeRequestHandler } from '@print-api/connector-kit/testing';
import {
  connectorE2eService,
  eventually,
  posterReseller,
  POSTER_SKU as SKU,
  startHttpsServer,
  type TestHttpsServer,
  type TestService,
  scaled,
} from '@print-api/core/testing';
import type { TikTokCredentials } from '../src/config.ts';
import { tiktokShopConnector } from '../src/index.ts';
import { webhookSignature } from '../src/signing.ts';
import { APP, FakeTikTokShopPlatform } from './fake-tiktok-shop.ts';
import { tiktokId } from './fake-tiktok-shop-operations.ts';
import { tiktokOrderOf, tiktokStore } from './fake-tiktok-shop-store.ts';
import errors from './fixtures/errors.json' with { type: 'json' };
import expiring from './fixtures/webhook-upcoming-authorization-expiration.json' with { type: 'json' };

const PUBLIC_URL = 'https://print-api.example.com';
const OTHER_SKU = 'MUG-DELFT';

// The scenarios every platform shares run in conformance.test.ts; here what TikTok Shop makes different.
describe('TikTok Shop end to end (real PostgreSQL + Redis, the fake TikTok Shop over HTTPS)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  let files: TestHttpsServer;
  let server: Omit<FakeHttpsServer, 'fallback'> | undefined;
  const tiktok = new FakeTikTokShopPlatform();
  let handler: FakeRequestHandler = (_req, res) => void res.writeHead(503).end();
  const env: Record<string, string> = {};

  before(async () => {
    server = await startHttpsServer((req, res, body) => handler(req, res, body));
    Object.assign(env, tiktok.serve({ ...server, fallback: (h) => void (handler = h) }));
  });
  after(async () => server?.close());
  // Every call the connector made kept to the (third-party) transcription of TikTok Shop's 202309 reference.
  after(() => expect(tiktok.contractLog.violations).to.deep.equal([]));

  connectorE2eService(PUBLIC_URL, { connectors: [tiktokShopConnector] }, (started) => ({ t, files } = started), env);

  const db = () => t.service.db;
  const service = () => ({
    baseUrl: t.baseUrl,
    publicUrl: PUBLIC_URL,
    toService: (u: string) => u.replace(PUBLIC_URL, t.baseUrl),
    api: async (key: string | undefined, method: string, path: string, body?: unknown) =>
      t.api(key!, method, path, body),
  });
  const ingest = (storeId: string, orderId: string) =>
    db()
      .selectFrom('store_ingests')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', orderId)
      .executeTakeFirst();
  const ingestIn = (storeId: string, orderId: string, status: string) =>
    eventually(
      async () => ((await ingest(storeId, orderId))?.status === status ? ingest(storeId, orderId) : undefined),
      `ingest ${status}`,
      30_000,
    );
  const storeView = async (key: string, storeId: string) => (await t.api(key, 'GET', `/stores/${storeId}`)).body.data;
  const credentials = async (storeId: string) =>
    t.service.services.stores.credentials.connection(
      await db().selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow(),
    ).credentials as TikTokCredentials;
  const searchesOf = (cipher: string) => tiktok.seen(/\/orders\/search$/).filter((c) => c.query.shop_cipher === cipher);
  const sync = (key: string, storeId: string) =>
    eventually(async () => {
      const res = await t.api(key, 'POST', `/stores/${storeId}/sync`);
      return res.status === 202;
    }, 'a sync accepted');

  async function installed(mode: 'live' | 'test' = 'live') {
    const r = await posterReseller(t, files, mode);
    const shop = tiktok.addShop();
    const done = await tiktok.install(service(), r.key, [shop]);
    expect(done.status, JSON.stringify(done.body)).to.equal(303);
    const back = new URL(done.location!);
    const storeId = back.searchParams.get('store')!;
    await eventually(async () => searchesOf(shop.cipher).some((c) => c.code === 0), 'the first poll');
    return { key: r.key, shop, storeId, back, store: tiktokStore(tiktok, service(), shop, storeId) };
  }

  describe('install through the authorisation link', () => {
    it('connects the shop: code exchanged, shop and cipher read, tokens sealed, webhooks registered at the app URL, the seller sent back', async () => {
      const { key, shop, storeId, back } = await installed();
      expect(`${back.origin}${back.pathname}`).to.equal('https://app.reseller.example/stores');
      expect(back.searchParams.get('platform')).to.equal('TIKTOK_SHOP');
      const view = await storeView(key, storeId);
      expect(view).to.deep.include({
        platform: 'TIKTOK_SHOP',
        externalId: shop.id,
        name: shop.name,
        status: 'connected',
        lastError: null,
      });
      const creds = await credentials(storeId);
      expect(creds).to.deep.include({
        shopId: shop.id,
        shopCipher: shop.cipher,
        region: 'DE',
        sellerName: 'Tulip Prints',
      });
      expect(Date.parse(creds.accessTokenExpiresAt!) - Date.now()).to.be.within(6.9 * 86400_000, 7.1 * 86400_000);
      const row = await db()
        .selectFrom('stores')
        .select('credentials_sealed')
        .where('id', '=', storeId)
        .executeTakeFirstOrThrow();
      expect(row.credentials_sealed).not.to.contain(creds.accessToken).and.not.to.contain(creds.refreshToken);
      expect(Object.fromEntries(shop.webhooks)).to.deep.equal({
        ORDER_STATUS_CHANGE: `${PUBLIC_URL}/connectors/tiktok-shop/webhooks`,
        PRODUCT_STATUS_CHANGE: `${PUBLIC_URL}/connectors/tiktok-shop/webhooks`,
        SELLER_DEAUTHORIZATION: `${PUBLIC_URL}/connectors/tiktok-shop/webhooks`,
        UPCOMING_AUTHORIZATION_EXPIRATION: `${PUBLIC_URL}/connectors/tiktok-shop/webhooks`,
      });
    });

    it('connects nothing on a forged state, and says why', async () => {
      const r = await posterReseller(t, files);
      const shop = tiktok.addShop();
      const { state, cookies } = await tiktok.openInstallLink(service(), r.key);
      const code = tiktok.authorise([shop.id]);
      const exchanges = tiktok.tokenRequests.length;
      const forged = await tiktok.callback(service(), { code, state: `${state.slice(0, -4)}AAAA` }, cookies);
      expect(forged.status).to.equal(422);
      expect(forged.body.error.code).to.equal('store_install_rejected');
      expect(forged.body.error.message).to.match(/state does not match/);
      expect((await t.api(r.key, 'GET', '/stores')).body.data).to.deep.equal([]);
      expect(tiktok.tokenRequests.length, 'no code exchanged').to.equal(exchanges);
    });

    it('connects nothing with a stale (used or expired) code, and says why', async () => {
      const r = await posterReseller(t, files);
      const { state, cookies } = await tiktok.openInstallLink(service(), r.key);
      const stale = await tiktok.callback(service(), { code: 'ROW_used_or_expired_code', state }, cookies);
      expect(stale.status).to.equal(422);
      expect(stale.body.error.code).to.equal('store_install_rejected');
      expect(stale.body.error.message).to.match(
        /authorisation code was refused: TikTok Shop answered code 36004004: invalid auth code/,
      );
      expect((await t.api(r.key, 'GET', '/stores')).body.data).to.deep.equal([]);
    });

    it('refuses a callback in a browser that began no install', async () => {
      const shop = tiktok.addShop();
      const res = await tiktok.callback(service(), { code: tiktok.authorise([shop.id]), state: 'anything' }, []);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('install_not_started');
    });

    it('asks which shop when the authorisation covers several, and connects the one the install link names', async () => {
      const r = await posterReseller(t, files);
      const [a, b] = [
        tiktok.addShop({ name: 'Tulip Prints DE' }),
        tiktok.addShop({ name: 'Tulip Prints ES', region: 'ES' }),
      ];
      const ambiguous = await tiktok.install(service(), r.key, [a, b]);
      expect(ambiguous.status).to.equal(422);
      expect(ambiguous.body.error.message)
        .to.contain(`${a.id} (Tulip Prints DE, DE)`)
        .and.to.contain(`${b.id} (Tulip Prints ES, ES)`)
        .and.to.match(/shopId/);
      const chosen = await tiktok.install(service(), r.key, [a, b], { shopId: b.id });
      expect(chosen.status, JSON.stringify(chosen.body)).to.equal(303);
      const storeId = new URL(chosen.location!).searchParams.get('store')!;
      expect(await storeView(r.key, storeId)).to.deep.include({ externalId: b.id, name: 'Tulip Prints ES' });
      expect((await credentials(storeId)).shopCipher).to.equal(b.cipher);
    });

    it('answers POST /stores with the way a TikTok shop connects', async () => {
      const r = await posterReseller(t, files);
      const res = await t.api(r.key, 'POST', '/stores', { platform: 'TIKTOK_SHOP' });
      expect(res.status).to.equal(422);
      expect(res.body.error.message).to.match(/authorisation link: POST \/stores\/install-links/);
    });
  });

  describe('tokens', () => {
    afterEach(() => {
      tiktok.expiryStyle = 'timestamp';
      tiktok.accessTokenLifetimeS = 7 * 24 * 3600;
    });

    it('reads an expiry given as a duration and renews the token before it expires', async () => {
      tiktok.expiryStyle = 'duration';
      tiktok.accessTokenLifetimeS = 3600;
      const { key, shop, storeId } = await installed();
      const first = await credentials(storeId);
      expect(Date.parse(first.accessTokenExpiresAt!) - Date.now()).to.be.within(3500_000, 3700_000);
      expect(Date.parse(first.refreshTokenExpiresAt!) - Date.now()).to.be.greaterThan(360 * 86400_000);
      await sync(key, storeId);
      const renewed = await eventually(async () => {
        const c = await credentials(storeId);
        return c.accessToken !== first.accessToken && c;
      }, 'the renewed token stored');
      expect(renewed.refreshToken).to.equal(first.refreshToken);
      // Renewed before the call: TikTok never had to refuse the old token.
      expect(tiktok.calls.filter((c) => c.query.shop_cipher === shop.cipher && c.code === 105002)).to.deep.equal([]);
    });

    it('renews at once when TikTok refuses the token mid-call (HTTP 200, code 105002), sends the call again, and stores the new token', async () => {
      const { key, shop, storeId, store } = await installed();
      const before = await credentials(storeId);
      tiktok.expireTokens();
      const id = store.saveOrder({ paid: true, lines: [{ sku: SKU, quantity: 1 }] });
      await sync(key, storeId);
      await ingestIn(storeId, id, 'placed');
      expect(tiktok.calls.some((c) => c.query.shop_cipher === shop.cipher && c.code === 105002)).to.equal(true);
      // The next job of the store hands the renewed token to core, which stores it.
      await sync(key, storeId);
      await eventually(
        async () => (await credentials(storeId)).accessToken !== before.accessToken,
        'the renewed token stored',
      );
    });
  });

  describe('notifications', () => {
    it('disconnects the store on the seller’s deauthorisation (type 6), the reason shown on GET /stores/{id}', async () => {
      const { key, storeId, store } = await installed();
      expect(await store.uninstall!()).to.equal(200);
      const view = await eventually(async () => {
        const v = await storeView(key, storeId);
        return v.status === 'disconnected' && v;
      }, 'disconnection');
      expect(view.lastError).to.match(
        /The seller deauthorised the app on TikTok Shop \(SELLER_DEAUTHORIZATION at .*\): authorise it again to reconnect\./,
      );
    });

    it('shows an authorisation expiry warning (type 7) on the store, which stays connected', async () => {
      const { key, shop, storeId } = await installed();
      const payload = {
        ...expiring,
        tts_notification_id: tiktokId(),
        shop_id: shop.id,
        timestamp: Math.floor(Date.now() / 1000),
      };
      expect(await tiktok.deliver(service(), shop, payload)).to.equal(200);
      const view = await eventually(async () => {
        const v = await storeView(key, storeId);
        return v.lastError && v;
      }, 'the warning');
      expect(view.status).to.equal('connected');
      expect(view.lastError).to.equal(
        'The TikTok Shop authorisation of this store expires on 2026-01-31: the seller must authorise the app again (a new install link), or orders stop.',
      );
    });

    it('acknowledges a delivery for a shop we do not know without storing it', async () => {
      const shop = tiktok.addShop();
      const body = JSON.stringify({
        type: 1,
        tts_notification_id: tiktokId(),
        shop_id: shop.id,
        timestamp: Math.floor(Date.now() / 1000),
        data: { order_id: tiktokId() },
      });
      const res = await fetch(`${t.baseUrl}/connectors/tiktok-shop/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: webhookSignature(APP.appKey, APP.appSecret, body),
        },
        body,
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.include({ received: true, ignored: 'unknown store' });
    });
  });

  describe('orders', () => {
    it('waits while an order is ON_HOLD, then places it once it is AWAITING_SHIPMENT', async () => {
      const { storeId, shop, store } = await installed();
      const id = tiktokId();
      const spec = {
        id,
        paid: true,
        lines: [{ sku: SKU, quantity: 2 }],
        updatedAt: new Date(Date.now() - 300_000).toISOString(),
      };
      tiktok.save(shop, tiktokOrderOf(spec, { status: 'ON_HOLD' }));
      expect(await store.deliver(spec, 'created')).to.equal(200);
      await ingestIn(storeId, id, 'waiting_payment');
      store.saveOrder({ ...spec, updatedAt: new Date().toISOString() });
      expect(await store.deliver(spec, 'paid')).to.equal(200);
      const placed = await ingestIn(storeId, id, 'placed');
      const order = await db()
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', placed!.order_id!)
        .executeTakeFirstOrThrow();
      expect(order.external_order_id).to.equal(id);
    });

    it("records an order shipped by TikTok's own logistics and places nothing", async () => {
      const { storeId, shop, store } = await installed();
      const id = tiktokId();
      const spec = { id, paid: true, lines: [{ sku: SKU, quantity: 1 }] };
      tiktok.save(shop, tiktokOrderOf(spec, { shippingType: 'TIKTOK' }));
      expect(await store.deliver(spec, 'created')).to.equal(200);
      const recorded = await ingestIn(storeId, id, 'no_print_lines');
      expect(recorded!.skipped_lines).to.deep.equal([
        {
          sku: SKU,
          quantity: 1,
          reason: "shipped by TikTok Shop's own logistics (shipping_type TIKTOK): not ours to print",
        },
      ]);
      expect(await db().selectFrom('orders').select('id').where('store_id', '=', storeId).execute()).to.deep.equal([]);
    });

    it('waits out throttling answered as HTTP 200 with a non-zero code, then polls on', async () => {
      const { key, shop, storeId, store } = await installed();
      const id = store.saveOrder({ paid: true, lines: [{ sku: SKU, quantity: 1 }] });
      tiktok.faultNext(/\/orders\/search$/, [200, { ...errors.tooManyRequests }]);
      const before = searchesOf(shop.cipher).length;
      await sync(key, storeId);
      await ingestIn(storeId, id, 'placed');
      expect(tiktok.calls.some((c) => c.path.endsWith('/orders/search') && c.code === 36009006)).to.equal(true);
      expect(searchesOf(shop.cipher).length).to.be.greaterThan(before);
    });
  });

  describe('tracking back to TikTok', () => {
    it('ships the units we printed only, with our carrier’s shipping_provider_id from the delivery option', async () => {
      const { shop, storeId, store } = await installed('test');
      const spec = {
        paid: true,
        lines: [
          { sku: SKU, quantity: 2 },
          { sku: OTHER_SKU, quantity: 1 },
        ],
      };
      const id = store.saveOrder(spec);
      expect(await store.deliver({ ...spec, id }, 'created')).to.equal(200);
      const placed = await ingestIn(storeId, id, 'placed');
      const pushed = await eventually(async () => shop.packages.find((p) => p.orderId === id), 'the package', 30_000);
      const ours = shop.orders
        .get(id)!
        .line_items.filter((l) => l.seller_sku === SKU)
        .map((l) => l.id);
      expect(pushed.order_line_item_ids).to.deep.equal(ours);
      expect(pushed.shipping_provider_id).to.equal('7212598461582034693');
      const order = await db()
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', placed!.order_id!)
        .executeTakeFirstOrThrow();
      expect(pushed.tracking_number).to.equal((order.tracking as { trackingNumber: string }).trackingNumber);
      const other = shop.orders.get(id)!.line_items.find((l) => l.seller_sku === OTHER_SKU)!;
      expect(other.display_status).to.equal('AWAITING_SHIPMENT');
      expect(shop.orders.get(id)!.status).to.equal('PARTIALLY_SHIPPING');
      expect(tiktok.seen(/\/delivery_options\/\d+\/shipping_providers$/).length).to.be.greaterThan(0);
    });
  });

  describe('listings', () => {
    it("lists the shop's products and SKUs by seller_sku", async () => {
      const { key, storeId } = await installed();
      const listings = await eventually(async () => {
        const res = await t.api(key, 'GET', `/stores/${storeId}/listings`);
        return res.body.data?.length === 2 && res.body.data;
      }, 'the listings');
      expect(
        listings
          .map((l: { sku: string; title: string; externalProductId: string; externalVariantId: string }) => [
            l.sku,
            l.title,
            l.externalProductId,
            l.externalVariantId,
          ])
          .sort(),
      ).to.deep.equal([
        ['POD-TEE-CAT-L', 'Cat Tee', '1729000000000000000', '1729000000000000002'],
        ['POD-TEE-CAT-M', 'Cat Tee', '1729000000000000000', '1729000000000000001'],
      ]);
    });
  });
});
