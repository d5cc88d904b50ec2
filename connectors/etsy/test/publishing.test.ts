import { expect } from 'chai';
import type { ConnectorContext, ListingDraft, StoreConnection } from '@print-api/connector-kit';
import { connectorFailure as failure, startFakePlatformServer, type FakePlatformServer } from '@print-api/core/testing';
import { settingsSchema, type EtsyCredentials, type EtsySettings } from '../src/config.ts';
import { etsyConnector } from '../src/index.ts';
import { ALL_SCOPES, APP, FakeEtsy, type FakeEtsyShop } from './fake-etsy.ts';

const PUBLIC_URL = 'https://print-api.example.com';

// The fake Etsy answers over local HTTPS, so the connector's calls go through core's HttpClient (guard, TLS, statuses,
// Retry-After) as in production.
describe('Etsy publishing (createDraftListing, updateListingInventory, updateListing)', () => {
  const etsy = new FakeEtsy();
  let server: FakePlatformServer;
  let shop: FakeEtsyShop;
  let ctx: ConnectorContext<EtsySettings>;
  let store: StoreConnection<EtsyCredentials>;
  const draft = (over: Partial<ListingDraft> = {}): ListingDraft => ({
    sku: 'POSTER-TULIPS-A2',
    title: 'Tulip poster A2 - matte print',
    description: 'Tulips and windmills, printed on 200 g matte paper.',
    priceCents: 2495,
    currency: 'USD',
    imageUrls: ['https://cdn.print-api.example.com/mockups/tulips-front.jpg'],
    published: true,
    platformOptions: {
      taxonomyId: 2078,
      shippingProfileId: shop.setup.shippingProfiles[0],
      readinessStateId: shop.setup.readinessStates[0],
      returnPolicyId: shop.setup.returnPolicies[0],
    },
    ...over,
  });
  const listing = (id: string) => shop.listings.find((l) => String(l.listing_id) === id)!;

  before(async () => {
    server = await startFakePlatformServer();
    etsy.serve(server);
  });
  beforeEach(() => {
    shop = etsy.addShop();
    const tokens = etsy.issueTokens(shop);
    ctx = server.context(
      'etsy',
      settingsSchema.parse({ keystring: APP.keystring, sharedSecret: APP.sharedSecret, apiUrl: etsy.url }),
      PUBLIC_URL,
    );
    store = {
      externalId: shop.shopId,
      name: shop.shopName,
      credentials: {
        shopId: shop.shopId,
        userId: shop.userId,
        accessToken: tokens.accessToken,
        accessTokenExpiresAt: tokens.expiresAt.toISOString(),
        refreshToken: tokens.refreshToken,
        scopes: [...ALL_SCOPES],
      },
    };
  });
  // Every call kept to Etsy's Open API v3 document: operation, parameters, form and JSON bodies, the token's scopes.
  afterEach(() => expect(etsy.contractLog.violations.splice(0)).to.deep.equal([]));
  after(async () => server?.close());

  it("says the shop's currency and country (getShop's shop_location_country_iso; null when the shop has not set it)", async () => {
    expect(await etsyConnector.storeCurrency!(ctx, store)).to.equal('USD');
    expect(await etsyConnector.storeCountry!(ctx, store)).to.equal('US');
    shop.setup.country = null;
    expect(await etsyConnector.storeCountry!(ctx, store)).to.equal(null);
  });

  it('creates a draft listing with the SKU and the exact price on its only offering, and says what Etsy still needs to list it', async () => {
    const made = await etsyConnector.publishListing!(ctx, store, draft());

    expect(made).to.deep.include({
      status: 'draft',
      url: `https://www.etsy.com/listing/${made.externalProductId}/tulip-poster-a2-matte-print`,
    });
    expect(made.notice).to.equal(
      'Etsy keeps the listing a draft: it needs an image (Etsy takes image files only, not URLs: upload one to the listing in Shop Manager, then publish it again). Its images were not sent: https://cdn.print-api.example.com/mockups/tulips-front.jpg.',
    );
    const held = listing(made.externalProductId);
    expect(held).to.deep.include({
      state: 'draft',
      title: 'Tulip poster A2 - matte print',
      quantity: 999,
      skus: ['POSTER-TULIPS-A2'],
      taxonomy_id: 2078,
      who_made: 'i_did',
      when_made: 'made_to_order',
      shipping_profile_id: shop.setup.shippingProfiles[0],
    });
    const [product] = held.inventory.products;
    expect(String(product!.product_id)).to.equal(made.externalVariantId);
    expect(product!.offerings.map((o) => [o.price, o.quantity, o.is_enabled])).to.deep.equal([
      [{ amount: 2495, divisor: 100, currency_code: 'USD' }, 999, true],
    ]);
    // The price went as Etsy's document types it: the form's decimal text, the inventory's JSON number, both from the
    // cents exactly.
    expect(new URLSearchParams(etsy.seen(/^POST .*\/listings$/)[0]!.body).get('price')).to.equal('24.95');
    expect(JSON.parse(etsy.seen(/^PUT .*\/inventory$/)[0]!.body).products[0].offerings[0]).to.deep.equal({
      price: 24.95,
      quantity: 999,
      is_enabled: true,
      readiness_state_id: shop.setup.readinessStates[0],
    });
  });

  it("gives a draft naming only a taxonomy the shop's only shipping profile, processing profile and return policy (no ids typed), and puts it on sale once the merchant uploaded an image: listListings then finds it", async () => {
    const made = await etsyConnector.publishListing!(
      ctx,
      store,
      draft({ imageUrls: [], platformOptions: { taxonomyId: 2078 } }),
    );
    expect(made.notice).to.equal(
      'Etsy keeps the listing a draft: it needs an image (Etsy takes image files only, not URLs: upload one to the listing in Shop Manager, then publish it again).',
    );
    const sent = new URLSearchParams(etsy.seen(/^POST .*\/listings$/).at(-1)!.body);
    expect([
      sent.get('shipping_profile_id'),
      sent.get('readiness_state_id'),
      sent.get('return_policy_id'),
    ]).to.deep.equal(
      [shop.setup.shippingProfiles[0], shop.setup.readinessStates[0], shop.setup.returnPolicies[0]].map(String),
    );
    expect(listing(made.externalProductId)).to.deep.include({ shipping_profile_id: shop.setup.shippingProfiles[0] });
    const ref = { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId };
    // Etsy refuses to activate it, and says why.
    const refused = await failure(etsyConnector.updateListing!(ctx, store, ref, { published: true }));
    expect(refused).to.include({
      kind: 'invalid_payload',
      message: 'Etsy answered 400: A listing must have at least one image before it can be activated',
    });

    const complete = await etsyConnector.publishListing!(ctx, store, draft());
    shop.setup.images.set(complete.externalProductId, 1);
    const live = await etsyConnector.updateListing!(
      ctx,
      store,
      { externalProductId: complete.externalProductId, externalVariantId: complete.externalVariantId },
      { published: true },
    );
    expect(live.status).to.equal('active');
    const found = (await etsyConnector.listListings!(ctx, store, null)).listings.filter(
      (l) => l.sku === 'POSTER-TULIPS-A2',
    );
    expect(found).to.deep.equal([
      {
        externalProductId: complete.externalProductId,
        externalVariantId: complete.externalVariantId,
        sku: 'POSTER-TULIPS-A2',
        title: 'Tulip poster A2 - matte print',
        active: true,
      },
    ]);
    expect(
      await etsyConnector.getListing!(ctx, store, {
        externalProductId: complete.externalProductId,
        externalVariantId: complete.externalVariantId,
      }),
    ).to.deep.include({ status: 'active' });
  });

  it('answers PlatformOptionsRequired naming each choice by name where the shop has several and none was chosen, making nothing', async () => {
    shop.setup.shippingProfiles.push(190712399);
    shop.setup.names.set(shop.setup.shippingProfiles[0]!, 'Standard, from Utrecht');
    shop.setup.names.set(190712399, 'Express');
    shop.setup.returnPolicies.push(1203456790);
    const refused = await etsyConnector.publishListing!(
      ctx,
      store,
      draft({ platformOptions: { taxonomyId: 2078 } }),
    ).then(
      () => expect.fail('published without a choice'),
      (err: unknown) => err as { name: string; kind: string; options: unknown },
    );
    expect(refused).to.deep.include({ name: 'PlatformOptionsRequired', kind: 'invalid_payload' });
    expect(refused.options).to.deep.equal([
      {
        option: 'shippingProfileId',
        label: 'shipping profile',
        choices: [
          { id: String(shop.setup.shippingProfiles[0]), name: 'Standard, from Utrecht' },
          { id: '190712399', name: 'Express' },
        ],
      },
      {
        option: 'returnPolicyId',
        label: 'return policy',
        choices: [
          { id: String(shop.setup.returnPolicies[0]), name: 'Returns within 30 days' },
          { id: '1203456790', name: 'Returns within 30 days' },
        ],
      },
    ]);
    expect(etsy.seen(new RegExp(`^POST .*/shops/${shop.shopId}/listings$`))).to.have.length(0);
    // Chosen: published with those.
    const made = await etsyConnector.publishListing!(
      ctx,
      store,
      draft({ platformOptions: { taxonomyId: 2078, shippingProfileId: 190712399, returnPolicyId: 1203456790 } }),
    );
    expect(listing(made.externalProductId)).to.deep.include({ shipping_profile_id: 190712399 });
  });

  it("the fake refuses what Etsy's document says in prose: a physical draft without a shipping profile, who_made/when_made/is_supply apart", async () => {
    const draftCall = async (fields: Record<string, string>) => {
      const res = await ctx.http.request({
        method: 'POST',
        url: `${etsy.url}/v3/application/shops/${shop.shopId}/listings`,
        headers: {
          'x-api-key': `${APP.keystring}:${APP.sharedSecret}`,
          authorization: `Bearer ${store.credentials.accessToken}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          quantity: '999',
          title: 'Tulip poster',
          description: 'Tulips',
          price: '24.95',
          taxonomy_id: '2078',
          ...fields,
        }).toString(),
      });
      return [res.status, JSON.parse(res.body).error];
    };
    const made = { who_made: 'i_did', when_made: 'made_to_order', is_supply: 'false' };
    expect(await draftCall(made)).to.deep.equal([400, 'A shipping_profile_id is required for physical listings.']);
    const profile = { shipping_profile_id: String(shop.setup.shippingProfiles[0]) };
    expect(await draftCall({ ...profile, who_made: 'i_did', when_made: 'made_to_order' })).to.deep.equal([
      400,
      'who_made, when_made and is_supply must be given together.',
    ]);
    expect((await draftCall({ ...profile, ...made }))[0]).to.equal(201);
  });

  it('refuses to publish to a shop without a shipping profile, saying where to make one', async () => {
    shop.setup.shippingProfiles.length = 0;
    const refused = await failure(
      etsyConnector.publishListing!(ctx, store, draft({ platformOptions: { taxonomyId: 2078 } })),
    );
    expect(refused.kind).to.equal('invalid_payload');
    expect(refused.message).to.contain('The Etsy shop has no shipping profile');
  });

  it("never writes back a draft's null readiness_state_id when repricing (Etsy gives it for active listings only)", async () => {
    const made = await etsyConnector.publishListing!(ctx, store, draft({ platformOptions: { taxonomyId: 2078 } }));
    await etsyConnector.updateListing!(
      ctx,
      store,
      { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId },
      { priceCents: 2995 },
    );
    const written = JSON.parse(etsy.seen(/^PUT .*\/inventory$/).at(-1)!.body);
    expect(written.products[0].offerings[0]).to.include({
      price: 29.95,
      readiness_state_id: shop.setup.readinessStates[0],
    });
  });

  it('changes the title and the price (the inventory written back whole, the product id it has now answered)', async () => {
    const made = await etsyConnector.publishListing!(ctx, store, draft());
    const changed = await etsyConnector.updateListing!(
      ctx,
      store,
      { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId },
      { title: 'Tulip poster A1', priceCents: 3900, currency: 'USD' },
    );
    const held = listing(made.externalProductId);
    expect(held.title).to.equal('Tulip poster A1');
    expect(held.inventory.products.map((p) => [p.sku, p.offerings[0]!.price.amount])).to.deep.equal([
      ['POSTER-TULIPS-A2', 3900],
    ]);
    expect(changed).to.deep.include({
      status: 'draft',
      externalVariantId: String(held.inventory.products[0]!.product_id),
    });
  });

  it('unpublishes an active listing by deactivating it (kept for its receipts); a draft stays a draft, a listing already gone is not an error', async () => {
    const made = await etsyConnector.publishListing!(ctx, store, draft());
    const ref = { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId };
    await etsyConnector.unpublishListing!(ctx, store, ref);
    expect(listing(made.externalProductId).state).to.equal('draft');
    shop.setup.images.set(made.externalProductId, 1);
    await etsyConnector.updateListing!(ctx, store, ref, { published: true });
    await etsyConnector.unpublishListing!(ctx, store, ref);
    expect(listing(made.externalProductId).state).to.equal('inactive');
    expect((await etsyConnector.listListings!(ctx, store, null)).listings.map((l) => l.sku)).not.to.include(
      'POSTER-TULIPS-A2',
    );
    await etsyConnector.unpublishListing!(ctx, store, { externalProductId: '4999999999', externalVariantId: null });
  });

  it("fails invalid_payload with Etsy's reason when it refuses the listing; refuses a missing taxonomy, unknown options and another currency before any write", async () => {
    const twice = await failure(etsyConnector.publishListing!(ctx, store, draft({ title: 'Tulips & roses & more' })));
    expect(twice).to.include({
      kind: 'invalid_payload',
      message: 'Etsy answered 400: title may use the & character only once',
    });
    expect((await failure(etsyConnector.publishListing!(ctx, store, draft({ platformOptions: {} })))).message).to.match(
      /^Etsy needs a taxonomy/,
    );
    expect(
      (
        await failure(
          etsyConnector.publishListing!(
            ctx,
            store,
            draft({ platformOptions: { taxonomyId: 2078, whoMade: 'robot', colour: 'red' } }),
          ),
        )
      ).message,
    ).to.equal(
      'Etsy\'s platformOptions: whoMade: Invalid option: expected one of "i_did"|"someone_else"|"collective"; (options): Unrecognized key: "colour"',
    );
    expect((await failure(etsyConnector.publishListing!(ctx, store, draft({ currency: 'EUR' })))).message).to.equal(
      'The Etsy shop sells in USD, not EUR: give the price in USD.',
    );
    expect(
      etsy.seen(new RegExp(`^POST /v3/application/shops/${shop.shopId}/listings$`)).filter((c) => c.status === 201),
    ).to.deep.equal([]);
  });

  it('fails rate_limited with the wait when Etsy answers 429, and auth for a shop connected without listings_w', async () => {
    etsy.faultNext(/^POST .*\/listings$/, [429, { error: 'Too many requests' }, { 'retry-after': '5' }]);
    expect(await failure(etsyConnector.publishListing!(ctx, store, draft()))).to.include({
      kind: 'rate_limited',
      retryAfterMs: 5000,
    });
    const readOnly = {
      ...store,
      credentials: { ...store.credentials, scopes: ALL_SCOPES.filter((s) => s !== 'listings_w') },
    };
    const denied = await failure(etsyConnector.publishListing!(ctx, readOnly, draft()));
    expect(denied.kind).to.equal('auth');
    expect(denied.message).to.contain('listings_w');
  });
});
