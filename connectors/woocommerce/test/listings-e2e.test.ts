import { expect } from 'chai';
import { wooCommerceWebhook } from './webhook-signer.ts';
import { wooCommerceConnector } from '../src/index.ts';
import { FakeWooStore, takeContractViolations } from './fake-woo-store.ts';
import { connectWooStore } from './woo-fixtures.ts';
import {
  connectorE2eService,
  eventually,
  listingsSyncedAt,
  posterReseller,
  POSTER_SKU as SKU,
  type TestHttpsServer,
  type TestService,
  scaled,
} from '@print-api/core/testing';

const PUBLIC_URL = 'https://print-api.example.com';

describe('WooCommerce listings end to end (real PostgreSQL + Redis, the store behind nock)', function () {
  // Every call the connector made (and every order and webhook the fake answered) kept to WooCommerce's REST contract.
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  this.timeout(scaled(30_000));
  let t: TestService;
  let files: TestHttpsServer;

  connectorE2eService(PUBLIC_URL, { connectors: [wooCommerceConnector] }, (started) => {
    ({ t, files } = started);
  });

  it('lists simple products and variations on connect, guards the matched product, and follows product.deleted', async () => {
    const r = await posterReseller(t, files);
    const card = await t.api(r.key, 'POST', '/reseller-products', {
      sku: 'CARD-A6',
      title: 'Card',
      productId: 'business-cards',
    });
    expect(card.status, JSON.stringify(card.body)).to.equal(201);
    const shop = new FakeWooStore({ host: 'listings-e2e.example.com', ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    shop.saveProduct({ id: 10, name: 'Tulip poster', type: 'simple', status: 'publish', sku: SKU });
    shop.saveProduct({
      id: 11,
      name: 'Card',
      type: 'variable',
      status: 'publish',
      sku: '',
      variations: [
        { id: 111, sku: 'card-a6', status: 'publish', attributes: [{ name: 'Size', option: 'A6' }] },
        { id: 112, sku: 'CARD-A5', status: 'publish', attributes: [{ name: 'Size', option: 'A5' }] },
      ],
    });
    const storeId = await connectWooStore(t, r.key, shop);
    const synced = () => listingsSyncedAt(t, storeId);
    const first = await eventually(synced, 'the first listings sync');

    const unmatched = (await t.api(r.key, 'GET', `/stores/${storeId}/listings?matched=false`)).body.data;
    expect(
      unmatched.map((l: Record<string, unknown>) => [l.externalProductId, l.externalVariantId, l.sku, l.title]),
    ).to.deep.equal([['11', '112', 'CARD-A5', 'Card - A5']]);
    const links = (await t.api(r.key, 'GET', `/stores/${storeId}/links`)).body.data;
    expect(
      links.map((l: Record<string, unknown>) => [l.sku, l.externalProductId, l.externalVariantId]).sort(),
    ).to.deep.equal([
      ['CARD-A6', '11', '111'],
      [SKU, '10', null],
    ]);
    const refused = await t.api(r.key, 'DELETE', '/reseller-products/CARD-A6');
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('reseller_product_linked');

    // The merchant deletes the card product: the store tells us, and the listings follow.
    shop.products.delete(11);
    const hook = shop.webhooks.find((w) => w.topic === 'product.deleted')!;
    expect(
      await shop.send(
        hook,
        wooCommerceWebhook({
          payload: { id: 11 },
          secret: hook.secret,
          topic: 'product.deleted',
          source: shop.url,
          webhookId: hook.id,
        }),
      ),
    ).to.equal(200);
    // A sync already under way when the webhook came may finish first: wait for one that saw the deletion.
    const listed = async () =>
      (await t.api(r.key, 'GET', `/stores/${storeId}/listings`)).body.data.map((l: { sku: string }) => l.sku);
    await eventually(
      async () => ((await synced())! > first! && (await listed()).length === 1 ? true : undefined),
      'a listings sync after product.deleted',
    );
    expect(await listed()).to.deep.equal([SKU]);
    expect((await t.api(r.key, 'DELETE', '/reseller-products/CARD-A6')).status).to.equal(200);
  });
});
