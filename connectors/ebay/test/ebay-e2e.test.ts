import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { eventually, storeProbes } from '@print-api/connector-kit/testing';
import { startConnectorService, startFakePlatformService } from '@print-api/core/testing';
import { ebayConnector, SCOPES } from '../src/index.ts';
import { APP, FakeEbay, type FakeSeller } from './fake-ebay.ts';
import { consentInstall, ebayOrderId, ebayOrderOf } from './fake-ebay-platform.ts';
import vectors from './fixtures/sdk-signature-vectors.json' with { type: 'json' };

const PUBLIC_URL = 'https://print-api.example.com';
const DELETION_URL = `${PUBLIC_URL}/connectors/ebay/account-deletion`;
type Harness = Awaited<ReturnType<typeof startConnectorService>>;
/** A sync asked until accepted: one already running (a scheduled poll, on a busy machine) answers 409 sync_in_progress. */
const syncAccepted = (h: Harness, key: string, storeId: string) => storeProbes(() => h).sync(key, storeId);
type Ingest = { externalOrderId: string; externalName: string | null; status: string; orderId: string | null };

/** The service with the eBay connector (PostgreSQL + Redis) and a fake eBay on a local HTTPS server. */
function ebayWorld() {
  const world = {} as { h: Harness; ebay: FakeEbay };
  before(async function () {
    world.ebay = new FakeEbay();
    world.h = await startFakePlatformService(
      this,
      (server) => {
        world.ebay.serve(server, PUBLIC_URL);
        return world.ebay.settings();
      },
      { connectors: [ebayConnector], publicUrl: PUBLIC_URL },
    );
  });
  after(() => world.h?.close());
  // Every call the connector made kept to eBay's published contracts.
  after(() => assert.deepEqual(world.ebay.contractLog.violations, []));
  return world;
}

