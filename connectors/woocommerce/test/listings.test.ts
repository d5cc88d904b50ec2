import { expect } from 'chai';
import type { HttpClient } from '@print-api/connector-kit';
import { wooCommerceWebhook } from './webhook-signer.ts';
import { wooCommerceConnector } from '../src/index.ts';
import { listWooListings } from '../src/listings.ts';
import { WooCommerceClient } from '../src/woocommerce-client.ts';
import { FakeWooStore, takeContractViolations } from './fake-woo-store.ts';
import { inbound, STORE_URL, testContext, testStore } from './woo-fixtures.ts';
import { nockedPlatformSuite } from '@print-api/core/testing';

describe('WooCommerce listings (/products and /variations)', () => {
  // Every call the connector made (and every order and webhook the fake answered) kept to WooCommerce's REST contract.
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  let http: HttpClient;
  nockedPlatformSuite((made) => (http = made));

  it("lists simple products and each variable product's variations, one call per page, with the ids order lines carry", async () => {
    const shop = new FakeWooStore({
      host: 'listings.example.com',
      ourBaseUrl: 'http://127.0.0.1:1',
      publicUrl: 'https://print-api.example.com',
    });
    shop.saveProduct({ id: 10, name: 'Tulip poster', type: 'simple', status: 'publish', sku: 'poster-tulips' });
    shop.saveProduct({
      id: 11,
      name: 'Card',
      type: 'variable',
      status: 'publish',
      sku: '',
      variations: [
        { id: 111, sku: 'card-a6', status: 'publish', attributes: [{ name: 'Size', option: 'A6' }] },
        { id: 112, sku: ' card-a5 ', status: 'private', attributes: [{ name: 'Size', option: 'A5' }] },
      ],
    });
    for (let i = 0; i < 120; i++)
      shop.saveProduct({ id: 1000 + i, name: `Mug ${i}`, type: 'simple', status: 'draft', sku: `mug-${i}` });
    shop.saveProduct({
      id: 5000,
      name: 'Big',
      type: 'variable',
      status: 'draft',
      sku: '',
      variations: Array.from({ length: 130 }, (_, i) => ({
        id: 50_000 + i,
        sku: `big-${i}`,
        status: 'publish' as const,
        attributes: [],
      })),
    });
    const client = new WooCommerceClient({
      http,
      credentials: { storeUrl: shop.url, consumerKey: shop.consumerKey, consumerSecret: shop.consumerSecret },
    });

    const all = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const page = await listWooListings(client, cursor);
      all.push(...page.listings);
      cursor = page.nextCursor;
      calls++;
    } while (cursor && calls < 20);
    expect(cursor).to.equal(null);
    expect(shop.requests.length).to.equal(calls);
    // products page 1 (10, 11, mugs 0-97), Card's variations, products page 2 (mugs 98-119, Big), Big's variations x2
    expect(calls).to.equal(5);
    expect(all).to.have.length(1 + 2 + 120 + 130);
    expect(all.slice(0, 2)).to.deep.equal([
      { externalProductId: '10', externalVariantId: null, sku: 'poster-tulips', title: 'Tulip poster', active: true },
      { externalProductId: '1000', externalVariantId: null, sku: 'mug-0', title: 'Mug 0', active: false },
    ]);
    expect(all.filter((l) => l.externalProductId === '11')).to.deep.equal([
      { externalProductId: '11', externalVariantId: '111', sku: 'card-a6', title: 'Card - A6', active: true },
      { externalProductId: '11', externalVariantId: '112', sku: 'card-a5', title: 'Card - A5', active: false },
    ]);
    expect(all.filter((l) => l.externalProductId === '5000')).to.have.length(130);
    expect(all.find((l) => l.externalVariantId === '50129')).to.deep.equal({
      externalProductId: '5000',
      externalVariantId: '50129',
      sku: 'big-129',
      title: 'Big',
      active: false,
    });
  });

  it('reads product.created, product.updated and product.deleted deliveries as "the listings changed"', async () => {
    for (const topic of ['product.created', 'product.updated', 'product.deleted']) {
      const req = inbound(wooCommerceWebhook({ payload: { id: 311 }, secret: 's', topic, source: STORE_URL }));
      expect(await wooCommerceConnector.parseWebhook(testContext(), testStore('s'), req)).to.deep.equal({
        kind: 'listings_changed',
      });
    }
  });
});
