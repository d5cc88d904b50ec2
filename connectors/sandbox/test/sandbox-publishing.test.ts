import { expect } from 'chai';
import { eventually, startTestService, type TestService, scaled } from '@print-api/core/testing';
import { sandboxConnector } from '../src/index.ts';

const SKU = 'POSTER-TULIPS';

interface Listing {
  externalProductId: string;
  sku: string | null;
  active: boolean;
  resellerProduct: { sku: string } | null;
}

/**
 * Publishing to a sandbox store through the reseller API, as a reseller trying it with a test
 * key would: the product is made in the sandbox store (core's sandbox platform, reached by the
 * sandbox connector), listed and matched by its SKU, repriced, sold (a store order naming the
 * listing is placed as a test print order) and archived.
 */
describe('sandbox store publishing (POST/PATCH/DELETE /stores/{id}/listings)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  let key: string;
  const api = (method: string, path: string, body?: unknown) => t.api(key, method, path, body);
  const listings = async (storeId: string) =>
    (await api('GET', `/stores/${storeId}/listings?limit=100`)).body.data as Listing[];
  const product = (id: string) =>
    t.service.db
      .selectFrom('sandbox_products')
      .select(['sku', 'title', 'price_cents', 'status'])
      .where('id', '=', id)
      .executeTakeFirst();

  before(async function () {
    t = await startTestService(
      this,
      'postgres+redis',
      { PRODUCTION_SIMULATOR_STEP_MS: '50', RATE_LIMIT_PER_MINUTE: '100000' },
      { connectors: [sandboxConnector], maintenanceIntervalMs: 200 },
    );
    key = (await t.reseller({ mode: 'test' })).key;
    const sample = (await api('GET', '/products/posters')).body.data.sampleFiles[0].url as string;
    const made = await api('POST', '/reseller-products', {
      sku: SKU,
      title: 'Tulip poster A2',
      productId: 'posters',
      fileUrl: sample,
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
  });
  after(async () => t?.close());

  it('publishes a product to the store, lists it matched by SKU, reprices it, places a store order for it, and archives it', async () => {
    const store = (await api('POST', '/stores', { platform: 'SANDBOX', name: 'Tulip test shop' })).body.data as {
      id: string;
    };

    const res = await api('POST', `/stores/${store.id}/listings`, {
      resellerProduct: SKU,
      title: 'Tulip poster A2',
      priceCents: 2495,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const published = res.body.data;
    expect(published).to.include({ status: 'active', currency: 'EUR', priceCents: 2495, matchedBy: 'sku' });
    expect((await api('GET', `/stores/${store.id}`)).body.data.country).to.equal('NL');
    expect(await product(published.externalProductId)).to.deep.equal({
      sku: SKU,
      title: 'Tulip poster A2',
      price_cents: 2495,
      status: 'active',
    });
    const listed = await eventually(
      async () =>
        (await listings(store.id)).find(
          (l) => l.externalProductId === published.externalProductId && l.resellerProduct,
        ),
      'the published listing synced and matched',
    );
    expect(listed).to.deep.include({
      sku: SKU,
      active: true,
      resellerProduct: { ...listed.resellerProduct, sku: SKU },
    });

    const repriced = await api('PATCH', `/stores/${store.id}/listings/${published.id}`, { priceCents: 2795 });
    expect(repriced.status, JSON.stringify(repriced.body)).to.equal(200);
    expect(repriced.body.data).to.include({ priceCents: 2795, status: 'active' });
    expect((await product(published.externalProductId))?.price_cents).to.equal(2795);

    // A customer buys the listing: the line carries its product id and the SKU it was published with.
    const sold = await api('POST', `/stores/${store.id}/sandbox-orders`, {
      lines: [{ sku: SKU, externalProductId: published.externalProductId, quantity: 2, title: 'Tulip poster A2' }],
    });
    expect(sold.status, JSON.stringify(sold.body)).to.equal(201);
    const externalOrderId = sold.body.data.externalOrderId as string;
    const placed = await eventually(async () => {
      const ingests = (await api('GET', `/stores/${store.id}/ingests?limit=100`)).body.data as Array<{
        externalOrderId: string;
        status: string;
        orderId: string | null;
      }>;
      return ingests.find((i) => i.externalOrderId === externalOrderId && i.status === 'placed');
    }, 'the store order placed');
    const order = (await api('GET', `/orders/${placed.orderId}`)).body.data;
    expect(order).to.include({ source: 'SANDBOX', externalOrderId, storeId: store.id });
    expect(
      order.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
    ).to.deep.equal([[SKU, 2]]);

    const removed = await api('DELETE', `/stores/${store.id}/listings/${published.id}`);
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    expect((await product(published.externalProductId))?.status).to.equal('archived');
    expect((await api('GET', `/stores/${store.id}/links`)).body.data.map((l: { id: string }) => l.id)).not.to.include(
      published.linkId,
    );
    expect((await api('GET', `/stores/${store.id}/listings/${published.id}`)).status).to.equal(404);
    await eventually(
      async () => (await listings(store.id)).every((l) => l.externalProductId !== published.externalProductId),
      'the archived listing gone from the store listings',
    );
  });
});