async function installed(w: { h: Harness; ebay: FakeEbay }, seller: FakeSeller = w.ebay.seller()) {
  const r = await w.h.reseller('test');
  const res = await consentInstall(w.h, r.key, w.ebay, seller);
  assert.equal(res.status, 303, await res.text());
  const storeId = new URL(res.headers.get('location')!).searchParams.get('store')!;
  await eventually(
    async () => (await w.h.api(r.key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
    'the first poll',
  );
  return { key: r.key, seller, storeId };
}

const ingests = async (h: Harness, key: string, storeId: string) =>
  (await h.api(key, 'GET', `/stores/${storeId}/ingests?limit=100`)).body.data as Ingest[];

const notify = (h: Harness, body: string, signature?: string) =>
  fetch(h.toService(DELETION_URL), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-ebay-signature': signature } : {}) },
    body,
  });

describe('eBay end to end (the service on PostgreSQL + Redis, a fake eBay on a local HTTPS server)', function () {
  this.timeout(90_000);
  const w = ebayWorld();

  it("sends the seller to eBay's consent page (client id, the RuName, the sell scopes, a state) and exchanges the code for the RuName", async () => {
    const r = await w.h.reseller('test');
    const link = await w.h.api(r.key, 'POST', '/stores/install-links', { platform: 'EBAY' });
    assert.equal(link.status, 201, JSON.stringify(link.body));
    const begin = await fetch(w.h.toService(link.body.data.installUrl), { redirect: 'manual' });
    await begin.arrayBuffer();
    const consent = new URL(begin.headers.get('location')!);
    assert.equal(consent.origin + consent.pathname, `${w.ebay.url}/oauth2/authorize`);
    assert.equal(consent.searchParams.get('client_id'), APP.clientId);
    assert.equal(consent.searchParams.get('redirect_uri'), APP.ruName);
    assert.deepEqual(consent.searchParams.get('scope')!.split(' '), [...SCOPES]);
    assert.ok(consent.searchParams.get('state'));

    const { key, seller, storeId } = await installed(w);
    const view = (await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data;
    assert.equal(view.externalId, seller.userId);
    assert.equal(view.name, seller.username);
    assert.equal(view.status, 'connected');
    assert.deepEqual(view.notices ?? [], [], 'an 18-month authorisation is far from its end');
    const exchange = w.ebay.tokenRequests.find(
      (t) => t.grant_type === 'authorization_code' && w.ebay.codes.get(t.code!)?.sellerId === seller.userId,
    )!;
    assert.equal(exchange.redirect_uri, APP.ruName);
  });

  it('places a PAID order once with source EBAY, only the reseller SKU, state and company; unpaid and cancelled are never printed; tracking goes back once', async () => {
    const { key, seller, storeId } = await installed(w);
    const paid = ebayOrderId();
    const unpaid = ebayOrderId();
    const cancelled = ebayOrderId();
    const requested = ebayOrderId();
    const lines = [
      { sku: 'MUG-DELFT', quantity: 1 },
      { sku: w.h.sku, quantity: 2 },
    ];
    seller.orders.set(paid, ebayOrderOf(seller, { id: paid, paid: true, lines }));
    seller.orders.set(unpaid, ebayOrderOf(seller, { id: unpaid, paid: false, lines }));
    seller.orders.set(cancelled, ebayOrderOf(seller, { id: cancelled, paid: true, cancelled: true, lines }));
    seller.orders.set(
      requested,
      ebayOrderOf(seller, { id: requested, paid: true, lines }, { cancelState: 'IN_PROGRESS' }),
    );
    await syncAccepted(w.h, key, storeId);
    const placed = await eventually(
      async () => (await ingests(w.h, key, storeId)).find((i) => i.externalOrderId === paid && i.status === 'placed'),
      'the paid order placed',
    );
    // The filter's brackets went percent-encoded, as the Fulfillment API requires.
    const search = seller.seen('getOrders').at(-1)!.rawQuery;
    assert.match(
      search,
      /^filter=lastmodifieddate:%5B\d{4}-\d\d-\d\dT[\d:.]+Z\.\.\d{4}-\d\d-\d\dT[\d:.]+Z%5D&limit=200&offset=0$/,
    );

    const order = (await w.h.api(key, 'GET', `/orders/${placed.orderId}`)).body.data;
    assert.equal(order.source, 'EBAY');
    assert.equal(order.externalOrderId, paid);
    assert.deepEqual(
      order.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
      [[w.h.sku, 2]],
    );
    assert.equal(order.recipient.name, 'Anna de Vries');
    assert.equal(order.recipient.company, 'Bloemen & Zo B.V.');
    assert.equal(order.recipient.state, 'NH');
    assert.equal(order.recipient.country, 'NL');
    assert.equal(order.recipient.postalCode, '1016 GV');

    const all = await ingests(w.h, key, storeId);
    const statusOf = (id: string) => all.find((i) => i.externalOrderId === id)?.status;
    assert.equal(statusOf(unpaid), 'waiting_payment');
    assert.notEqual(statusOf(cancelled), 'placed');
    assert.notEqual(statusOf(requested), 'placed');
    const orders = (await w.h.api(key, 'GET', '/orders?source=EBAY&limit=100')).body.data as Array<{
      externalOrderId: string;
    }>;
    assert.deepEqual(
      orders.map((o) => o.externalOrderId),
      [paid],
    );

    const [pushed] = await eventually(async () => seller.fulfillments.get(paid), 'the tracking pushed');
    const tracking = (await w.h.api(key, 'GET', `/orders/${placed.orderId}`)).body.data.tracking;
    assert.equal(pushed!.shipmentTrackingNumber, tracking.trackingNumber);
    const printed = seller.orders.get(paid)!.lineItems.find((l: { sku?: string }) => l.sku === w.h.sku);
    assert.deepEqual(pushed!.lineItems, [{ lineItemId: printed.lineItemId, quantity: 2 }]);
    // A sync after the push reads the order again (now fulfilled): nothing placed or pushed twice.
    const polls = seller.seen('getOrders').length;
    await syncAccepted(w.h, key, storeId);
    await eventually(async () => seller.seen('getOrders').length > polls, 'another poll');
    assert.equal(seller.fulfillments.get(paid)!.length, 1);
    assert.equal(seller.seen('createShippingFulfillment').length, 1);
    assert.equal((await w.h.api(key, 'GET', '/orders?source=EBAY&limit=100')).body.data.length, 1);
  });

  it("answers eBay's endpoint challenge: hex SHA-256 of code, verification token and endpoint URL", async () => {
    const res = await fetch(w.h.toService(`${DELETION_URL}?challenge_code=a8628072-3d33-45ee-9004-bee86830a22d`));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const expected = createHash('sha256')
      .update(`a8628072-3d33-45ee-9004-bee86830a22d${APP.verificationToken}${DELETION_URL}`)
      .digest('hex');
    assert.deepEqual(await res.json(), { challengeResponse: expected });
    const none = await fetch(w.h.toService(DELETION_URL));
    assert.equal(none.status, 400);
    assert.equal(((await none.json()) as any).error.code, 'invalid_request');
  });

  it("erases a deleted eBay account's data on a signed notification, refuses a forged one (412), and fetches the key once", async () => {
    const { key, seller, storeId } = await installed(w);
    const id = ebayOrderId();
    seller.orders.set(id, ebayOrderOf(seller, { id, paid: true, lines: [{ sku: w.h.sku, quantity: 1 }] }));
    await syncAccepted(w.h, key, storeId);
    await eventually(
      async () => (await ingests(w.h, key, storeId)).some((i) => i.externalOrderId === id && i.status === 'placed'),
      'placed',
    );
    assert.equal((await ingests(w.h, key, storeId)).find((i) => i.externalOrderId === id)!.externalName, id);
    const keyCalls = w.ebay.publicKeyCalls;

    const forged = w.ebay.deletionNotification(seller.userId, seller.username, { forged: true });
    const refused = await notify(w.h, forged.body, forged.signature);
    assert.equal(refused.status, 412);
    assert.equal(((await refused.json()) as any).error.code, 'notification_not_verified');
    const unsigned = await notify(w.h, forged.body);
    assert.equal(unsigned.status, 412);
    await unsigned.arrayBuffer();
    assert.equal((await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data.status, 'connected');

    const signed = w.ebay.deletionNotification(seller.userId, seller.username);
    const accepted = await notify(w.h, signed.body, signed.signature);
    assert.equal(accepted.status, 204, await accepted.text());
    const store = (await w.h.api(key, 'GET', `/stores/${storeId}`)).body.data;
    assert.equal(store.status, 'disconnected');
    assert.match(store.lastError, /deleted their eBay account/);
    // The redaction privacy requests use: what the store's ingests held of the order is erased.
    const erased = (await ingests(w.h, key, storeId)).find((i) => i.externalOrderId === id)!;
    assert.equal(erased.externalName, null);
    assert.equal(w.ebay.publicKeyCalls, keyCalls + 1, 'the key fetched once for its kid, then cached');
  });

  it("verifies eBay's own signed notification (the notification SDK's test vector) with the key eBay served for it", async () => {
    const valid = vectors.VALID;
    w.ebay.extraKeys.set(valid.public_key, valid.response.key);
    const ok = await notify(w.h, JSON.stringify(valid.message), valid.signature);
    assert.equal(ok.status, 204, await ok.text());
    const mismatch = vectors.SIGNATURE_MISMATCH;
    const refused = await notify(w.h, JSON.stringify(mismatch.message), mismatch.signature);
    assert.equal(refused.status, 412);
    await refused.arrayBuffer();
  });
});
