import assert from 'node:assert/strict';
import type { ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { connectorFailure as failure } from '@print-api/core/testing';
import type { WixCredentials, WixSettings } from '../src/config.ts';
import { wixConnector } from '../src/index.ts';
import { DEFAULT_VARIANT_ID } from '../src/publishing-v1.ts';
import type { FakeWixSite } from './fake-wix.ts';
import { draft, publishingFixture } from './publishing-fixture.ts';

describe('Wix publishing (Catalog V1 products: create, add media, update, hide)', () => {
  const fixture = publishingFixture();
  let site: FakeWixSite;
  let ctx: ConnectorContext<WixSettings>;
  let store: StoreConnection<WixCredentials>;
  beforeEach(() => {
    ({ site, ctx, store } = fixture);
  });

  const ours = async () =>
    (await wixConnector.listListings!(ctx, store, null)).listings.filter((l) => l.sku === 'POSTER-TULIPS-A2');

  it("says the site's currency and country (its business address in Site Properties; null when it has none)", async () => {
    assert.equal(await wixConnector.storeCurrency!(ctx, store), 'USD');
    assert.equal(await wixConnector.storeCountry!(ctx, store), 'US');
    site.country = null;
    assert.equal(await wixConnector.storeCountry!(ctx, store), null);
  });

  it('creates a visible physical product with the SKU and the price, adds the images, and listListings finds it by its ids', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());

    assert.deepEqual(made, {
      externalProductId: made.externalProductId,
      externalVariantId: DEFAULT_VARIANT_ID,
      status: 'active',
      url: 'https://tulipprints.wixsite.com/shop/product-page/tulip-poster-a2',
    });
    const product = site.products.find((p) => p.id === made.externalProductId)!;
    assert.deepEqual(
      {
        name: product.name,
        sku: product.sku,
        visible: product.visible,
        productType: product.productType,
        price: product.priceData,
        description: product.description,
        images: product.media!.items.map((m) => m.image.url),
      },
      {
        name: 'Tulip poster A2',
        sku: 'POSTER-TULIPS-A2',
        visible: true,
        productType: 'physical',
        price: { currency: 'USD', price: 24.95 },
        description: 'Tulips & windmills, printed on 200 g matte paper.',
        images: draft().imageUrls,
      },
    );
    assert.deepEqual(await ours(), [
      {
        externalProductId: made.externalProductId,
        externalVariantId: DEFAULT_VARIANT_ID,
        sku: 'POSTER-TULIPS-A2',
        title: 'Tulip poster A2',
        active: true,
      },
    ]);
    assert.deepEqual(
      site.calls.map((c) => c.operation),
      ['getCatalogVersion', 'getAppInstance', 'createProduct', 'addProductMedia', 'getCatalogVersion', 'queryProducts'],
    );
  });

  it('creates a hidden product when not published, with no media call when there is no image', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft({ published: false, imageUrls: [] }));
    assert.equal(made.status, 'draft');
    assert.equal(site.products.find((p) => p.id === made.externalProductId)!.visible, false);
    assert.deepEqual(site.seen('addProductMedia'), []);
    assert.equal((await ours())[0]!.active, false);
  });

  it('changes the name, the price and the visibility with PATCH (only what is given)', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());
    const ref = { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId };
    const changed = await wixConnector.updateListing!(ctx, store, ref, { title: 'Tulip poster A1', priceCents: 3900 });
    assert.equal(changed.status, 'active');
    assert.deepEqual(site.seen('updateProduct').at(-1)!.body, {
      product: { name: 'Tulip poster A1', priceData: { price: 39 } },
    });
    const product = site.products.find((p) => p.id === ref.externalProductId)!;
    assert.deepEqual([product.name, product.priceData!.price], ['Tulip poster A1', 39]);

    assert.equal((await wixConnector.updateListing!(ctx, store, ref, { published: false })).status, 'draft');
    assert.deepEqual(site.seen('updateProduct').at(-1)!.body, { product: { visible: false } });
    assert.deepEqual(await ours(), [
      {
        externalProductId: ref.externalProductId,
        externalVariantId: DEFAULT_VARIANT_ID,
        sku: 'POSTER-TULIPS-A2',
        title: 'Tulip poster A1',
        active: false,
      },
    ]);
  });

  it('unpublishes by hiding the product (kept for past orders); a product already deleted is not an error', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());
    await wixConnector.unpublishListing!(ctx, store, {
      externalProductId: made.externalProductId,
      externalVariantId: made.externalVariantId,
    });
    assert.equal(site.products.find((p) => p.id === made.externalProductId)!.visible, false);
    assert.equal((await ours())[0]!.active, false);
    await wixConnector.unpublishListing!(ctx, store, {
      externalProductId: 'df19c1f7-0000-4000-8000-00000000dead',
      externalVariantId: null,
    });
  });

  it("fails invalid_payload with Wix's reason when it refuses the product, and for a price in another currency than the site's", async () => {
    const long = await failure(
      wixConnector.publishListing!(ctx, store, draft({ sku: 'POSTER-TULIPS-A2-MATTE-200G-WITH-WHITE-BORDER' })),
    );
    assert.equal(long.kind, 'invalid_payload');
    assert.match(
      long.message,
      /^Wix \(createProduct\) answered 400: product\.sku: must be a string of at most 40 characters/,
    );
    const euros = await failure(wixConnector.publishListing!(ctx, store, draft({ currency: 'EUR' })));
    assert.deepEqual(
      [euros.kind, euros.message],
      ['invalid_payload', 'The Wix site sells in USD, not EUR: give the price in USD.'],
    );
    assert.equal(site.products.filter((p) => p.sku.startsWith('POSTER-TULIPS-A2')).length, 0);
  });

  it('refuses a site without Wix Stores before writing anything', async () => {
    site.catalogVersion = 'STORES_NOT_INSTALLED';
    assert.match((await failure(wixConnector.publishListing!(ctx, store, draft()))).message, /has no Wix Stores/);
    assert.deepEqual(site.seen('createProduct'), []);
    assert.deepEqual(site.seen('createProductWithInventory'), []);
  });

  it('fails rate_limited with the wait when Wix answers 429', async () => {
    site.faultNext('createProduct', [
      429,
      {
        message: 'Too many requests',
        details: { applicationError: { code: 'RESOURCE_EXHAUSTED', description: 'rate limit', data: {} } },
      },
      { 'Retry-After': '4' },
    ]);
    const limited = await failure(wixConnector.publishListing!(ctx, store, draft()));
    assert.deepEqual([limited.kind, limited.retryAfterMs], ['rate_limited', 4000]);
  });
});
