import { expect } from 'chai';
import type { FakeHttpsServer } from '@print-api/connector-kit/testing';
import {
  connectorE2eService,
  eventually,
  posterReseller,
  POSTER_SKU,
  scaled,
  startFakeHttpsServer,
  type TestHttpsServer,
  type TestService,
} from '@print-api/core/testing';
import { bolConnector } from '../src/index.ts';
import { transporterCode } from '../src/shipment-push.ts';
import { bolOrderId, bolOrderOf, FakeBol, type FakeBolSeller, type LineOptions } from './fake-bol.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const OTHER_SKU = 'MUG-DELFT';

// The scenarios every platform shares run in conformance.test.ts; here what bol makes different: its credentials,
// paging, FBB and cancellation requests, the split address, and shipments followed through their process status.
describe('bol end to end (the service on PostgreSQL + Redis, a fake bol on a local HTTPS server)', function () {
  this.timeout(scaled(90_000));
  const bol = new FakeBol();
  const env: Record<string, string> = {};
  let server: FakeHttpsServer;
  let t: TestService;
  let files: TestHttpsServer;

  before(async () => {
    server = await startFakeHttpsServer();
    bol.serve(server);
    Object.assign(env, bol.settings());
  });
  connectorE2eService(PUBLIC_URL, { connectors: [bolConnector] }, (started) => ({ t, files } = started), env);
  after(() => server?.close());
  // Every call the connector made kept to bol's published Retailer and Shared API v10.
  after(() => expect(bol.contractLog.violations).to.deep.equal([]));

  const db = () => t.service.db;
  const ingests = async (key: string, storeId: string) =>
    (await t.api(key, 'GET', `/stores/${storeId}/ingests?limit=100`)).body.data as Array<{
      externalOrderId: string;
      status: string;
      orderId: string | null;
      skippedLines: Array<{ sku: string | null; quantity: number }>;
    }>;
  const placed = (key: string, storeId: string, id: string) =>
    eventually(
      async () => (await ingests(key, storeId)).find((i) => i.externalOrderId === id && i.status === 'placed'),
      `${id} placed`,
    );
  const sync = (key: string, storeId: string) =>
    eventually(async () => (await t.api(key, 'POST', `/stores/${storeId}/sync`)).status === 202, 'a sync accepted');

  async function connected(mode: 'live' | 'test' = 'live', seller = bol.seller()) {
    const r = await posterReseller(t, files, mode);
    const res = await t.api(r.key, 'POST', '/stores', {
      platform: 'BOL',
      clientId: seller.clientId,
      clientSecret: seller.clientSecret,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const storeId = res.body.data.id as string;
    await eventually(
      async () => (await t.api(r.key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
      'the first poll',
    );
    return { key: r.key, seller, storeId };
  }

  function save(seller: FakeBolSeller, lines: Array<{ sku: string | null; quantity: number } & LineOptions>) {
    const id = bolOrderId();
    seller.save(bolOrderOf({ id, paid: true, lines }, { lines }));
    return id;
  }

  it('connects with the seller API credentials (HTTP Basic at /token, client_credentials), and refuses wrong ones with 422 store_credentials_rejected, storing nothing', async () => {
    const seller = bol.seller();
    const r = await posterReseller(t, files);
    const wrong = await t.api(r.key, 'POST', '/stores', {
      platform: 'BOL',
      clientId: seller.clientId,
      clientSecret: 'not-the-secret-0123456789',
    });
    expect(wrong.status, JSON.stringify(wrong.body)).to.equal(422);
    expect(wrong.body.error.code).to.equal('store_credentials_rejected');
    expect(wrong.body.error.message).to.match(/bol refused these API credentials/);
    expect((await t.api(r.key, 'GET', '/stores')).body.data).to.deep.equal([]);
    const missing = await t.api(r.key, 'POST', '/stores', { platform: 'BOL', clientId: seller.clientId });
    expect(missing.status).to.equal(400);

    const { key, storeId } = await connected('live', seller);
    const view = (await t.api(key, 'GET', `/stores/${storeId}`)).body.data;
    expect(view).to.include({ platform: 'BOL', externalId: seller.clientId, status: 'connected', lastError: null });
    const row = await db().selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
    expect(row.credentials_sealed).not.to.contain(seller.clientSecret);
    // The first poll: the open orders fulfilled by the seller, page 1.
    expect(seller.seen('listOrders')[0]!.query).to.deep.equal({
      page: '1',
      'fulfilment-method': 'FBR',
      status: 'OPEN',
    });
  });

  it('places an open FBR order once, source BOL, printing only the reseller SKUs: never FBB lines nor lines whose cancellation the customer requested; the address as a Dutch carrier prints it, with province and company', async () => {
    const { key, seller, storeId } = await connected();
    const id = save(seller, [
      { sku: POSTER_SKU, quantity: 2 },
      { sku: OTHER_SKU, quantity: 1 },
      { sku: POSTER_SKU, quantity: 1, fbb: true },
      { sku: POSTER_SKU, quantity: 4, cancellationRequest: true },
    ]);
    const fbbOnly = save(seller, [{ sku: POSTER_SKU, quantity: 1, fbb: true }]);
    await sync(key, storeId);
    const ingest = await placed(key, storeId, id);
    expect(ingest.skippedLines.map((s) => [s.sku, s.quantity])).to.deep.equal([
      [OTHER_SKU, 1],
      [null, 1],
      [null, 4],
    ]);
    const order = (await t.api(key, 'GET', `/orders/${ingest.orderId}`)).body.data;
    expect(order).to.include({ source: 'BOL', externalOrderId: id, storeId });
    expect(
      order.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
    ).to.deep.equal([[POSTER_SKU, 2]]);
    expect(order.recipient).to.include({
      name: 'Ans Peeters',
      company: 'Drukkerij Peeters BV',
      address1: 'Kerkstraat 12 A',
      address2: 'Achterdeur',
      postalCode: '2000',
      city: 'Antwerpen',
      state: 'VAN',
      country: 'BE',
    });
    // An order bol ships entirely itself is not even listed (FBR only); read by id, it is never for print.
    expect((await ingests(key, storeId)).map((i) => i.externalOrderId)).not.to.include(fbbOnly);
    expect((await db().selectFrom('orders').select('id').where('store_id', '=', storeId).execute()).length).to.equal(1);
    // Read again, it is not placed again.
    await sync(key, storeId);
    await eventually(async () => seller.seen('listOrders').length >= 3, 'the next run');
    expect((await db().selectFrom('orders').select('id').where('store_id', '=', storeId).execute()).length).to.equal(1);
  });

  it('cancels our order when the customer asks bol to cancel every line before production', async () => {
    const { key, seller, storeId } = await connected();
    const id = save(seller, [{ sku: POSTER_SKU, quantity: 1 }]);
    await sync(key, storeId);
    const ingest = await placed(key, storeId, id);
    const order = seller.orders.get(id)!;
    order.orderItems[0]!.cancellationRequest = true;
    order.orderItems[0]!.latestChangedDateTime = new Date().toISOString();
    await sync(key, storeId);
    await eventually(
      async () => (await t.api(key, 'GET', `/orders/${ingest.orderId}`)).body.data.state === 'CANCELLED',
      'our order cancelled',
    );
  });

  it('reads every page of open orders (50 a page) with the detail of each', async () => {
    const { key, seller, storeId } = await connected();
    // 50 orders of the seller's other products fill page 1; ours is on page 2.
    const others = Array.from({ length: 50 }, () => save(seller, [{ sku: OTHER_SKU, quantity: 1 }]));
    const ours = save(seller, [{ sku: POSTER_SKU, quantity: 1 }]);
    const before = seller.seen('listOrders').length;
    await sync(key, storeId);
    await placed(key, storeId, ours);
    await eventually(async () => (await ingests(key, storeId)).length === 51, 'every order recorded');
    const open = seller
      .seen('listOrders')
      .slice(before)
      .filter((c) => c.query.status === 'OPEN');
    expect(open.slice(0, 2).map((c) => c.query.page)).to.deep.equal(['1', '2']);
    expect(
      (await ingests(key, storeId)).filter((i) => others.includes(i.externalOrderId)).map((i) => i.status),
    ).to.deep.equal(Array(50).fill('no_print_lines'));
  });

  it('sends the tracking back once: the printed order items, the transporter code, and the process status followed to SUCCESS', async () => {
    const { key, seller, storeId } = await connected('test');
    const id = save(seller, [
      { sku: OTHER_SKU, quantity: 1 },
      { sku: POSTER_SKU.toLowerCase(), quantity: 3 },
    ]);
    await sync(key, storeId);
    const ingest = await placed(key, storeId, id);
    const fulfilment = await eventually(async () => {
      const f = await db()
        .selectFrom('store_fulfilments')
        .selectAll()
        .where('order_id', '=', ingest.orderId!)
        .executeTakeFirst();
      return f?.status === 'pushed' && f;
    }, 'the tracking pushed');
    expect(fulfilment.attempts).to.equal(1);
    const tracking = (await t.api(key, 'GET', `/orders/${ingest.orderId}`)).body.data.tracking;
    const created = seller.seen('createShipment');
    expect(created).to.have.length(1);
    expect(created[0]!.body).to.deep.equal({
      orderItems: [{ orderItemId: seller.orders.get(id)!.orderItems[1]!.orderItemId, quantity: 3 }],
      transport: { transporterCode: transporterCode(tracking.carrier, 'BE'), trackAndTrace: tracking.trackingNumber },
    });
    expect(created[0]!.body.transport.transporterCode).to.equal('TNT');
    // PENDING twice, then SUCCESS: the push ended only then.
    expect(seller.seen('getProcessStatus').length).to.equal(3);
    expect(seller.shipments.filter((s) => s.orderId === id)).to.have.length(1);
    expect(seller.orders.get(id)!.orderItems[1]!.quantityShipped).to.equal(3);
  });

  it("records bol's FAILURE of a shipment as the push's failure, with bol's reason, and does not send it again", async () => {
    const { key, seller, storeId } = await connected('test');
    seller.shipmentOutcome = {
      status: 'FAILURE',
      errorMessage: 'Track and trace code is not valid for transporter TNT.',
    };
    const id = save(seller, [{ sku: POSTER_SKU, quantity: 1 }]);
    await sync(key, storeId);
    const ingest = await placed(key, storeId, id);
    const failed = await eventually(async () => {
      const f = await db()
        .selectFrom('store_fulfilments')
        .selectAll()
        .where('order_id', '=', ingest.orderId!)
        .executeTakeFirst();
      return f?.status === 'failed' ? f : undefined;
    }, 'the push marked failed');
    // Refused for good: one attempt, marked failed (no sweep queues it again).
    expect(failed.attempts).to.equal(1);
    expect(failed.last_error).to.match(/ended FAILURE: Track and trace code is not valid for transporter TNT\./);
    expect(seller.seen('createShipment')).to.have.length(1);
    expect(seller.shipments).to.deep.equal([]);
  });

  it("offers bol.com on the dashboard's stores page: the client id and secret, both required", async () => {
    const r = await posterReseller(t, files);
    const link = new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url);
    const signIn = await fetch(`${t.baseUrl}${link.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'print-api-tests/1.0',
      },
      body: '',
    });
    await signIn.arrayBuffer();
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const page = await fetch(`${t.baseUrl}/dashboard/stores`, {
      headers: { accept: 'text/html', cookie, 'user-agent': 'print-api-tests/1.0' },
    });
    const html = await page.text();
    expect(page.status).to.equal(200);
    expect(html).to.contain('aria-label="Connect with these credentials (bol.com)"');
    for (const field of ['clientId', 'clientSecret'])
      expect(html.match(new RegExp(`<input id="connect-bol-${field}"[^>]*>`))?.[0], field).to.match(/\brequired\b/);
  });

  it('answers publishing with 422 not_supported_by_platform, saying to create the offer with the SKU as its reference', async () => {
    const { key, storeId } = await connected();
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: POSTER_SKU,
      title: 'Tulip poster',
      priceCents: 2495,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('not_supported_by_platform');
    expect(res.body.error.message)
      .to.contain('EAN')
      .and.to.contain('reference')
      .and.to.contain('POST /stores/{id}/links');
  });
});
