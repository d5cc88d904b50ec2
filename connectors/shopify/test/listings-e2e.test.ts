import { expect } from 'chai';
import { shopifyConnector } from '../src/index.ts';
import { FakeShopifyStore, takeContractViolations } from './fake-shopify-store.ts';
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
const APP = { apiKey: '4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90', secret: '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' };

describe('Shopify listings end to end (real PostgreSQL + Redis, Shopify behind nock)', function () {
  // Every GraphQL request the connector sent (and every answer of the fake) kept to the Admin API schema.
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  this.timeout(scaled(30_000));
  let t: TestService;
  let files: TestHttpsServer;

  connectorE2eService(
    PUBLIC_URL,
    { connectors: [shopifyConnector] },
    (started) => {
      ({ t, files } = started);
    },
    { CONNECTOR_SHOPIFY_API_KEY: APP.apiKey, CONNECTOR_SHOPIFY_API_SECRET: APP.secret },
  );

  it("lists the shop's variants on connect, guards the matched product, and follows products/delete", async () => {
    const r = await posterReseller(t, files);
    const card = await t.api(r.key, 'POST', '/reseller-products', {
      sku: 'CARD-A6',
      title: 'Card',
      productId: 'business-cards',
    });
    expect(card.status, JSON.stringify(card.body)).to.equal(201);
    const shop = new FakeShopifyStore({ name: 'listings-e2e', app: APP, ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    shop.saveProduct({
      id: 101,
      title: 'Tulip poster',
      status: 'ACTIVE',
      variants: [{ id: 1001, sku: SKU, title: 'Default Title' }],
    });
    shop.saveProduct({
      id: 102,
      title: 'Card',
      status: 'ACTIVE',
      variants: [
        { id: 1002, sku: 'card-a6', title: 'A6' },
        { id: 1003, sku: 'CARD-A5', title: 'A5' },
      ],
    });
    const res = await t.api(r.key, 'POST', '/stores', {
      platform: 'SHOPIFY',
      shop: shop.domain,
      accessToken: shop.customToken,
      apiSecretKey: shop.customSecret,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const storeId = res.body.data.id as string;
    expect(shop.subscriptions.map((s) => s.topic)).to.include.members([
      'PRODUCTS_CREATE',
      'PRODUCTS_UPDATE',
      'PRODUCTS_DELETE',
    ]);
    const synced = () => listingsSyncedAt(t, storeId);
    const first = await eventually(synced, 'the first listings sync');

    const unmatched = (await t.api(r.key, 'GET', `/stores/${storeId}/listings?matched=false`)).body.data;
    expect(
      unmatched.map((l: Record<string, unknown>) => [l.externalProductId, l.externalVariantId, l.sku, l.title]),
    ).to.deep.equal([['102', '1003', 'CARD-A5', 'Card - A5']]);
    const refused = await t.api(r.key, 'DELETE', '/reseller-products/CARD-A6');
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('reseller_product_linked');

    // The merchant deletes the card product: Shopify tells us, and the listings follow.
    shop.products.delete(102);
    expect(await shop.deliver({ id: 102 }, 'products/delete', { secret: shop.customSecret })).to.equal(200);
    await eventually(
      async () => ((await synced())! > first! ? true : undefined),
      'the listings sync after products/delete',
    );
    expect(
      (await t.api(r.key, 'GET', `/stores/${storeId}/listings`)).body.data.map((l: { sku: string }) => l.sku),
    ).to.deep.equal([SKU]);
    expect((await t.api(r.key, 'DELETE', '/reseller-products/CARD-A6')).status).to.equal(200);
  });
});
