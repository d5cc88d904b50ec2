import { expect } from 'chai';
import type { ConnectorContext, ListingDraft, StoreConnection } from '@print-api/connector-kit';
import { connectorFailure as failure, startFakePlatformServer, type FakePlatformServer } from '@print-api/core/testing';
import { settingsSchema, type ShopifyCredentials, type ShopifySettings } from '../src/config.ts';
import { shopifyConnector } from '../src/index.ts';
import { PUBLICATIONS } from './fake-shopify-catalogue.ts';
import { FakeShopify } from './fake-shopify.ts';
import { takeContractViolations, type FakeShopifyStore } from './fake-shopify-store.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const ONLINE_STORE = PUBLICATIONS[0]!.id;
const draft = (over: Partial<ListingDraft> = {}): ListingDraft => ({
  sku: 'POSTER-TULIPS',
  title: 'Tulip poster A2',
  description: 'Tulips & windmills, printed on 200 g matte paper.',
  priceCents: 2495,
  currency: 'EUR',
  imageUrls: [
    'https://cdn.print-api.example.com/mockups/tulips-front.jpg',
    'https://cdn.print-api.example.com/mockups/tulips-wall.jpg',
  ],
  published: true,
  ...over,
});

// The fake shop answers over local HTTPS, so the connector's calls go through core's HttpClient (guard, TLS, statuses,
// Retry-After) as in production.
describe('Shopify publishing (productSet, publishablePublish, productUpdate, productVariantsBulkUpdate)', () => {
  const shopify = new FakeShopify();
  let server: FakePlatformServer;
  let settings: ShopifySettings;
  let shop: FakeShopifyStore;
  let ctx: ConnectorContext<ShopifySettings>;
  let store: StoreConnection<ShopifyCredentials>;
  before(async () => {
    server = await startFakePlatformServer();
    const env = await shopify.start(server);
    settings = settingsSchema.parse({
      apiKey: env.CONNECTOR_SHOPIFY_API_KEY,
      apiSecret: env.CONNECTOR_SHOPIFY_API_SECRET,
      apiUrl: env.CONNECTOR_SHOPIFY_API_URL,
    });
  });
  beforeEach(() => {
    // Nothing delivers webhooks here: the service's address is never used.
    shop = shopify.newShop({ baseUrl: 'http://127.0.0.1:1', publicUrl: PUBLIC_URL });
    ctx = server.context('shopify', settings, PUBLIC_URL);
    store = {
      externalId: shop.domain,
      name: 'Tulip Prints',
      credentials: { kind: 'custom', shop: shop.domain, accessToken: shop.customToken, scope: shop.scopes.join(',') },
    };
  });
  // Every document and variable sent (and every answer of the fake) kept to the Admin API schema.
  afterEach(() => expect(takeContractViolations()).to.deep.equal([]));
  after(async () => server?.close());

  const listings = async () => (await shopifyConnector.listListings!(ctx, store, null)).listings;

  it('creates one product whose only variant carries the SKU and the price, with its images, active on the Online Store; listListings finds it', async () => {
    const made = await shopifyConnector.publishListing!(ctx, store, draft());

    expect(made.status).to.equal('active');
    expect(made.notice).to.equal(undefined);
    expect(made.url).to.equal(
      `https://admin.shopify.com/store/${shop.domain.replace('.myshopify.com', '')}/products/${made.externalProductId}`,
    );
    const product = shop.products.get(Number(made.externalProductId))!;
    expect(product).to.deep.include({
      title: 'Tulip poster A2',
      status: 'ACTIVE',
      descriptionHtml: '<p>Tulips &#38; windmills, printed on 200 g matte paper.</p>',
      publications: [ONLINE_STORE],
    });
    expect(product.images).to.deep.equal(draft().imageUrls);
    // Printed on demand: never out of stock.
    expect(product.variants).to.deep.equal([
      {
        id: Number(made.externalVariantId),
        sku: 'POSTER-TULIPS',
        title: 'Default Title',
        price: '24.95',
        tracked: false,
      },
    ]);
    expect(await listings()).to.deep.equal([
      {
        externalProductId: made.externalProductId,
        externalVariantId: made.externalVariantId,
        sku: 'POSTER-TULIPS',
        title: 'Tulip poster A2',
        active: true,
      },
    ]);
    expect(shop.calls.map((c) => c.operation)).to.deep.equal([
      'PublishingContext',
      'CreateListing',
      'PublishListing',
      'ProductVariantsPage',
    ]);
  });

  it("says the shop's currency and country (its address's countryCodeV2; null when the shop has none)", async () => {
    expect(await shopifyConnector.storeCurrency!(ctx, store)).to.equal('EUR');
    expect(await shopifyConnector.storeCountry!(ctx, store)).to.equal('NL');
    shop.country = null;
    expect(await shopifyConnector.storeCountry!(ctx, store)).to.equal(null);
    // A store connected for its orders only (no publishing scope granted) learns them all the same.
    const ordersOnly = 'read_orders,read_products,write_merchant_managed_fulfillment_orders';
    shop.scopes = ordersOnly.split(',');
    const orderStore = { ...store, credentials: { ...store.credentials, scope: ordersOnly } };
    expect(await shopifyConnector.storeCurrency!(ctx, orderStore)).to.equal('EUR');
    expect(shop.calls.at(-1)?.operation).to.equal('ShopLocale');
  });

  it('creates a draft when not published: DRAFT status, on no sales channel', async () => {
    const made = await shopifyConnector.publishListing!(
      ctx,
      store,
      draft({ published: false, imageUrls: [], description: undefined }),
    );
    expect(made.status).to.equal('draft');
    expect(shop.products.get(Number(made.externalProductId))).to.deep.include({
      status: 'DRAFT',
      publications: [],
      images: [],
    });
    expect(shop.seen('PublishListing')).to.deep.equal([]);
    expect((await listings())[0]).to.include({ sku: 'POSTER-TULIPS', active: false });
  });

  it('changes the title, the price (on the variant) and the status; going on sale publishes it to the Online Store again', async () => {
    const made = await shopifyConnector.publishListing!(ctx, store, draft({ published: false }));
    const ref = { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId };

    const renamed = await shopifyConnector.updateListing!(ctx, store, ref, {
      title: 'Tulip poster A1',
      priceCents: 3900,
      currency: 'EUR',
    });
    expect(renamed).to.deep.include({
      externalProductId: ref.externalProductId,
      externalVariantId: ref.externalVariantId,
      status: 'draft',
    });
    const product = shop.products.get(Number(ref.externalProductId))!;
    expect([product.title, product.variants[0]!.price, product.publications]).to.deep.equal([
      'Tulip poster A1',
      '39.00',
      [],
    ]);

    expect((await shopifyConnector.updateListing!(ctx, store, ref, { published: true })).status).to.equal('active');
    expect([product.status, product.publications]).to.deep.equal(['ACTIVE', [ONLINE_STORE]]);
    expect((await shopifyConnector.updateListing!(ctx, store, ref, { published: false })).status).to.equal('draft');
    expect(product.status).to.equal('DRAFT');
    expect((await listings())[0]).to.deep.include({ title: 'Tulip poster A1', active: false });
  });

  it('unpublishes by archiving (kept with its SKU for past orders, off every channel); a product already deleted is not an error', async () => {
    const made = await shopifyConnector.publishListing!(ctx, store, draft());
    const ref = { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId };
    await shopifyConnector.unpublishListing!(ctx, store, ref);
    expect(shop.products.get(Number(ref.externalProductId))!.status).to.equal('ARCHIVED');
    expect((await listings())[0]).to.include({ sku: 'POSTER-TULIPS', active: false });

    shop.products.delete(Number(ref.externalProductId));
    await shopifyConnector.unpublishListing!(ctx, store, ref);
  });

  it("fails invalid_payload with Shopify's reason when it refuses the product, and refuses a price in another currency than the shop's", async () => {
    const blank = await failure(shopifyConnector.publishListing!(ctx, store, draft({ title: ' ' })));
    expect(blank).to.include({
      kind: 'invalid_payload',
      message: "Shopify refused to create the product: input.title: Title can't be blank",
    });
    const dollars = await failure(shopifyConnector.publishListing!(ctx, store, draft({ currency: 'USD' })));
    expect(dollars).to.include({
      kind: 'invalid_payload',
      message: 'The shop sells in EUR, not USD: give the price in EUR.',
    });
    const gone = await failure(
      shopifyConnector.updateListing!(ctx, store, { externalProductId: '1', externalVariantId: '2' }, { title: 'New' }),
    );
    expect(gone).to.include({
      kind: 'invalid_payload',
      message: 'Shopify refused to update the product: id: Product does not exist',
    });
    expect(shop.products.size).to.equal(0);
  });

  it('fails rate_limited with the wait when Shopify answers 429 with Retry-After', async () => {
    shop.faultNext('CreateListing', [
      429,
      { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' },
      { 'Retry-After': '3' },
    ]);
    const limited = await failure(shopifyConnector.publishListing!(ctx, store, draft()));
    expect(limited).to.include({ kind: 'rate_limited', retryAfterMs: 3000 });
    expect(shop.products.size).to.equal(0);
  });

  it('fails auth, naming the scopes, for a token without the publishing scopes (before any call), and when Shopify denies access', async () => {
    const readOnly = {
      ...store,
      credentials: {
        ...store.credentials,
        scope: 'read_orders,read_products,write_merchant_managed_fulfillment_orders',
      },
    };
    const missing = await failure(shopifyConnector.publishListing!(ctx, readOnly, draft()));
    expect(missing.kind).to.equal('auth');
    expect(missing.message).to.contain('write_products, read_publications, write_publications');
    expect(shop.calls).to.deep.equal([]);

    // The stored scopes say yes, the shop says no (the merchant removed them since).
    shop.scopes = shop.scopes.filter((s) => s !== 'write_products');
    const denied = await failure(shopifyConnector.publishListing!(ctx, store, draft()));
    expect(denied.kind).to.equal('auth');
    expect(denied.message).to.contain(
      'Access denied for productSet field. Required access: `write_products` access scope.',
    );
  });
});
