import { expect } from 'chai';
import {
  connectorE2eService,
  eventually,
  listingsSyncedAt,
  posterReseller,
  POSTER_SKU,
  type TestHttpsServer,
  type TestService,
  scaled,
} from '@print-api/core/testing';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooStore, takeContractViolations } from './fake-woo-store.ts';
import { connectWooStore, wooOrder, type WooOrderJson } from './woo-fixtures.ts';

const PUBLIC_URL = 'https://print-api.example.com';
/** The merchant's own SKU for the poster: none of the reseller's. */
const OWN_SKU = 'TULIP-FIELDS-A2';

/** The documented order with its one line of the merchant's poster listing (product 311, the merchant's SKU). */
function posterOrder(id: number): WooOrderJson {
  const order = wooOrder({ id, number: String(id), order_key: `wc_order_${id}` });
  order.line_items = order.line_items.map((l) => ({ ...l, sku: OWN_SKU }));
  return order;
}

describe('WooCommerce listing mapped to a reseller product, end to end (real PostgreSQL + Redis, the store behind nock)', function () {
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  this.timeout(scaled(30_000));
  let t: TestService;
  let files: TestHttpsServer;

  connectorE2eService(PUBLIC_URL, { connectors: [wooCommerceConnector] }, (started) => {
    ({ t, files } = started);
  });

  const ingest = (storeId: string, orderId: number) =>
    t.service.db
      .selectFrom('store_ingests')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', String(orderId))
      .executeTakeFirst();
  const printOrders = (storeId: string, orderId: number) =>
    t.service.db
      .selectFrom('orders')
      .select(['id', 'source'])
      .where('store_id', '=', storeId)
      .where('external_order_id', '=', String(orderId))
      .execute();

  it("prints a listing with the merchant's own SKU once it is mapped: its skipped order is placed on bulk retry, its next order at once", async () => {
    const r = await posterReseller(t, files);
    const shop = new FakeWooStore({ host: 'mapping-e2e.example.com', ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    shop.saveProduct({ id: 311, name: 'Poster A2 - Tulpenvelden', type: 'simple', status: 'publish', sku: OWN_SKU });
    const storeId = await connectWooStore(t, r.key, shop);
    await eventually(() => listingsSyncedAt(t, storeId), 'the first listings sync');
    const unmatched = (await t.api(r.key, 'GET', `/stores/${storeId}/listings?matched=false`)).body.data;
    expect(unmatched.map((l: Record<string, unknown>) => [l.externalProductId, l.sku, l.match])).to.deep.equal([
      ['311', OWN_SKU, { by: null, resellerProduct: null, linkId: null }],
    ]);

    // Before the mapping: the order is skipped, nothing printed.
    expect(await shop.deliver(shop.save(posterOrder(1842)), 'order.created')).to.equal(200);
    const skipped = await eventually(
      async () => ((await ingest(storeId, 1842))?.status === 'no_print_lines' ? ingest(storeId, 1842) : undefined),
      'order 1842 skipped',
    );
    expect(skipped!.skipped_lines).to.deep.equal([
      { sku: OWN_SKU, quantity: 2, reason: 'not one of your SKUs: not a print item' },
    ]);
    const ofListing = await t.api(r.key, 'GET', `/stores/${storeId}/ingests?status=skipped&externalProductId=311`);
    expect(ofListing.body.data.map((i: { externalOrderId: string }) => i.externalOrderId)).to.deep.equal(['1842']);

    // The merchant maps the listing; the store is not touched.
    const writes = shop.seen('PUT', /\/wc\/v3\/products/).length + shop.seen('POST', /\/wc\/v3\/products/).length;
    const link = await t.api(r.key, 'POST', `/stores/${storeId}/links`, {
      resellerProduct: POSTER_SKU,
      externalProductId: '311',
    });
    expect(link.status, JSON.stringify(link.body)).to.equal(201);
    expect(link.body.data).to.include({
      sku: POSTER_SKU,
      externalProductId: '311',
      externalVariantId: null,
      discovered: false,
    });
    expect(shop.seen('PUT', /\/wc\/v3\/products/).length + shop.seen('POST', /\/wc\/v3\/products/).length).to.equal(
      writes,
    );
    const listed = (await t.api(r.key, 'GET', `/stores/${storeId}/listings`)).body.data;
    expect(listed[0].match).to.deep.equal({
      by: 'link',
      resellerProduct: listed[0].resellerProduct,
      linkId: link.body.data.id,
    });
    expect(listed[0].resellerProduct.sku).to.equal(POSTER_SKU);
    expect((await t.api(r.key, 'GET', `/stores/${storeId}/listings?matched=false`)).body.data).to.deep.equal([]);

    // Bulk retry: the skipped order is placed, once.
    const retry = await t.api(r.key, 'POST', `/stores/${storeId}/ingests/retry`, {
      status: 'skipped',
      externalProductId: '311',
    });
    expect(retry.status, JSON.stringify(retry.body)).to.equal(202);
    expect(retry.body.data).to.deep.equal({
      storeId,
      status: 'skipped',
      externalProductId: '311',
      queued: 1,
      more: false,
    });
    const placedId = await eventually(
      async () => (await ingest(storeId, 1842))?.order_id,
      'order 1842 placed on retry',
    );
    const placed = (await t.api(r.key, 'GET', `/orders/${placedId}`)).body.data;
    expect(placed).to.include({ source: 'WOOCOMMERCE', externalOrderId: '1842', storeId });
    expect(
      placed.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
    ).to.deep.equal([[POSTER_SKU, 2]]);
    // Asked again, nothing is left to retry; a later delivery of the order places nothing more.
    expect(
      (await t.api(r.key, 'POST', `/stores/${storeId}/ingests/retry`, { status: 'skipped' })).body.data,
    ).to.include({ queued: 0, more: false });
    expect(await shop.deliver(shop.orders.get(1842)!, 'order.updated')).to.equal(200);
    await eventually(
      async () =>
        (
          await t.service.db
            .selectFrom('store_webhook_events')
            .select('processed_at')
            .where('store_id', '=', storeId)
            .execute()
        ).every((e) => e.processed_at !== null),
      'the update of order 1842 processed',
    );
    expect(await printOrders(storeId, 1842)).to.deep.equal([{ id: placedId, source: 'WOOCOMMERCE' }]);

    // The next order of the listing prints at once.
    expect(await shop.deliver(shop.save(posterOrder(1843)), 'order.created')).to.equal(200);
    const next = await eventually(async () => (await ingest(storeId, 1843))?.order_id, 'order 1843 placed');
    expect((await ingest(storeId, 1843))!.skipped_lines).to.deep.equal([]);
    expect(
      (await t.api(r.key, 'GET', `/orders/${next}`)).body.data.lines.map((l: { resellerSku: string }) => l.resellerSku),
    ).to.deep.equal([POSTER_SKU]);
  });
});
