import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  eventually,
  type ConformanceHarness,
  type FakeHttpsServer,
  type FakeRequestHandler,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { startConnectorService, startHttpsServer, scaled } from '@print-api/core/testing';
import { wixConnector } from '../src/index.ts';
import { FakeWix, takeContractViolations, type FakeWixSite } from './fake-wix.ts';
import { wixOrderOf } from './fake-wix-orders.ts';
import { wixStore } from './fake-wix-store.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const OTHER_SKU = 'MUG-DELFT';

// The scenarios every platform shares run in conformance.test.ts; here what Wix makes different.
describe('Wix end to end (real PostgreSQL + Redis, the fake Wix over local HTTPS)', function () {
  // Every call the connector made (and every order the fake answered or sent) kept to the official SDK packages'
  // contract.
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  this.timeout(scaled(90_000));
  let h: ConformanceHarness;
  let server: Omit<FakeHttpsServer, 'fallback'>;
  const wix = new FakeWix();

  before(async function () {
    let fallback: FakeRequestHandler | undefined;
    server = await startHttpsServer((req, res, body) =>
      fallback ? fallback(req, res, body) : void res.writeHead(404).end(),
    );
    const settings = await wix.start({ ...server, fallback: (handler) => void (fallback = handler) });
    h = await startConnectorService(this, { connectors: [wixConnector], env: settings, publicUrl: PUBLIC_URL });
  });
  after(async () => {
    await h?.close();
    await server?.close();
  });

  const storeView = async (key: string, id: string) => (await h.api(key, 'GET', `/stores/${id}`)).body.data;
  const stores = async (key: string) => (await h.api<{ data: Array<{ id: string }> }>(key, 'GET', '/stores')).body.data;
  const ingests = async (key: string, storeId: string) =>
    (
      await h.api<{
        data: Array<{ externalOrderId: string; status: string; orderId: string | null; error: string | null }>;
      }>(key, 'GET', `/stores/${storeId}/ingests?limit=100`)
    ).body.data;
  const ingestIn = (key: string, storeId: string, orderId: string, status: string) =>
    eventually(
      async () => (await ingests(key, storeId)).find((i) => i.externalOrderId === orderId && i.status === status),
      `ingest ${orderId} ${status}`,
    );
  const order = async (key: string, id: string) => (await h.api(key, 'GET', `/orders/${id}`)).body.data;
  const printOrder = (over: Partial<OrderSpec> = {}): OrderSpec => ({
    paid: true,
    lines: [{ sku: h.sku, quantity: 2 }],
    ...over,
  });
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
  async function sync(key: string, storeId: string): Promise<void> {
    await eventually(async () => {
      const res = await h.api(key, 'POST', `/stores/${storeId}/sync`);
      if (res.status === 409 && res.body?.error?.code === 'sync_in_progress') return false;
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return true;
    }, 'a sync accepted');
  }

  async function connected(
    mode: 'live' | 'test' = 'live',
  ): Promise<{ key: string; site: FakeWixSite; store: FakeStore }> {
    const r = await h.reseller(mode);
    const site = wix.newSite();
    const storeId = await wix.install(h, r.key, site);
    await eventually(async () => site.seen('searchOrders').length > 0, 'the first poll');
    return { key: r.key, site, store: wixStore(wix, h, site, storeId) };
  }

  describe('install through Wix', () => {
    it("installs through Wix's installer: the site's instance tied to the reseller who asked, named after the site, its token minted with the app's credentials", async () => {
      const r = await h.reseller('live');
      const site = wix.newSite();
      const before = wix.tokenRequests.length;
      const done = await wix.installResponse(h, r.key, site);
      assert.equal(done.status, 303);
      const back = new URL(done.headers.get('location')!);
      assert.equal(`${back.origin}${back.pathname}`, 'https://app.reseller.example/stores');
      assert.equal(back.searchParams.get('platform'), 'WIX');
      const view = await storeView(r.key, back.searchParams.get('store')!);
      assert.deepEqual(
        [view.platform, view.externalId, view.name, view.status],
        ['WIX', site.instanceId, site.name, 'connected'],
      );
      assert.deepEqual(wix.tokenRequests[before], {
        grant_type: 'client_credentials',
        client_id: wix.settings().CONNECTOR_WIX_APP_ID,
        client_secret: wix.settings().CONNECTOR_WIX_APP_SECRET,
        instance_id: site.instanceId,
      });
      // Another reseller sees nothing of it.
      assert.deepEqual(await stores((await h.reseller('live')).key), []);
    });

    it('connects nothing when the state in the redirect is forged, and says why', async () => {
      const r = await h.reseller('live');
      const res = await wix.installResponse(h, r.key, wix.newSite(), {
        tamper: (u) => u.searchParams.set('state', `${u.searchParams.get('state')}x`),
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(res.status, 422);
      assert.equal(body.error.code, 'store_install_rejected');
      assert.match(body.error.message, /install state .* not the one this browser started/);
      assert.deepEqual(await stores(r.key), []);
    });

    it('connects nothing when the browser brings no (or a stale) install: no install in progress', async () => {
      const r = await h.reseller('live');
      const res = await wix.installResponse(h, r.key, wix.newSite(), {
        cookies: () => ['print_api_install=stale-or-forged'],
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(res.status, 400);
      assert.equal(body.error.code, 'install_not_started');
      assert.deepEqual(await stores(r.key), []);
    });

    it('connects nothing for an instance our app is not installed on (a forged instanceId): Wix refuses its token', async () => {
      const r = await h.reseller('live');
      const res = await wix.installResponse(h, r.key, wix.newSite(), {
        tamper: (u) => u.searchParams.set('instanceId', randomUUID()),
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(res.status, 422);
      assert.match(body.error.message, /Wix refused an access token .* not installed on that site/);
      assert.deepEqual(await stores(r.key), []);
    });

    it("connects nothing for another app's redirect or one without an instanceId", async () => {
      const r = await h.reseller('live');
      const other = await wix.installResponse(h, r.key, wix.newSite(), {
        tamper: (u) => u.searchParams.set('appId', randomUUID()),
      });
      assert.equal(other.status, 422);
      assert.match(((await other.json()) as { error: { message: string } }).error.message, /not ours/);
      const none = await wix.installResponse(h, r.key, wix.newSite(), {
        tamper: (u) => u.searchParams.delete('instanceId'),
      });
      assert.equal(none.status, 422);
      assert.match(((await none.json()) as { error: { message: string } }).error.message, /no usable instanceId/);
      assert.deepEqual(await stores(r.key), []);
    });

    it('refuses POST /stores for Wix, pointing at the install link', async () => {
      const r = await h.reseller('live');
      const res = await h.api(r.key, 'POST', '/stores', { platform: 'WIX', instanceId: randomUUID() });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.match(res.body.error.message, /install-links/);
      assert.deepEqual(await stores(r.key), []);
    });
  });

  describe('tokens', () => {
    it('keeps using the minted token until it expires, mints again when Wix refuses it, and sends it raw (no Bearer)', async () => {
      const { key, site, store } = await connected();
      const grants = wix.tokenGrants(site.instanceId);
      await sync(key, store.storeId);
      await eventually(async () => site.seen('searchOrders').length >= 2, 'the second poll');
      assert.equal(wix.tokenGrants(site.instanceId), grants, 'no new token while the cached one is good');
      wix.expireTokens();
      const id = store.saveOrder(printOrder({ updatedAt: minutesAgo(1) }));
      await sync(key, store.storeId);
      await ingestIn(key, store.storeId, id, 'placed');
      assert.equal(wix.tokenGrants(site.instanceId), grants + 1);
      const polls = site.seen('searchOrders').length;
      await sync(key, store.storeId);
      await eventually(async () => site.seen('searchOrders').length > polls, 'another poll');
      assert.equal(wix.tokenGrants(site.instanceId), grants + 1, 'the new token is kept');
    });

    it('mints a new token when the cached one is about to expire', async () => {
      const { key, site, store } = await connected();
      const grants = wix.tokenGrants(site.instanceId);
      // Tokens now live 2 minutes: within the 5-minute margin, so each is renewed before use.
      wix.tokenLifetimeSeconds = 120;
      try {
        wix.expireTokens();
        await sync(key, store.storeId);
        await eventually(async () => wix.tokenGrants(site.instanceId) > grants, 'a token minted');
        const after = wix.tokenGrants(site.instanceId);
        await sync(key, store.storeId);
        await eventually(async () => wix.tokenGrants(site.instanceId) > after, 'a token minted before it expires');
      } finally {
        wix.tokenLifetimeSeconds = 4 * 3600;
      }
    });
  });

  describe('orders', () => {
    it('fetches the order of a thin event (only its id and statuses), and places it when approved and paid', async () => {
      const { key, site, store } = await connected();
      const id = store.saveOrder(printOrder({ updatedAt: minutesAgo(1) }));
      const thin = { id, number: '10042', status: 'APPROVED', paymentStatus: 'PAID' };
      const event = {
        id: randomUUID(),
        entityFqdn: 'wix.ecom.v1.order',
        slug: 'approved',
        entityId: id,
        eventTime: new Date().toISOString(),
        actionEvent: { body: { order: thin } },
      };
      assert.equal(await wix.post(h, wix.webhookBody(site, 'wix.ecom.v1.order_approved', event)), 200);
      await ingestIn(key, store.storeId, id, 'placed');
      assert.ok(site.seen('getOrder').some((c) => c.path.endsWith(id)));
    });

    it('waits on an approved offline-payment order (NOT_PAID) and places it on payment_status_updated PAID', async () => {
      const { key, store } = await connected();
      const id = store.saveOrder(printOrder({ paid: false, updatedAt: minutesAgo(10) }));
      assert.equal(
        await store.deliver({ ...printOrder({ paid: false, updatedAt: minutesAgo(10) }), id }, 'created'),
        200,
      );
      await ingestIn(key, store.storeId, id, 'waiting_payment');
      store.saveOrder({ ...printOrder({ updatedAt: minutesAgo(2) }), id });
      assert.equal(await store.deliver({ ...printOrder({ updatedAt: minutesAgo(2) }), id }, 'paid'), 200);
      await ingestIn(key, store.storeId, id, 'placed');
    });

    it('prints what is still owed of a PARTIALLY_REFUNDED order, and keeps its Italian province and company', async () => {
      const { key, site, store } = await connected();
      const id = randomUUID();
      const base = wixOrderOf({
        ...printOrder({
          lines: [
            { sku: h.sku, quantity: 3 },
            { sku: h.sku, quantity: 1 },
          ],
          updatedAt: minutesAgo(1),
        }),
        id,
      });
      const destination = {
        address: {
          country: 'IT',
          subdivision: 'IT-MI',
          city: 'Milano',
          postalCode: '20121',
          addressLine1: 'Via Torino 12',
        },
        contactDetails: {
          firstName: 'Giulia',
          lastName: 'Rossi',
          phone: '+39 02 1234567',
          company: 'Tipografia Rossi S.r.l.',
        },
      };
      // One of the three posters of the first line refunded, the second line refunded whole (`refundQuantity`, as Wix's
      // Order type has it).
      const refunded = base.lineItems.map((line) => Object.assign({}, line, { refundQuantity: 1 }));
      site.orders.set(id, {
        ...base,
        paymentStatus: 'PARTIALLY_REFUNDED',
        lineItems: refunded,
        shippingInfo: { title: 'Standard', logistics: { shippingDestination: destination } },
      });
      await sync(key, store.storeId);
      const ingest = await ingestIn(key, store.storeId, id, 'placed');
      const placed = await order(key, ingest.orderId!);
      assert.deepEqual(
        placed.lines.map((l: { quantity: number }) => l.quantity),
        [2],
      );
      assert.deepEqual(placed.recipient, {
        name: 'Giulia Rossi',
        company: 'Tipografia Rossi S.r.l.',
        email: base.buyerInfo.email,
        phone: '+39 02 1234567',
        address1: 'Via Torino 12',
        postalCode: '20121',
        city: 'Milano',
        state: 'MI',
        country: 'IT',
      });
    });

    it('waits on a PARTIALLY_PAID order (a deposit) and places it once Wix reports it PAID', async () => {
      const { key, site, store } = await connected();
      const id = randomUUID();
      site.orders.set(id, {
        ...wixOrderOf({ ...printOrder({ updatedAt: minutesAgo(5) }), id }),
        paymentStatus: 'PARTIALLY_PAID',
      });
      await sync(key, store.storeId);
      await ingestIn(key, store.storeId, id, 'waiting_payment');
      site.orders.set(id, wixOrderOf({ ...printOrder({ updatedAt: minutesAgo(1) }), id }));
      await sync(key, store.storeId);
      await ingestIn(key, store.storeId, id, 'placed');
    });

    it('never lets an older event, resent late, undo a newer state (a cancellation stays)', async () => {
      const { key, store } = await connected();
      const id = store.saveOrder(printOrder({ updatedAt: minutesAgo(30) }));
      await store.deliver({ ...printOrder({ updatedAt: minutesAgo(30) }), id }, 'created');
      const placed = await ingestIn(key, store.storeId, id, 'placed');
      store.saveOrder({ ...printOrder({ cancelled: true, updatedAt: minutesAgo(5) }), id });
      await store.deliver({ ...printOrder({ cancelled: true, updatedAt: minutesAgo(5) }), id }, 'cancelled');
      await ingestIn(key, store.storeId, id, 'cancelled');
      // Wix resends the approval of half an hour ago (a new delivery of the old state).
      assert.equal(await store.deliver({ ...printOrder({ updatedAt: minutesAgo(30) }), id }, 'paid'), 200);
      assert.equal(await store.deliver({ ...printOrder({ updatedAt: minutesAgo(30) }), id }, 'updated'), 200);
      // A later order, delivered after them, placed: the resends were taken in by then.
      const marker = store.saveOrder(printOrder());
      await store.deliver({ ...printOrder(), id: marker }, 'created');
      await ingestIn(key, store.storeId, marker, 'placed');
      assert.equal((await order(key, placed.orderId!)).state, 'CANCELLED');
      const ours = (await h.api<{ data: unknown[] }>(key, 'GET', '/orders?limit=100')).body.data;
      assert.equal(ours.length, 2);
      assert.equal((await ingests(key, store.storeId)).find((i) => i.externalOrderId === id)!.status, 'cancelled');
    });

    it('acknowledges deliveries well within the 1,250 ms Wix waits', async () => {
      const { store } = await connected();
      const took: number[] = [];
      for (let i = 0; i < 5; i++) {
        const id = store.saveOrder(printOrder());
        const started = Date.now();
        assert.equal(await store.deliver({ ...printOrder(), id }, 'created'), 200);
        took.push(Date.now() - started);
      }
      // Signing and the round trip included; the median, so one hiccup of a busy machine does not decide.
      const median = [...took].sort((a, b) => a - b)[2]!;
      assert.ok(median < 1250, `acknowledged in ${took.join(', ')} ms`);
    });

    it('catches up many orders through cursor pages of orders/search (filter and sort on the first page only)', async () => {
      const { key, site, store } = await connected();
      const ids: string[] = [];
      for (let i = 0; i < 60; i++)
        ids.push(
          store.saveOrder({
            paid: true,
            lines: [{ sku: OTHER_SKU, quantity: 1 }],
            updatedAt: new Date(Date.now() - 60_000 + i * 100).toISOString(),
          }),
        );
      const before = site.seen('searchOrders').length;
      await sync(key, store.storeId);
      await eventually(
        async () => (await ingests(key, store.storeId)).filter((i) => i.status === 'no_print_lines').length === 60,
        'every order ingested',
      );
      const searches = site.seen('searchOrders').slice(before) as Array<{ body: { search: Record<string, any> } }>;
      assert.ok(searches.length >= 2, `${searches.length} searches`);
      assert.ok(searches[0]!.body.search.filter.updatedDate.$gte);
      assert.ok(
        searches.some((s) => s.body.search.cursorPaging.cursor && !s.body.search.filter && !s.body.search.sort),
      );
    });
  });

  describe('back to the store', () => {
    it('fulfils only the line items we printed, with a custom provider and its tracking link', async () => {
      const { key, site, store } = await connected('test');
      const spec = printOrder({
        lines: [
          { sku: OTHER_SKU, quantity: 1 },
          { sku: h.sku, quantity: 2 },
        ],
      });
      const id = store.saveOrder(spec);
      await store.deliver({ ...spec, id }, 'created');
      const placed = await ingestIn(key, store.storeId, id, 'placed');
      const [f] = await eventually(
        async () => (site.fulfillments.get(id)?.length ?? 0) > 0 && site.fulfillments.get(id)!,
        'the fulfillment',
      );
      const tracking = (await order(key, placed.orderId!)).tracking;
      const ours = wixOrderOf({ ...spec, id }).lineItems[1]!;
      assert.deepEqual(f!.lineItems, [{ id: ours.id, quantity: 2 }]);
      assert.equal(f!.trackingInfo.trackingNumber, tracking.trackingNumber);
      assert.equal(f!.trackingInfo.shippingProvider, tracking.carrier);
      assert.equal(f!.trackingInfo.trackingLink, tracking.trackingUrl);
    });
  });

  describe('listings', () => {
    const listings = async (key: string, storeId: string) =>
      (
        await h.api<{
          data: Array<{
            sku: string | null;
            title: string;
            externalProductId: string;
            externalVariantId: string | null;
            active: boolean;
          }>;
        }>(key, 'GET', `/stores/${storeId}/listings?limit=100`)
      ).body.data;

    it("lists a Catalog V1 site's products and variants with their SKUs", async () => {
      const { key, store } = await connected();
      await sync(key, store.storeId);
      const seen = await eventually(async () => {
        const l = await listings(key, store.storeId);
        return l.length === 3 && l;
      }, 'the listings');
      const bySku = Object.fromEntries(seen.map((l) => [l.sku ?? 'none', l]));
      assert.deepEqual(
        [bySku['POSTER-TULIPS']!.title, bySku['POSTER-TULIPS']!.active, bySku['POSTER-TULIPS']!.externalVariantId],
        ['Tulip poster - A2', true, '00000000-0000-0020-0005-ad9cdc10d3b8'],
      );
      assert.equal(bySku['POSTER-TULIPS-A1']!.active, false);
      assert.equal(bySku.GIFT!.externalProductId, '91f7ac8b-2baa-289c-aa50-6d64764f35d3');
    });

    it("lists a Catalog V3 site's variants", async () => {
      const { key, site, store } = await connected();
      site.catalogVersion = 'V3_CATALOG';
      await sync(key, store.storeId);
      // The connect-time run may still be reading the site as V1 when it switches: wait until the V3 run has replaced
      // those listings.
      const seen = await eventually(async () => {
        const l = await listings(key, store.storeId);
        return l.some((x) => x.sku === 'POSTER-CANAL-A2') && !l.some((x) => x.sku === 'POSTER-TULIPS') && l;
      }, 'the V3 listings');
      assert.deepEqual(seen.map((l) => [l.sku, l.title]).sort(), [
        [null, 'Canal poster - A3'],
        ['POSTER-CANAL-A2', 'Canal poster - A2'],
      ]);
    });
  });

  describe('sites we do not know', () => {
    it('acknowledges (200) a delivery for a site no reseller connected (installed from the App Market) and never calls that site', async () => {
      const stranger = wix.newSite();
      stranger.installed = true;
      const order = wixOrderOf({ ...printOrder(), id: randomUUID() });
      assert.equal(
        await wix.post(
          h,
          wix.webhookBody(stranger, 'wix.ecom.v1.order_approved', wix.orderEvent(order, 'wix.ecom.v1.order_approved')),
        ),
        200,
      );
      assert.equal(stranger.calls.length, 0);
    });
  });

  describe('uninstall', () => {
    it('disconnects the site when the app is removed, with the reason in GET /stores/{id}', async () => {
      const { key, store } = await connected();
      assert.equal(await store.uninstall!(), 200);
      const view = await eventually(async () => {
        const v = await storeView(key, store.storeId);
        return v.status === 'disconnected' && v;
      }, 'disconnection');
      assert.match(view.lastError, /uninstalled/);
    });
  });
});
