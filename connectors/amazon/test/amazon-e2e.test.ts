import assert from 'node:assert/strict';
import { eventually, storeProbes } from '@print-api/connector-kit/testing';
import { scaled, startConnectorService, startFakePlatformService } from '@print-api/core/testing';
import { amazonConnector } from '../src/index.ts';
import { carrierFields } from '../src/shipment-push.ts';
import { APP, FakeAmazon, MARKETPLACE, type FakeSeller } from './fake-amazon.ts';
import { amazonOrderId, amazonOrderOf, consentInstall } from './fake-amazon-store.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const FRANCE = 'A13V1IB3VIYZZH';
type Harness = Awaited<ReturnType<typeof startConnectorService>>;
/** A sync asked until accepted: one already running (a scheduled poll, on a busy machine) answers 409 sync_in_progress. */
const syncAccepted = (h: Harness, key: string, storeId: string) => storeProbes(() => h).sync(key, storeId);

/** The service with the Amazon connector (PostgreSQL + Redis) and a fake Amazon on a local HTTPS server. */
function amazonWorld(connector = amazonConnector) {
  const world = {} as { h: Harness; amazon: FakeAmazon };
  before(async function () {
    world.amazon = new FakeAmazon();
    world.h = await startFakePlatformService(
      this,
      (server) => {
        world.amazon.serve(server);
        return world.amazon.settings();
      },
      { connectors: [connector], publicUrl: PUBLIC_URL },
    );
  });
  after(() => world.h?.close());
  // Every call the connector made kept to Amazon's published models.
  after(() => assert.deepEqual(world.amazon.contractLog.violations, []));
  return world;
}

