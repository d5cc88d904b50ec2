import { expect } from 'chai';
import {
  eventually,
  posterReseller,
  POSTER_SKU,
  type TestHttpsServer,
  type TestService,
  scaled,
} from '@print-api/core/testing';
import type { ConformanceService } from '@print-api/connector-kit/testing';
import { ADDRESS_WITHHELD } from '../src/index.ts';
import { APP, FakeEtsy, SCOPES_WITHOUT_LISTINGS, type FakeEtsyShop } from './fake-etsy.ts';
import { receiptOf } from './fake-etsy-receipts.ts';
import { etsyE2eService } from './etsy-e2e-service.ts';
import { install, installThroughBrowser } from './etsy-platform.ts';

const PUBLIC_URL = 'https://print-api.example.com';

// The scenarios every platform shares run in conformance.test.ts; here what Etsy makes different.
describe('Etsy end to end (real PostgreSQL + Redis, Etsy played by a local HTTPS server)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  let files: TestHttpsServer;
  const etsy = new FakeEtsy();
  etsyE2eService(etsy, PUBLIC_URL, (started) => {
    ({ t, files } = started);
  });
  // Every call the connector made kept to Etsy's published contract (a scope refused is Etsy's answer, provoked on
  // purpose).
  after(() =>
    expect(etsy.contractLog.violations.filter((v) => !v.includes('lacks the OAuth scope'))).to.deep.equal([]),
  );
  afterEach(() => {
    etsy.tokenLifetimeSeconds = 3600;
    etsy.remainingToday = null;
  });

  const db = () => t.service.db;
  const service = (): ConformanceService => ({
    baseUrl: t.baseUrl,
    publicUrl: PUBLIC_URL,
    toService: (u) => u.replace(PUBLIC_URL, t.baseUrl),
    api: async (key, method, path, body) => t.api(key, method, path, body),
  });
  const ingest = (storeId: string, receiptId: string) =>
    db()
      .selectFrom('store_ingests')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', receiptId)
      .executeTakeFirst();
  const settled = (storeId: string, receiptId: string) =>
    eventually(async () => {
      const i = await ingest(storeId, receiptId);
      return i && i.status !== 'received' && i;
    }, `receipt ${receiptId} ingested`);
  const printOrders = (storeId: string) =>
    db().selectFrom('orders').selectAll().where('store_id', '=', storeId).execute();
  const receiptsPolled = (shop: FakeEtsyShop) =>
    etsy.seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts$`));
  const paidReceipt = (shop: FakeEtsyShop, over: Record<string, unknown> = {}) => {
    const id = etsy.nextReceiptId();
    etsy.saveReceipt(shop, receiptOf({ id, paid: true, lines: [{ sku: POSTER_SKU, quantity: 1 }] }, over));
    return id;
  };

  async function connected(mode: 'live' | 'test' = 'live') {
    const reseller = await posterReseller(t, files, mode);
    const shop = etsy.addShop();
    const storeId = await install(service(), etsy, reseller.key, shop);
    await eventually(async () => receiptsPolled(shop).length > 0, 'the first poll');
    return { reseller, shop, storeId };
  }

  describe('install (OAuth 2.0 with PKCE)', () => {
    it("connects the user's shop: consent, code exchanged with the verifier, shop from users/me, tokens sealed", async () => {
      const { reseller, shop, storeId } = await connected();
      const view = (await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data;
      expect(view).to.include({
        platform: 'ETSY',
        externalId: shop.shopId,
        name: shop.shopName,
        status: 'connected',
        lastError: null,
      });
      const exchange = etsy.tokenRequests.filter((r) => r.grant_type === 'authorization_code').at(-1)!;
      expect(exchange).to.include({ client_id: APP.keystring, redirect_uri: `${PUBLIC_URL}/connectors/etsy/callback` });
      expect(exchange.code_verifier).to.match(/^[A-Za-z0-9_-]{43}$/);
      const row = await db().selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
      const credentials = t.service.services.stores.credentials.connection(row).credentials as {
        refreshToken: string;
        accessToken: string;
        shopId: string;
        userId: string;
      };
      expect(credentials).to.include({ shopId: shop.shopId, userId: shop.userId });
      expect(row.credentials_sealed).not.to.contain(credentials.refreshToken);
      // Every call to Etsy carried the app's key and shared secret; every application call the shop's Bearer token.
      for (const call of etsy.calls)
        expect(call.headers.get('x-api-key'), call.path).to.equal(`${APP.keystring}:${APP.sharedSecret}`);
      for (const call of etsy.calls.filter((c) => c.path.startsWith('/v3/application/')))
        expect(call.headers.get('authorization'), call.path).to.match(/^Bearer \d+\./);
    });

    it('a forged state connects nothing and says why', async () => {
      const reseller = await posterReseller(t, files);
      const res = await installThroughBrowser(service(), etsy, reseller.key, etsy.addShop(), (u) =>
        u.replace(/state=[^&]+/, 'state=forged-state-value'),
      );
      expect(res.status).to.equal(422);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('store_install_rejected');
      expect(body.error.message).to.match(/state does not match/);
      expect((await t.api(reseller.key, 'GET', '/stores')).body.data).to.deep.equal([]);
    });

    it('a stale code (the merchant came back too late) connects nothing and says why', async () => {
      const reseller = await posterReseller(t, files);
      const res = await installThroughBrowser(service(), etsy, reseller.key, etsy.addShop(), undefined, () =>
        etsy.ageCodes(),
      );
      expect(res.status).to.equal(422);
      expect(((await res.json()) as { error: object }).error).to.deep.include({
        code: 'store_install_rejected',
        message: 'Etsy said: Etsy refused to exchange the authorization code (400 invalid_grant: code has expired)',
      });
      expect((await t.api(reseller.key, 'GET', '/stores')).body.data).to.deep.equal([]);
    });

    it('a code replayed (a callback URL used twice) is refused by Etsy, a declined consent says so', async () => {
      const reseller = await posterReseller(t, files);
      const shop = etsy.addShop();
      let callback = '';
      const first = await installThroughBrowser(service(), etsy, reseller.key, shop, (u) => (callback = u));
      expect(first.status).to.equal(303);
      const link = await t.api(reseller.key, 'POST', '/stores/install-links', { platform: 'ETSY' });
      const begin = await fetch(link.body.data.installUrl.replace(PUBLIC_URL, t.baseUrl), { redirect: 'manual' });
      const cookies = begin.headers
        .getSetCookie()
        .map((c) => c.split(';')[0]!)
        .join('; ');
      const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: cookies } });
      expect(replay.status).to.equal(422);
      expect(((await replay.json()) as { error: { code: string } }).error.code).to.equal('store_install_rejected');
      const consent = new URL(begin.headers.get('location')!);
      const declined = await fetch(
        `${t.baseUrl}/connectors/etsy/callback?error=access_denied&error_description=The+user+denied+the+request&state=${consent.searchParams.get('state')}`,
        { redirect: 'manual', headers: { cookie: cookies } },
      );
      expect(declined.status).to.equal(422);
      expect(((await declined.json()) as { error: { message: string } }).error.message).to.equal(
        'Etsy said: the merchant did not grant access (access_denied: The user denied the request)',
      );
      expect((await t.api(reseller.key, 'GET', '/stores')).body.data).to.have.length(1);
    });

    it("an install link takes no fields besides returnUrl (the shop is the consenting user's)", async () => {
      const reseller = await posterReseller(t, files);
      const res = await t.api(reseller.key, 'POST', '/stores/install-links', { platform: 'ETSY', shop: '12345' });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.message).to.match(/^The Etsy install fields are invalid: /);
    });

    it('POST /stores with a refresh token issued to this app connects its shop; a refused one is said so', async () => {
      const reseller = await posterReseller(t, files);
      const shop = etsy.addShop();
      const res = await t.api(reseller.key, 'POST', '/stores', {
        platform: 'ETSY',
        refreshToken: etsy.issueRefreshToken(shop),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.data).to.include({ externalId: shop.shopId, status: 'connected' });
      const refused = await t.api(reseller.key, 'POST', '/stores', {
        platform: 'ETSY',
        refreshToken: `${shop.userId}.not-a-token-etsy-issued`,
      });
      expect(refused.status).to.equal(422);
      expect(refused.body.error).to.deep.include({ code: 'store_credentials_rejected' });
    });
  });

  describe('tokens', () => {
    it('renews the hour-long access token before it expires, keeping each rotated refresh token (concurrent jobs never spend one twice)', async () => {
      etsy.tokenLifetimeSeconds = 300; // within the renewal margin: every call renews first
      const { shop, storeId } = await connected();
      const from = etsy.calls.length;
      const before = etsy.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length;
      const ids = [paidReceipt(shop), paidReceipt(shop), paidReceipt(shop), paidReceipt(shop)];
      expect(await Promise.all(ids.map((id) => etsy.deliver(shop, id)))).to.deep.equal([200, 200, 200, 200]);
      for (const id of ids) expect((await settled(storeId, id)).status).to.equal('placed');
      expect(etsy.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length).to.be.greaterThan(before);
      const since = etsy.calls.slice(from);
      expect(
        since.filter((c) => c.path === '/v3/public/oauth/token' && c.status !== 200).map((c) => c.body),
      ).to.deep.equal([]);
      expect(since.filter((c) => c.status === 401).map((c) => c.path)).to.deep.equal([]);
      expect(
        (await db().selectFrom('stores').select('status').where('id', '=', storeId).executeTakeFirstOrThrow()).status,
      ).to.equal('connected');
    });

    it('a revoked grant (401 on refresh) disconnects the store, with the reason in GET /stores/{id}', async () => {
      etsy.tokenLifetimeSeconds = 300;
      const { reseller, shop, storeId } = await connected();
      etsy.revoke(shop);
      const sync = await t.api(reseller.key, 'POST', `/stores/${storeId}/sync`);
      expect([202, 409]).to.include(sync.status);
      const view = await eventually(async () => {
        const v = (await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data;
        return v.status === 'disconnected' && v;
      }, 'the store disconnected');
      expect(view.lastError).to.match(
        /^Etsy refused to renew the store's access, so it was disconnected: Etsy refused to refresh the access token \(401 invalid_grant: The refresh token has been revoked\)\. Connect the store again\.$/,
      );
      expect(view.disconnectedAt).to.be.a('string');
    });
  });

  describe('orders', () => {
    it('finds the store by shop_id as an integer or a string, or from resource_url on either Etsy host', async () => {
      const { shop, storeId } = await connected();
      const variants = [
        { shopIdAs: 'string' as const },
        { host: 'api.etsy.com' },
        { shopIdAs: 'absent' as const, host: 'api.etsy.com' },
      ];
      for (const opts of variants) {
        const id = paidReceipt(shop);
        expect(await etsy.deliver(shop, id, opts)).to.equal(200);
        expect((await settled(storeId, id)).status, JSON.stringify(opts)).to.equal('placed');
      }
      expect(await printOrders(storeId)).to.have.length(3);
    });

    it("places a receipt announced in the docs page's nested form (ORDER_PAID, the fields under data), shop_id a number or a string, resource_url on either host or absent", async () => {
      const { shop, storeId } = await connected();
      const variants = [
        { form: 'nested' as const },
        { form: 'nested' as const, shopIdAs: 'string' as const, host: 'api.etsy.com' },
        { form: 'nested' as const, withResourceUrl: false, eventType: 'order_paid' },
        { eventType: 'ORDER.PAID' },
      ];
      for (const opts of variants) {
        const id = paidReceipt(shop);
        expect(await etsy.deliver(shop, id, opts)).to.equal(200);
        expect((await settled(storeId, id)).status, JSON.stringify(opts)).to.equal('placed');
      }
      expect(await printOrders(storeId)).to.have.length(4);
    });

    it('a receipt whose address Etsy withholds waits visibly (never placed without one), and is placed once the address can be read', async () => {
      const { reseller, shop, storeId } = await connected();
      const id = paidReceipt(shop, {
        name: null,
        first_line: null,
        second_line: null,
        city: null,
        state: null,
        zip: null,
        country_iso: null,
        formatted_address: null,
      });
      expect(await etsy.deliver(shop, id)).to.equal(200);
      const waiting = await settled(storeId, id);
      expect(waiting).to.include({ status: 'waiting_address', error: ADDRESS_WITHHELD, order_id: null });
      expect(await printOrders(storeId)).to.deep.equal([]);
      const listed = (await t.api(reseller.key, 'GET', `/stores/${storeId}/ingests?status=waiting_address`)).body.data;
      expect(listed.map((i: { externalOrderId: string; error: string }) => [i.externalOrderId, i.error])).to.deep.equal(
        [[id, ADDRESS_WITHHELD]],
      );
      // Etsy shares the address now: a retry fetches the receipt again and places it.
      etsy.saveReceipt(shop, receiptOf({ id, paid: true, lines: [{ sku: POSTER_SKU, quantity: 1 }] }));
      const retried = await t.api(reseller.key, 'POST', `/stores/${storeId}/ingests/${waiting.id}/retry`);
      expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
      expect(retried.body.data.status).to.equal('placed');
      const [order] = await printOrders(storeId);
      expect(order!.recipient).to.deep.include({ name: 'Ada Lovelace', city: 'Utrecht', country: 'NL' });
      expect(order!.recipient).not.to.have.property('phone');
      expect((await t.api(reseller.key, 'GET', `/orders/${order!.id}`)).body.data.carrierContact).to.deep.equal({
        emailSource: 'reseller',
        phoneSource: 'reseller',
      });
    });

    it('catches, on a sync, a cancellation no webhook told (the paid-unshipped query leaves cancelled receipts out)', async () => {
      const { reseller, shop, storeId } = await connected();
      const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
      const id = etsy.nextReceiptId();
      etsy.saveReceipt(
        shop,
        receiptOf({ id, paid: true, updatedAt: at(3), lines: [{ sku: POSTER_SKU, quantity: 1 }] }),
      );
      await etsy.deliver(shop, id);
      const placed = await settled(storeId, id);
      expect(placed.status).to.equal('placed');
      etsy.saveReceipt(
        shop,
        receiptOf({ id, paid: true, cancelled: true, updatedAt: at(1), lines: [{ sku: POSTER_SKU, quantity: 1 }] }),
      );
      await eventually(async () => {
        const res = await t.api(reseller.key, 'POST', `/stores/${storeId}/sync`);
        return res.status === 202;
      }, 'a sync accepted');
      await eventually(async () => (await ingest(storeId, id))?.status === 'cancelled', 'the cancellation ingested');
      expect((await t.api(reseller.key, 'GET', `/orders/${placed.order_id}`)).body.data.state).to.equal('CANCELLED');
      const asked = etsy
        .seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts$`))
        .map((c) => Object.fromEntries(c.query));
      expect(asked.some((q) => q.was_canceled === 'true')).to.equal(true);
      expect(
        asked
          .filter((q) => q.was_canceled === 'false')
          .every((q) => q.was_paid === 'true' && q.was_shipped === 'false' && q.sort_on === 'updated'),
      ).to.equal(true);
    });

    it("waits out Etsy's 429 (no Retry-After: the second's budget) and fetches the receipt again", async () => {
      const { shop, storeId } = await connected();
      const id = paidReceipt(shop);
      const path = new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts/${id}$`);
      etsy.faultNext(path, [429, { error: 'Too many requests' }, { 'x-remaining-this-second': '0' }]);
      expect(await etsy.deliver(shop, id)).to.equal(200);
      expect((await settled(storeId, id)).status).to.equal('placed');
      const [first, second] = etsy.seen(path);
      expect(second!.at - first!.at).to.be.at.least(900);
    });

    it('pushes the tracking form-encoded with our carrier mapped to Etsy’s name', async () => {
      const { shop, storeId } = await connected('test');
      const id = paidReceipt(shop);
      await etsy.deliver(shop, id);
      const placed = await settled(storeId, id);
      const [pushed] = await eventually(
        async () => (shop.tracking.get(id)?.length ? shop.tracking.get(id) : undefined),
        'the tracking pushed',
      );
      const order = await db()
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', placed.order_id!)
        .executeTakeFirstOrThrow();
      expect(pushed).to.deep.equal({
        tracking_code: order.tracking!.trackingNumber,
        carrier_name: 'postnl',
        contentType: 'application/x-www-form-urlencoded',
      });
      expect(shop.receipts.get(id)!.is_shipped).to.equal(true);
    });
  });

  it('a shop connected without listings_r shows a notice with the way to reconnect (API, dashboard, console) and its failed listing sync; reconnected, its listed SKU is guarded', async () => {
    const reseller = await posterReseller(t, files);
    const shop = etsy.addShop();
    const created = await t.api(reseller.key, 'POST', '/stores', {
      platform: 'ETSY',
      refreshToken: etsy.issueRefreshToken(shop, SCOPES_WITHOUT_LISTINGS),
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const storeId = created.body.data.id as string;
    expect(created.body.data.notices).to.have.length(1);
    expect(created.body.data.notices[0])
      .to.match(/without the listings_r permission/)
      .and.to.match(/install link/);
    // The listing sync Etsy refuses shows on the store, not only in a log line.
    const failed = await eventually(async () => {
      const v = (await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data;
      return /^Listings could not be read: .*listings_r/.test(v.lastError ?? '') && v;
    }, 'the failed listing sync on the store');
    expect(failed.status).to.equal('connected');
    const product = (await t.api(reseller.key, 'GET', '/reseller-products')).body.data.find(
      (p: { sku: string }) => p.sku === POSTER_SKU,
    );
    expect(
      (await t.api(reseller.key, 'DELETE', `/reseller-products/${product.id}`)).status,
      'not guarded before the listings are read',
    ).to.not.equal(409);
    const again = await t.api(reseller.key, 'POST', '/reseller-products', {
      sku: POSTER_SKU,
      title: 'Tulip poster A2',
      productId: 'posters',
      fileUrl: `${files.url}/art/flyer.pdf`,
    });
    expect(again.status, JSON.stringify(again.body)).to.equal(201);

    // The dashboard's store page and the operators' store health show the notice too.
    const health = await t.admin('GET', '/stores?platform=ETSY&limit=100');
    expect(health.body.data.find((h: { id: string }) => h.id === storeId).notices[0]).to.match(/listings_r/);
    const link = new URL((await t.api(reseller.key, 'POST', '/dashboard-links')).body.data.url);
    const session = await fetch(`${t.baseUrl}${link.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Mozilla/5.0 (print-api tests)' },
      body: '',
    });
    await session.arrayBuffer();
    const cookie = session.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const page = await (
      await fetch(`${t.baseUrl}/dashboard/stores/${storeId}`, {
        headers: { cookie, 'user-agent': 'Mozilla/5.0 (print-api tests)' },
      })
    ).text();
    expect(page).to.match(/data-testid="store-notices"[^]*without the listings_r permission/);

    // Reconnected through the install link (which asks for listings_r): the same store, its listings read, the listed
    // SKU guarded.
    expect(await install(service(), etsy, reseller.key, shop)).to.equal(storeId);
    const mended = await eventually(async () => {
      const v = (await t.api(reseller.key, 'GET', `/stores/${storeId}`)).body.data;
      const listings = (await t.api(reseller.key, 'GET', `/stores/${storeId}/listings`)).body.data as unknown[];
      return v.notices.length === 0 && v.lastError === null && listings.length === 3 && v;
    }, 'the store mended and its listings read');
    expect(mended.status).to.equal('connected');
    const guarded = (await t.api(reseller.key, 'GET', '/reseller-products')).body.data.find(
      (p: { sku: string }) => p.sku === POSTER_SKU,
    );
    const refused = await eventually(async () => {
      const res = await t.api(reseller.key, 'DELETE', `/reseller-products/${guarded.id}`);
      return res.status === 409 && res;
    }, 'the listed SKU guarded');
    expect(refused.body.error.code).to.be.a('string');
  });

  it("lists the shop's active listings with their inventory SKUs, matched to the reseller's products", async () => {
    const { reseller, shop, storeId } = await connected();
    shop.listings.push({
      ...structuredClone(shop.listings[1]!),
      listing_id: 113,
      title: 'Old poster',
      state: 'inactive',
    });
    const res = await t.api(reseller.key, 'POST', `/stores/${storeId}/sync`);
    expect([202, 409]).to.include(res.status);
    const listings = await eventually(async () => {
      const page = (await t.api(reseller.key, 'GET', `/stores/${storeId}/listings`)).body.data as Array<{
        externalProductId: string;
        externalVariantId: string | null;
        sku: string | null;
        title: string;
        resellerProduct: { sku: string } | null;
      }>;
      return page.length === 3 && page;
    }, 'the listings synced');
    expect(
      listings
        .map((l) => [l.externalProductId, l.externalVariantId, l.sku, l.title, l.resellerProduct?.sku ?? null])
        .sort(),
    ).to.deep.equal([
      ['111', '221', 'POD-TEE-CAT-S', 'Cat Tee - S', null],
      ['111', '222', 'POD-TEE-CAT-M', 'Cat Tee - M', null],
      ['112', '331', 'POSTER-TULIPS', 'Tulip poster', POSTER_SKU],
    ]);
    const asked = etsy.seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/listings$`)).at(-1)!;
    expect(Object.fromEntries(asked.query)).to.include({ state: 'active', includes: 'Inventory', limit: '100' });
  });
});
