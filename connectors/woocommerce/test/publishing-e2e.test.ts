import { expect } from 'chai';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooStore, takeContractViolations } from './fake-woo-store.ts';
import { connectWooStore } from './woo-fixtures.ts';
import {
  connectorE2eService,
  eventually,
  posterReseller,
  POSTER_SKU as SKU,
  type TestHttpsServer,
  type TestService,
  scaled,
} from '@print-api/core/testing';

const PUBLIC_URL = 'https://print-api.example.com';
const IMAGE = 'https://cdn.tulip-prints.example.com/posters/tulips-a2.jpg';

describe('Publishing to a WooCommerce store end to end (real PostgreSQL + Redis, the store behind nock)', function () {
  // Every call the connector made (and every product the fake answered) kept to WooCommerce's REST contract.
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  this.timeout(scaled(30_000));
  let t: TestService;
  let files: TestHttpsServer;
  let key: string;
  let shop: FakeWooStore;
  let storeId: string;

  connectorE2eService(PUBLIC_URL, { connectors: [wooCommerceConnector] }, (started) => {
    ({ t, files } = started);
  });

  before(async () => {
    key = (await posterReseller(t, files)).key;
    shop = new FakeWooStore({ host: 'publish-e2e.example.com', ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    storeId = await connectWooStore(t, key, shop);
  });

  const product = async (sku: string) => {
    const res = await t.api(key, 'POST', '/reseller-products', {
      sku,
      title: sku,
      productId: 'posters',
      fileUrl: `${files.url}/art/flyer.pdf`,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  const created = () => shop.seen('POST', /\/wc\/v3\/products$/);

  it('learns the store\'s country (its address: "NL:NH" -> NL) with its currency, once, from its first listings sync', async () => {
    const store = await eventually(async () => {
      const s = (await t.api(key, 'GET', `/stores/${storeId}`)).body.data as { country: string | null };
      return s.country ? s : undefined;
    }, "the store's country");
    expect(store.country).to.equal('NL');
    expect(shop.seen('GET', /\/settings\/general\/woocommerce_default_country$/)).to.have.length(1);
    expect(shop.seen('GET', /\/data\/currencies\/current$/)).to.have.length(1);
  });

  it('creates the product in the store with the SKU and the price asked for, matches its listing and guards the reseller product', async () => {
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Tulips, A2 poster',
      description: '<p>Tulip fields at dawn.</p>',
      priceCents: 2495,
      imageUrls: [IMAGE],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const listing = res.body.data;
    expect(listing).to.include({
      storeId,
      title: 'Tulips, A2 poster',
      priceCents: 2495,
      currency: 'EUR',
      status: 'active',
      externalVariantId: null,
      matchedBy: 'sku',
    });
    expect(listing.id).to.match(/^pub_/);

    const inStore = shop.products.get(Number(listing.externalProductId))!;
    expect(inStore).to.deep.include({
      name: 'Tulips, A2 poster',
      type: 'simple',
      status: 'publish',
      sku: SKU,
      regular_price: '24.95',
      description: '<p>Tulip fields at dawn.</p>',
      images: [{ src: IMAGE }],
    });
    // The store's currency was asked once (with its country), not again for the publish.
    expect(shop.seen('GET', /\/data\/currencies\/current$/)).to.have.length(1);

    // Linked by us (not discovered), and the listing sync finds the product carrying the SKU: matched.
    const links = (await t.api(key, 'GET', `/stores/${storeId}/links`)).body.data;
    expect(links.find((l: { id: string }) => l.id === listing.linkId)).to.include({
      sku: SKU,
      externalProductId: listing.externalProductId,
      discovered: false,
    });
    const matched = await eventually(async () => {
      const page = (await t.api(key, 'GET', `/stores/${storeId}/listings?matched=true`)).body.data as Array<{
        externalProductId: string;
        resellerProduct: { sku: string } | null;
      }>;
      return page.find((l) => l.externalProductId === listing.externalProductId);
    }, 'the published product among the matched listings');
    expect(matched.resellerProduct?.sku).to.equal(SKU);

    const refused = await t.api(key, 'DELETE', `/reseller-products/${SKU}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('reseller_product_linked');
    expect((await t.api(key, 'GET', `/stores/${storeId}/listings/${listing.id}`)).body.data).to.deep.include({
      id: listing.id,
      status: 'active',
    });
  });

  it('answers 409 with the existing listing when the product is published to the store again, creating nothing', async () => {
    const before = created().length;
    const again = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Tulips again',
      priceCents: 1995,
    });
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(again.body.error.code).to.equal('listing_exists');
    expect(again.body.error.details[0].listing).to.include({ title: 'Tulips, A2 poster', priceCents: 2495 });
    expect(created()).to.have.length(before);
  });

  it('answers a repeat with the same Idempotency-Key with the same listing, and refuses the key for another body', async () => {
    await product('CARD-IDEM');
    const body = { resellerProduct: 'CARD-IDEM', title: 'Card', priceCents: 350, published: false };
    const first = await t.api(key, 'POST', `/stores/${storeId}/listings`, body, {
      'idempotency-key': 'publish-card-idem-1',
    });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body.data.status).to.equal('draft');
    expect(shop.products.get(Number(first.body.data.externalProductId))).to.include({
      status: 'draft',
      regular_price: '3.50',
    });
    const repeat = await t.api(key, 'POST', `/stores/${storeId}/listings`, body, {
      'idempotency-key': 'publish-card-idem-1',
    });
    expect(repeat.status).to.equal(200);
    expect(repeat.body.data.id).to.equal(first.body.data.id);
    const other = await t.api(
      key,
      'POST',
      `/stores/${storeId}/listings`,
      { ...body, priceCents: 400 },
      { 'idempotency-key': 'publish-card-idem-1' },
    );
    expect(other.status).to.equal(422);
    expect(other.body.error.code).to.equal('idempotency_key_reused');
    expect(created().filter((r) => (r.body as { sku: string }).sku === 'CARD-IDEM')).to.have.length(1);
  });

  it("answers 422 with WooCommerce's reason when it refuses the product, and keeps nothing", async () => {
    await product('MUG-TAKEN');
    shop.saveProduct({ id: 9001, name: 'A mug of the merchant', type: 'simple', status: 'publish', sku: 'MUG-TAKEN' });
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: 'MUG-TAKEN',
      title: 'Mug',
      priceCents: 1200,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('listing_rejected');
    expect(res.body.error.message).to.equal(
      'WooCommerce refused the product: Invalid or duplicated SKU. (product_invalid_sku)',
    );
    const rows = await t.service.db
      .selectFrom('store_publications')
      .select('id')
      .where('store_id', '=', storeId)
      .where('sku', '=', 'MUG-TAKEN')
      .execute();
    expect(rows).to.deep.equal([]);
  });

  it('answers 503 with Retry-After when WooCommerce rate-limits the call longer than a request can wait, and publishes on the retry', async () => {
    await product('PRINT-LIMIT');
    shop.failNext('POST', /\/wc\/v3\/products$/, 429, { 'Retry-After': '120' });
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: 'PRINT-LIMIT',
      title: 'Print',
      priceCents: 900,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    expect(res.body.error.code).to.equal('store_rate_limited');
    expect(res.headers.get('retry-after')).to.equal('120');
    const retry = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: 'PRINT-LIMIT',
      title: 'Print',
      priceCents: 900,
    });
    expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
  });

  it('refuses an image URL of a private address before anything reaches the store (422, naming it)', async () => {
    await product('FLYER-SSRF');
    const before = shop.requests.length;
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: 'FLYER-SSRF',
      title: 'Flyer',
      priceCents: 500,
      imageUrls: [IMAGE, 'https://169.254.169.254/latest/meta-data/flyer.png'],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('invalid_image_url');
    expect(res.body.error.details[0]).to.include({
      field: 'imageUrls[1]',
      code: 'address_blocked',
      url: 'https://169.254.169.254/latest/meta-data/flyer.png',
    });
    expect(shop.requests.length).to.equal(before);
  });

  it('pushes a new price and title, then unpublishes to a draft and removes the link', async () => {
    await product('CAL-2027');
    const pub = (
      await t.api(key, 'POST', `/stores/${storeId}/listings`, {
        resellerProduct: 'CAL-2027',
        title: 'Calendar',
        priceCents: 1800,
      })
    ).body.data;
    const patched = await t.api(key, 'PATCH', `/stores/${storeId}/listings/${pub.id}`, {
      title: 'Calendar 2027',
      priceCents: 2150,
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body.data).to.include({ title: 'Calendar 2027', priceCents: 2150, status: 'active' });
    expect(shop.products.get(Number(pub.externalProductId))).to.include({
      name: 'Calendar 2027',
      regular_price: '21.50',
      status: 'publish',
    });

    const gone = await t.api(key, 'DELETE', `/stores/${storeId}/listings/${pub.id}`);
    expect(gone.status, JSON.stringify(gone.body)).to.equal(200);
    expect(gone.body.data).to.deep.equal({ id: pub.id, deleted: true });
    expect(shop.products.get(Number(pub.externalProductId))!.status).to.equal('draft');
    const links = (await t.api(key, 'GET', `/stores/${storeId}/links`)).body.data as Array<{ id: string }>;
    expect(links.map((l) => l.id)).not.to.include(pub.linkId);
    expect((await t.api(key, 'GET', `/stores/${storeId}/listings/${pub.id}`)).status).to.equal(404);
  });

  it('finds the product a lost call made (the intent left by a crash) instead of creating a second one', async () => {
    await product('CRASH-1');
    const rp = (await t.api(key, 'GET', '/reseller-products/CRASH-1')).body.data;
    // A request wrote its intent and reached WooCommerce, which created the product; then the process died. Three
    // minutes ago: stale for a request to take over (2 min), not yet the maintenance sweep's (4 min, its own test).
    const longAgo = new Date(Date.now() - 3 * 60_000);
    await t.service.db
      .insertInto('store_publications')
      .values({
        id: 'pub_crashed0000000000000000',
        store_id: storeId,
        reseller_product_id: rp.id,
        sku: 'CRASH-1',
        title: 'Crash',
        price_cents: 700,
        currency: 'EUR',
        status: 'publishing',
        external_product_id: null,
        external_variant_id: null,
        url: null,
        notice: null,
        link_id: null,
        idempotency_key: null,
        request_hash: null,
        created_at: longAgo,
        updated_at: longAgo,
      })
      .execute();
    shop.saveProduct({
      id: 7001,
      name: 'Crash',
      type: 'simple',
      status: 'publish',
      sku: 'CRASH-1',
      regular_price: '7.00',
    });
    const before = created().length;
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: 'CRASH-1',
      title: 'Crash',
      priceCents: 700,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data).to.include({
      id: 'pub_crashed0000000000000000',
      externalProductId: '7001',
      status: 'active',
    });
    expect(created()).to.have.length(before);
  });

  it("finds another reseller's store unknown (404) and refuses a malformed body (400) without calling the store", async () => {
    const other = await t.reseller();
    const res = await t.api(other.key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'Mine',
      priceCents: 100,
    });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
    const mine = await t.service.db
      .selectFrom('store_publications')
      .select('id')
      .where('store_id', '=', storeId)
      .executeTakeFirstOrThrow();
    expect((await t.api(other.key, 'GET', `/stores/${storeId}/listings/${mine.id}`)).status).to.equal(404);
    expect(
      (await t.api(other.key, 'PATCH', `/stores/${storeId}/listings/${mine.id}`, { priceCents: 1 })).status,
    ).to.equal(404);
    expect((await t.api(other.key, 'DELETE', `/stores/${storeId}/listings/${mine.id}`)).status).to.equal(404);
    const before = shop.requests.length;
    for (const body of [
      { resellerProduct: SKU, title: 'x', priceCents: 12.5 },
      { resellerProduct: SKU, priceCents: 100 },
      { resellerProduct: SKU, title: 'x', priceCents: 100, currency: 'eur' },
      { resellerProduct: SKU, title: 'x', priceCents: 100, colour: 'red' },
    ]) {
      const bad = await t.api(key, 'POST', `/stores/${storeId}/listings`, body);
      expect(bad.status, JSON.stringify(body)).to.equal(400);
      expect(bad.body.error.code).to.equal('invalid_request');
    }
    const wrongCurrency = await t.api(key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: SKU,
      title: 'x',
      priceCents: 100,
      currency: 'USD',
    });
    expect(wrongCurrency.status).to.equal(422);
    expect(wrongCurrency.body.error.code).to.equal('currency_mismatch');
    expect(shop.requests.length).to.equal(before);
  });
});