async function installed(
  w: { h: Harness; amazon: FakeAmazon },
  opts: { marketplaceIds?: string; seller?: FakeSeller } = {},
) {
  const r = await w.h.reseller('test');
  const seller = opts.seller ?? w.amazon.seller();
  const res = await consentInstall(
    w.h,
    r.key,
    w.amazon,
    seller,
    opts.marketplaceIds ? { marketplaceIds: opts.marketplaceIds } : {},
  );
  await res.arrayBuffer();
  assert.equal(res.status, 303);
  const storeId = new URL(res.headers.get('location')!).searchParams.get('store')!;
  await eventually(
    async () => (await w.h.api(r.key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
    'the first poll',
  );
  return { key: r.key, seller, storeId };
}

const ingests = async (h: Harness, key: string, storeId: string) =>
  (await h.api(key, 'GET', `/stores/${storeId}/ingests?limit=100`)).body.data as Array<{
    externalOrderId: string;
    status: string;
    orderId: string | null;
  }>;

describe('Amazon end to end (the service on PostgreSQL + Redis, a fake Amazon on a local HTTPS server)', function () {
  this.timeout(scaled(90_000));

  describe('install through Seller Central consent', () => {
    const w = amazonWorld();

    it("sends the seller to the consent page with our application_id, the state and our callback, and connects the seller's chosen marketplaces", async () => {
      const r = await w.h.reseller('test');
      const link = await w.h.api(r.key, 'POST', '/stores/install-links', {
        platform: 'AMAZON',
        marketplaceIds: FRANCE,
      });
      assert.equal(link.status, 201, JSON.stringify(link.body));
      const begin = await fetch(w.h.toService(link.body.data.installUrl), { redirect: 'manual' });
      await begin.arrayBuffer();
      const consent = new URL(begin.headers.get('location')!);
      assert.equal(consent.origin + consent.pathname, `${w.amazon.url}/apps/authorize/consent`);
      assert.equal(consent.searchParams.get('application_id'), APP.appId);
      assert.equal(consent.searchParams.get('redirect_uri'), `${PUBLIC_URL}/connectors/amazon/callback`);
      assert.ok(consent.searchParams.get('state'));

      const { key, seller, storeId } = await installed(w, { marketplaceIds: FRANCE });
      const view = (await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data;
      assert.equal(view.externalId, seller.id);
      assert.equal(view.name, 'Farn & Rahmen Drucke');
      assert.equal(view.status, 'connected');
      assert.equal(seller.seen('searchOrders')[0]!.query.marketplaceIds, FRANCE);
      // The code was exchanged once, for the redirect_uri the consent was asked with.
      const exchange = w.amazon.tokenRequests.find(
        (t) =>
          t.grant_type === 'authorization_code' &&
          [...w.amazon.codes].some(([code, c]) => code === t.code && c.sellerId === seller.id),
      )!;
      assert.equal(exchange.redirect_uri, `${PUBLIC_URL}/connectors/amazon/callback`);
    });

    it("reads the operator's marketplaces (CONNECTOR_AMAZON_MARKETPLACE_IDS) when the seller chooses none, and refuses a marketplace list that is not Amazon's ids", async () => {
      const { seller } = await installed(w);
      assert.equal(seller.seen('searchOrders')[0]!.query.marketplaceIds, MARKETPLACE);
      const r = await w.h.reseller('test');
      const bad = await w.h.api(r.key, 'POST', '/stores/install-links', {
        platform: 'AMAZON',
        marketplaceIds: 'amazon.de',
      });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /marketplace ids/);
    });

    it('connects nothing, and says why, for a forged state, a stale code or a code Amazon never issued', async () => {
      const r = await w.h.reseller('test');
      const cases: Array<[string, Parameters<typeof consentInstall>[4], RegExp]> = [
        ['forged state', { state: 'eyJmb3JnZWQiOnRydWV9' }, /state Amazon sent back is not the one/],
        ['stale code', { issuedAt: Date.now() - 6 * 60_000 }, /expired/],
        ['forged code', { code: 'ANdNAVhyhqirUelHGEHAforged' }, /refused the authorisation code/],
      ];
      for (const [what, opts, reason] of cases) {
        const res = await consentInstall(w.h, r.key, w.amazon, w.amazon.seller(), opts);
        const body = await res.text();
        assert.equal(res.status, 422, `${what}: ${res.status} ${body}`);
        assert.match(body, /store_install_rejected/, what);
        assert.match(body, reason, what);
      }
      assert.deepEqual((await w.h.api(r.key, 'GET', '/stores')).body.data, []);
    });

    it('connects a private app the seller authorised itself (POST /stores with its refresh token), refusing a marketplace it does not sell in and a token Amazon does not honour', async () => {
      const r = await w.h.reseller('test');
      const seller = w.amazon.seller();
      const refreshToken = seller.selfAuthorize();
      const italy = await w.h.api(r.key, 'POST', '/stores', {
        platform: 'AMAZON',
        sellingPartnerId: seller.id,
        refreshToken,
        marketplaceIds: `${MARKETPLACE},APJ6JRA9NG5V4`,
      });
      assert.equal(italy.status, 422, JSON.stringify(italy.body));
      assert.equal(italy.body.error.code, 'store_not_connectable');
      assert.match(italy.body.error.message, /does not sell in APJ6JRA9NG5V4/);
      const forged = await w.h.api(r.key, 'POST', '/stores', {
        platform: 'AMAZON',
        sellingPartnerId: seller.id,
        refreshToken: 'Atzr|forged-refresh-token-000',
      });
      assert.equal(forged.status, 422);
      assert.equal(forged.body.error.code, 'store_credentials_rejected');
      const res = await w.h.api(r.key, 'POST', '/stores', {
        platform: 'AMAZON',
        sellingPartnerId: seller.id,
        refreshToken,
        marketplaceIds: `${MARKETPLACE},${FRANCE}`,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      await eventually(async () => seller.seen('searchOrders').length > 0, 'the first poll');
      assert.equal(seller.seen('searchOrders')[0]!.query.marketplaceIds, `${MARKETPLACE},${FRANCE}`);
    });

    it('documents the Amazon connect fields and the sync answer in the OpenAPI description', async () => {
      const doc = await (await fetch(`${w.h.baseUrl}/api/reseller/v1/openapi.json`)).json();
      const text = JSON.stringify(doc);
      assert.match(text, /sellingPartnerId/);
      assert.match(text, /pollsAt/);
    });

    it("shows the yearly renewal of the seller's authorisation on the store", async () => {
      const { key, storeId } = await installed(w);
      const view = (await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data;
      const renewBy = new Date(Date.parse(view.createdAt) + 365 * 24 * 3600_000).toISOString().slice(0, 10);
      assert.equal(view.notices.length, 1);
      assert.match(view.notices[0], new RegExp(`every 365 days.*by ${renewBy}`));
    });

    it('disconnects the store, with the reason, once the seller revokes the authorisation in Seller Central', async () => {
      const { key, seller, storeId } = await installed(w);
      seller.revoke();
      // A scheduled poll may be running (409), and meets the revoked authorisation as ours would.
      const sync = await w.h.api(key, 'POST', `/stores/${storeId}/sync`);
      assert.ok([202, 409].includes(sync.status), JSON.stringify(sync.body));
      const view = await eventually(async () => {
        const v = (await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data;
        return v.status === 'disconnected' && v;
      }, 'disconnection');
      assert.match(view.lastError, /removed the app in Seller Central/);
      assert.deepEqual(view.notices, []);
    });
  });

  describe('orders by polling', () => {
    const w = amazonWorld();

    it('asks searchOrders exactly: lastUpdatedAfter = checkpoint minus 5 minutes, merchant-fulfilled open orders with recipient, fulfilment and buyer; pages with identical parameters; the checkpoint moves to lastUpdatedBefore', async () => {
      const { key, seller, storeId } = await installed(w);
      const first = seller.seen('searchOrders')[0]!;
      assert.deepEqual(Object.keys(first.query).sort(), [
        'fulfilledBy',
        'fulfillmentStatuses',
        'includedData',
        'lastUpdatedAfter',
        'marketplaceIds',
        'maxResultsPerPage',
      ]);
      assert.equal(first.query.fulfilledBy, 'MERCHANT');
      assert.equal(first.query.fulfillmentStatuses, 'UNSHIPPED,PARTIALLY_SHIPPED,CANCELLED');
      assert.equal(first.query.includedData, 'RECIPIENT,FULFILLMENT,BUYER');
      // The first poll looks two weeks back.
      assert.ok(Math.abs(Date.parse(first.query.lastUpdatedAfter!) - (first.at - 14 * 24 * 3600_000)) < 60_000);

      w.amazon.pageSize = 2;
      const ids = Array.from({ length: 5 }, () => {
        const id = amazonOrderId();
        seller.save(amazonOrderOf(seller, { id, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] }));
        return id;
      });
      const before = seller.seen('searchOrders').length;
      await syncAccepted(w.h, key, storeId);
      await eventually(
        async () => (await ingests(w.h, key, storeId)).filter((i) => i.status === 'placed').length === 5,
        'five orders placed',
      );
      const run = seller.seen('searchOrders').slice(before);
      assert.equal(run.length, 3, 'three pages, and no call after the last');
      const { paginationToken: _t0, ...page1 } = run[0]!.query;
      for (const call of run.slice(1)) {
        const { paginationToken, ...rest } = call.query;
        assert.ok(paginationToken);
        assert.deepEqual(rest, page1);
      }
      assert.deepEqual((await ingests(w.h, key, storeId)).map((i) => i.externalOrderId).sort(), [...ids].sort());
      w.amazon.pageSize = undefined;

      // The next run starts 5 minutes before the last answer's lastUpdatedBefore (Amazon's clock, not ours).
      const lastBefore = Date.parse(seller.seen('searchOrders').at(-1)!.lastUpdatedBefore!);
      await eventually(
        async () => (await w.h.api(key, 'POST', `/stores/${storeId}/sync`)).status === 202,
        'a sync accepted',
      );
      await eventually(async () => seller.seen('searchOrders').length > before + 3, 'the next run');
      assert.equal(
        Date.parse(seller.seen('searchOrders').at(-1)!.query.lastUpdatedAfter!),
        Math.floor(lastBefore / 1000) * 1000 - 5 * 60_000,
      );
    });

    it('never places orders Amazon fulfils itself, and leaves PENDING orders waiting until they are UNSHIPPED', async () => {
      const { key, seller, storeId } = await installed(w);
      const fba = amazonOrderId();
      seller.save(
        amazonOrderOf(
          seller,
          { id: fba, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] },
          { fulfilledBy: 'AMAZON' },
        ),
      );
      const pending = amazonOrderId();
      seller.save(amazonOrderOf(seller, { id: pending, paid: false, lines: [{ sku: w.h.sku, quantity: 1 }] }));
      // Even where Amazon's filter lets one through, an order fulfilled by Amazon is left out.
      const unfiltered = amazonOrderId();
      seller.save(
        amazonOrderOf(
          seller,
          { id: unfiltered, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] },
          { fulfilledBy: 'AMAZON' },
        ),
      );
      const merchant = amazonOrderId();
      seller.save(amazonOrderOf(seller, { id: merchant, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] }));
      await syncAccepted(w.h, key, storeId);
      await eventually(
        async () =>
          (await ingests(w.h, key, storeId)).some((i) => i.externalOrderId === merchant && i.status === 'placed'),
        'the merchant order placed',
      );
      assert.deepEqual(
        (await ingests(w.h, key, storeId)).map((i) => i.externalOrderId),
        [merchant],
      );
      seller.save(amazonOrderOf(seller, { id: pending, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] }));
      await eventually(
        async () => (await w.h.api(key, 'POST', `/stores/${storeId}/sync`)).status === 202,
        'a sync accepted',
      );
      await eventually(
        async () =>
          (await ingests(w.h, key, storeId)).some((i) => i.externalOrderId === pending && i.status === 'placed'),
        'the order placed once UNSHIPPED',
      );
    });

    it('reads a skipped order again by id (getOrder v2026-01-01) when it is retried once its product exists', async () => {
      const { key, seller, storeId } = await installed(w);
      const id = amazonOrderId();
      seller.save(amazonOrderOf(seller, { id, paid: true, lines: [{ sku: 'CARD-A6-AMZ', quantity: 100 }] }));
      await syncAccepted(w.h, key, storeId);
      const skipped = await eventually(
        async () => (await w.h.api(key, 'GET', `/stores/${storeId}/ingests?status=skipped`)).body.data[0],
        'the order skipped',
      );
      assert.equal(skipped.externalOrderId, id);
      const product = await w.h.api(key, 'POST', '/reseller-products', {
        sku: 'CARD-A6-AMZ',
        title: 'Cards',
        productId: 'business-cards',
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      const before = seller.seen('getOrder').length;
      const retried = await w.h.api(key, 'POST', `/stores/${storeId}/ingests/${skipped.id}/retry`);
      assert.ok([200, 202].includes(retried.status), JSON.stringify(retried.body));
      await eventually(
        async () => (await ingests(w.h, key, storeId)).some((i) => i.externalOrderId === id && i.status === 'placed'),
        'placed on retry',
      );
      assert.equal(seller.seen('getOrder').length, before + 1);
      assert.equal(seller.seen('getOrder').at(-1)!.query.includedData, 'RECIPIENT,FULFILLMENT,BUYER,PACKAGES');
    });

    it('confirms the shipment with v0 confirmShipment: the marketplace, packageReferenceId "1" as a string, the carrier code, only the printed order items and their quantities', async () => {
      const { key, seller, storeId } = await installed(w);
      const id = amazonOrderId();
      seller.save(
        amazonOrderOf(seller, {
          id,
          paid: true,
          lines: [
            { sku: 'MUG-DELFT', quantity: 1 },
            { sku: w.h.sku.toLowerCase(), quantity: 3 },
          ],
        }),
      );
      await syncAccepted(w.h, key, storeId);
      const placed = await eventually(
        async () => (await ingests(w.h, key, storeId)).find((i) => i.externalOrderId === id && i.status === 'placed'),
        'placed',
      );
      const pkg = await eventually(async () => seller.orders.get(id)!.packages[0], 'the shipment confirmed');
      const order = seller.orders.get(id)!;
      const tracking = (await w.h.api(key, 'GET', `/orders/${placed.orderId}`)).body.data.tracking;
      const call = seller.seen('confirmShipment')[0]!.body as {
        marketplaceId: string;
        packageDetail: Record<string, unknown>;
      };
      assert.equal(call.marketplaceId, MARKETPLACE);
      assert.equal(call.packageDetail.packageReferenceId, '1');
      assert.deepEqual(
        {
          carrierCode: call.packageDetail.carrierCode,
          ...(call.packageDetail.carrierName ? { carrierName: call.packageDetail.carrierName } : {}),
        },
        carrierFields(tracking.carrier),
      );
      assert.equal(call.packageDetail.trackingNumber, tracking.trackingNumber);
      assert.match(String(call.packageDetail.shipDate), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      assert.deepEqual(call.packageDetail.orderItems, [{ orderItemId: order.orderItems[1]!.orderItemId, quantity: 3 }]);
      assert.equal(pkg.trackingNumber, tracking.trackingNumber);
    });

    it('keeps placing the orders of a seller whose searchOrders pages come without lastUpdatedBefore (optional in the model)', async () => {
      const seller = w.amazon.seller();
      seller.omitLastUpdatedBefore = true;
      const { key, storeId } = await installed(w, { seller });
      for (let round = 0; round < 3; round++) {
        const id = amazonOrderId();
        seller.save(amazonOrderOf(seller, { id, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] }));
        await eventually(
          async () => (await w.h.api(key, 'POST', `/stores/${storeId}/sync`)).status === 202,
          'a sync accepted',
        );
        await eventually(
          async () => (await ingests(w.h, key, storeId)).some((i) => i.externalOrderId === id && i.status === 'placed'),
          `order ${round + 1} placed`,
        );
      }
      const view = (await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data;
      assert.deepEqual([view.status, view.lastError], ['connected', null]);
      // Each run after the first asks from its predecessor's request time minus the two-minute lag and the five-minute
      // overlap.
      const calls = seller.seen('searchOrders');
      for (let i = 1; i < calls.length; i++) {
        const after = Date.parse(calls[i]!.query.lastUpdatedAfter!);
        assert.ok(
          after <= calls[i - 1]!.at - 7 * 60_000 + 1000 && after >= calls[i - 1]!.at - 7 * 60_000 - 2000,
          `run ${i} asked from ${calls[i]!.query.lastUpdatedAfter}`,
        );
      }
    });
  });

  describe('listings', () => {
    const w = amazonWorld();

    it("lists the seller's SKUs with the Listings Items API, page by page, the matched one linked", async () => {
      const seller = w.amazon.seller();
      for (let i = 0; i < 23; i++)
        seller.listings.push({
          sku: `OTHER-${i}`,
          asin: `B0OTHER${String(i).padStart(3, '0')}`,
          itemName: `Other ${i}`,
          status: ['DISCOVERABLE'],
        });
      seller.listings.push({
        sku: w.h.sku,
        asin: 'B0POSTER01',
        itemName: 'Tulip poster A2',
        status: ['BUYABLE', 'DISCOVERABLE'],
      });
      const { key, storeId } = await installed(w, { seller });
      const listings = await eventually(async () => {
        const res = (await w.h.api(key, 'GET', `/stores/${storeId}/listings?limit=100`)).body.data as Array<{
          sku: string;
          externalProductId: string;
          externalVariantId: string;
          active: boolean;
          matched: boolean;
        }>;
        return res.length === 24 && res;
      }, 'the listings');
      const poster = listings.find((l) => l.sku === w.h.sku)!;
      assert.deepEqual(
        [poster.externalProductId, poster.externalVariantId, poster.active],
        ['B0POSTER01', w.h.sku, true],
      );
      assert.equal(seller.seen('searchListingsItems').length, 2);
      assert.ok(
        seller
          .seen('searchListingsItems')
          .every((c) => c.query.pageSize === '20' && c.query.marketplaceIds === MARKETPLACE),
      );
    });
  });

  describe("the seller's search budget (one searchOrders every 3 minutes, burst 20: here 2, one more every 4 s)", () => {
    const budgetWorld = amazonWorld({
      ...amazonConnector,
      manifest: { ...amazonConnector.manifest, pollBudget: { burst: 2, refillMs: 4000 } },
    });

    it("answers a sync that would exceed the seller's search budget with when its poll may call Amazon, and the poll calls then, not before", async () => {
      // A budget of 2 searches, one more every 4 s: syncs spend it until one is told to wait.
      const { key, seller, storeId } = await installed(budgetWorld);
      const waiting = await eventually(async () => {
        const res = await budgetWorld.h.api(key, 'POST', `/stores/${storeId}/sync`);
        return (
          res.status === 202 && Date.parse(res.body.data.pollsAt) - Date.parse(res.body.data.requestedAt) > 1000 && res
        );
      }, 'a sync told when its poll may search');
      const pollsAt = Date.parse(waiting.body.data.pollsAt);
      assert.ok(pollsAt - Date.parse(waiting.body.data.requestedAt) <= 4000);
      const searched = seller.seen('searchOrders').length;
      const id = amazonOrderId();
      seller.save(amazonOrderOf(seller, { id, paid: true, lines: [{ sku: budgetWorld.h.sku, quantity: 1 }] }));
      // Asked again meanwhile: accepted, with the same time, not refused (a 409 only in the instant the waiting poll
      // checks the budget).
      const again = await eventually(async () => {
        const res = await budgetWorld.h.api(key, 'POST', `/stores/${storeId}/sync`);
        return res.status === 202 && res;
      }, 'the sync asked again');
      assert.ok(Math.abs(Date.parse(again.body.data.pollsAt) - pollsAt) < 250);
      await eventually(
        async () =>
          (await ingests(budgetWorld.h, key, storeId)).some((i) => i.externalOrderId === id && i.status === 'placed'),
        'placed once allowed',
        30_000,
      );
      const next = seller.seen('searchOrders')[searched]!;
      assert.ok(next.at >= pollsAt - 250, `searched ${pollsAt - next.at} ms before it was allowed`);
    });
  });
});
