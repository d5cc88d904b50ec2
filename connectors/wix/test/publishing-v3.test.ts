import assert from 'node:assert/strict';
import type { ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { connectorFailure as failure } from '@print-api/core/testing';
import type { WixCredentials, WixSettings } from '../src/config.ts';
import { wixConnector } from '../src/index.ts';
import type { FakeWixSite } from './fake-wix.ts';
import { draft, publishingFixture } from './publishing-fixture.ts';

const CANAL = '4b2ca1f6-7e21-4d2a-9f3c-9d1e5c1a2b3c';
const CANAL_A2 = '0a9c3b1e-0000-4000-8000-000000000001';

describe('Wix publishing on a Catalog V3 site (products with inventory, revision-checked updates, read-only variants)', () => {
  const fixture = publishingFixture('V3_CATALOG');
  let site: FakeWixSite;
  let ctx: ConnectorContext<WixSettings>;
  let store: StoreConnection<WixCredentials>;
  beforeEach(() => {
    ({ site, ctx, store } = fixture);
  });

  const held = (id: string) => site.productsV3.find((p) => p.id === id)!;
  const ours = async () =>
    (await wixConnector.listListings!(ctx, store, null)).listings.filter((l) => l.sku === 'POSTER-TULIPS-A2');
  const refOf = (made: { externalProductId: string; externalVariantId: string | null }) => ({
    externalProductId: made.externalProductId,
    externalVariantId: made.externalVariantId,
  });

  it('creates a visible physical product, its one variant carrying the SKU, the price and stock, with the images and the description; the listing sync finds it by its ids', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());

    const product = held(made.externalProductId);
    const variant = product.variantsInfo.variants[0]!;
    assert.deepEqual(made, {
      externalProductId: product.id,
      externalVariantId: variant.id,
      status: 'active',
      url: 'https://tulipprints.wixsite.com/shop/product-page/tulip-poster-a2',
    });
    assert.deepEqual(
      {
        name: product.name,
        productType: product.productType,
        visible: product.visible,
        description: product.plainDescription,
        images: product.media!.itemsInfo.items.map((m) => m.url),
        variants: product.variantsInfo.variants.map((v) => [v.sku, v.price, v.visible, v.inventoryStatus.inStock]),
      },
      {
        name: 'Tulip poster A2',
        productType: 'PHYSICAL',
        visible: true,
        description: '<p>Tulips &#38; windmills, printed on 200 g matte paper.</p>',
        images: draft().imageUrls,
        variants: [['POSTER-TULIPS-A2', { actualPrice: { amount: '24.95' } }, true, true]],
      },
    );
    assert.deepEqual(await ours(), [
      {
        externalProductId: product.id,
        externalVariantId: variant.id,
        sku: 'POSTER-TULIPS-A2',
        title: 'Tulip poster A2',
        active: true,
      },
    ]);
    assert.deepEqual(
      site.calls.map((c) => c.operation),
      ['getCatalogVersion', 'getAppInstance', 'createProductWithInventory', 'getCatalogVersion', 'queryVariants'],
    );
  });

  it('creates a hidden product (its default variant with it) when not published, without media when there is no image', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft({ published: false, imageUrls: [] }));
    assert.equal(made.status, 'draft');
    const product = held(made.externalProductId);
    assert.deepEqual(
      [product.visible, product.variantsInfo.variants[0]!.visible, product.media],
      [false, false, undefined],
    );
    assert.equal((await ours())[0]!.active, false);
  });

  it('changes the name and the price with the current revision (the variant list written whole), then the visibility alone', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());
    const ref = refOf(made);
    const changed = await wixConnector.updateListing!(ctx, store, ref, { title: 'Tulip poster A1', priceCents: 3900 });
    assert.deepEqual([changed.status, changed.externalVariantId], ['active', made.externalVariantId]);
    assert.deepEqual(site.seen('updateProductV3').at(-1)!.body, {
      product: {
        id: made.externalProductId,
        revision: '1',
        name: 'Tulip poster A1',
        options: [],
        variantsInfo: {
          variants: [
            {
              id: made.externalVariantId,
              visible: true,
              sku: 'POSTER-TULIPS-A2',
              choices: [],
              price: { actualPrice: { amount: '39.00' } },
              physicalProperties: {},
            },
          ],
        },
      },
      fields: ['URL'],
    });
    const product = held(made.externalProductId);
    assert.deepEqual(
      [product.name, product.variantsInfo.variants[0]!.price.actualPrice.amount, product.variantsInfo.variants[0]!.id],
      ['Tulip poster A1', '39.00', made.externalVariantId],
    );
    // The stock Wix keeps for the variant is not lost by writing it back.
    assert.equal(product.variantsInfo.variants[0]!.inventoryStatus.inStock, true);

    assert.equal((await wixConnector.updateListing!(ctx, store, ref, { published: false })).status, 'draft');
    assert.deepEqual(site.seen('updateProductV3').at(-1)!.body, {
      product: { id: made.externalProductId, revision: '2', visible: false },
      fields: ['URL'],
    });
    assert.deepEqual(await ours(), [
      {
        externalProductId: made.externalProductId,
        externalVariantId: made.externalVariantId,
        sku: 'POSTER-TULIPS-A2',
        title: 'Tulip poster A1',
        active: false,
      },
    ]);
  });

  it('reprices only the listing variant of a product with options, the other variants and the options written back as they were', async () => {
    await wixConnector.updateListing!(
      ctx,
      store,
      { externalProductId: CANAL, externalVariantId: CANAL_A2 },
      { priceCents: 3150 },
    );
    const canal = held(CANAL);
    assert.deepEqual(
      canal.variantsInfo.variants.map((v) => [v.id, v.sku ?? null, v.price.actualPrice.amount, v.choices.length]),
      [
        [CANAL_A2, 'POSTER-CANAL-A2', '31.50', 1],
        ['0a9c3b1e-0000-4000-8000-000000000002', null, '19.95', 1],
      ],
    );
    assert.equal((site.seen('updateProductV3').at(-1)!.body as any).product.options.length, 1);
    assert.equal(canal.revision, '4');
  });

  it('reads the product again once when its revision changed between our read and our write (409)', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());
    site.faultNext('updateProductV3', [
      409,
      {
        message: 'revision mismatch',
        details: { applicationError: { code: 'REVISION_MISMATCH', description: 'revision mismatch', data: {} } },
      },
    ]);
    await wixConnector.updateListing!(ctx, store, refOf(made), { title: 'Tulip poster, A2' });
    assert.equal(site.seen('getProductV3').length, 2);
    assert.equal(held(made.externalProductId).name, 'Tulip poster, A2');
  });

  it('unpublishes by hiding the product (kept for past orders); a product already deleted is not an error', async () => {
    const made = await wixConnector.publishListing!(ctx, store, draft());
    await wixConnector.unpublishListing!(ctx, store, refOf(made));
    assert.equal(held(made.externalProductId).visible, false);
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
      /^Wix \(createProductWithInventory\) answered 400: product\.variantsInfo\.variants\[0\]\.sku: must be 1-40 characters/,
    );
    const euros = await failure(wixConnector.publishListing!(ctx, store, draft({ currency: 'EUR' })));
    assert.deepEqual(
      [euros.kind, euros.message],
      ['invalid_payload', 'The Wix site sells in USD, not EUR: give the price in USD.'],
    );
    assert.equal(site.productsV3.length, 1, 'only the fixture product');
  });

  it('lists every variant from the read-only variants (the products query carries none), page by page', async () => {
    const first = await wixConnector.listListings!(ctx, store, null);
    assert.deepEqual(
      first.listings.map((l) => [l.externalProductId, l.externalVariantId, l.sku, l.title, l.active]),
      [
        [CANAL, CANAL_A2, 'POSTER-CANAL-A2', 'Canal poster - A2', true],
        [CANAL, '0a9c3b1e-0000-4000-8000-000000000002', null, 'Canal poster - A3', true],
      ],
    );
    assert.equal(first.nextCursor, null);
    for (let i = 0; i < 120; i++)
      await wixConnector.publishListing!(ctx, store, draft({ sku: `MUG-${i}`, imageUrls: [] }));
    const skus: Array<string | null> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await wixConnector.listListings!(ctx, store, cursor);
      skus.push(...page.listings.map((l) => l.sku));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 2);
    assert.equal(new Set(skus).size, 122);
    assert.deepEqual(site.seen('queryProductsV3'), []);
  });
});
