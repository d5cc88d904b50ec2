import { expect } from 'chai';
import type { HttpClient } from '@print-api/connector-kit';
import { listShopifyListings } from '../src/listings.ts';
import { ShopifyClient } from '../src/shopify-client.ts';
import { webhookContent } from '../src/webhook-content.ts';
import { FakeShopifyStore } from './fake-shopify-store.ts';
import { nockedPlatformSuite } from '@print-api/core/testing';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('Shopify listings (productVariants)', () => {
  let http: HttpClient;
  nockedPlatformSuite((made) => (http = made));

  it('maps every variant with its SKU, title, legacy ids and whether its product is on sale, page after page', async () => {
    const store = new FakeShopifyStore({
      name: 'listings-test',
      app: { apiKey: 'k', secret: 's' },
      ourBaseUrl: 'http://127.0.0.1:1',
      publicUrl: 'https://print-api.example.com',
    });
    store.saveProduct({
      id: 101,
      title: 'Tulip poster',
      status: 'ACTIVE',
      variants: [{ id: 1001, sku: 'poster-tulips', title: 'Default Title' }],
    });
    store.saveProduct({
      id: 102,
      title: 'Card',
      status: 'DRAFT',
      variants: [
        { id: 1002, sku: ' card-a6 ', title: 'A6' },
        { id: 1003, sku: '', title: 'A5' },
      ],
    });
    for (let i = 0; i < 150; i++)
      store.saveProduct({
        id: 200 + i,
        title: `Mug ${i}`,
        status: 'ARCHIVED',
        variants: [{ id: 5000 + i, sku: `mug-${i}`, title: 'Default Title' }],
      });
    const client = new ShopifyClient({ http, shop: store.domain, accessToken: store.customToken, logger: silent });

    const first = await listShopifyListings(client, null);
    expect(first.listings).to.have.length(100);
    expect(first.listings.slice(0, 3)).to.deep.equal([
      {
        externalProductId: '101',
        externalVariantId: '1001',
        sku: 'poster-tulips',
        title: 'Tulip poster',
        active: true,
      },
      { externalProductId: '102', externalVariantId: '1002', sku: 'card-a6', title: 'Card - A6', active: false },
      { externalProductId: '102', externalVariantId: '1003', sku: null, title: 'Card - A5', active: false },
    ]);
    expect(first.nextCursor).to.be.a('string');
    const second = await listShopifyListings(client, first.nextCursor);
    expect(second.listings).to.have.length(53);
    expect(second.listings.at(-1)).to.deep.equal({
      externalProductId: '349',
      externalVariantId: '5149',
      sku: 'mug-149',
      title: 'Mug 149',
      active: false,
    });
    expect(second.nextCursor).to.equal(null);
    expect(store.seen('ProductVariantsPage').map((c) => c.variables)).to.deep.equal([
      { first: 100, after: null },
      { first: 100, after: first.nextCursor },
    ]);
  });

  it('reads products/create, products/update and products/delete deliveries as "the listings changed"', () => {
    for (const topic of ['products/create', 'products/update', 'products/delete']) {
      const req = {
        headers: { 'x-shopify-topic': topic, 'x-shopify-shop-domain': 'a.myshopify.com' },
        rawBody: Buffer.from('{"id":1}'),
        path: '',
        query: {},
      };
      expect(webhookContent(req, 'a.myshopify.com', silent)).to.deep.equal({ kind: 'listings_changed' });
    }
  });
});
