import { expect } from 'chai';
import type { ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { connectorFailure as failure, tinyJpeg } from '@print-api/core/testing';
import type { EtsyCredentials, EtsySettings } from '../src/config.ts';
import { etsyConnector } from '../src/index.ts';
import { ALL_SCOPES, type FakeEtsyShop } from './fake-etsy.ts';
import { uploadInShopManager } from './fake-etsy-listings.ts';
import { etsyPublishing } from './publishing-setup.ts';

describe('Etsy publishing (createDraftListing, updateListingInventory, uploadListingImage, updateListing)', () => {
  const { etsy, world, draft, listing } = etsyPublishing();
  let shop: FakeEtsyShop;
  let ctx: ConnectorContext<EtsySettings>;
  let store: StoreConnection<EtsyCredentials>;
  beforeEach(() => ({ shop, ctx, store } = world()));

  it("says the shop's currency and country (getShop's shop_location_country_iso; null when the shop has not set it)", async () => {
    expect(await etsyConnector.storeCurrency!(ctx, store)).to.equal('USD');
    expect(await etsyConnector.storeCountry!(ctx, store)).to.equal('US');
    shop.setup.country = null;
    expect(await etsyConnector.storeCountry!(ctx, store)).to.equal(null);
  });

  it("creates the listing with the SKU and the exact price on its only offering, uploads the product's image and puts it on sale", async () => {
    const made = await etsyConnector.publishListing!(ctx, store, draft());

    expect(made).to.deep.equal({
      externalProductId: made.externalProductId,
      externalVariantId: made.externalVariantId,
      status: 'active',
      url: `https://www.etsy.com/listing/${made.externalProductId}/tulip-poster-a2-matte-print`,
    });
    // The draft first, its SKU and price, its image, then on sale: Etsy activates no listing without an image.
    const mine = (c: { method: string; path: string }) =>
      c.path.startsWith(`/v3/application/shops/${shop.shopId}/`) || c.path.includes(made.externalProductId);
    expect(
      etsy.calls
        .filter((c) => c.method !== 'GET' && mine(c))
        .map(
          (c) =>
            `${c.method} ${c.path.replace(shop.shopId, ':shop').replace(made.externalProductId, ':listing')} ${c.status}`,
        ),
    ).to.deep.equal([
      'POST /v3/application/shops/:shop/listings 201',
      'PUT /v3/application/listings/:listing/inventory 200',
      'POST /v3/application/shops/:shop/listings/:listing/images 201',
      'PATCH /v3/application/shops/:shop/listings/:listing 200',
    ]);
    // The file itself went, as Etsy's document asks: multipart, the bytes in `image`, named after the URL.
    const [image] = shop.setup.images.get(made.externalProductId)!;
    expect(image).to.deep.include({ rank: 1, alt_text: 'Tulip poster A2 - matte print', filename: 'tulips-front.jpg' });
    expect(image!.bytes.equals(tinyJpeg())).to.equal(true);
    expect(
      etsy.seen(new RegExp(`/listings/${made.externalProductId}/images$`))[0]!.headers.get('content-type'),
    ).to.match(/^multipart\/form-data; boundary=/);
    const held = listing(made.externalProductId);
    expect(held).to.deep.include({
      state: 'active',
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

  it("keeps a product without an image a draft and says why, with the shop's only shipping profile, processing profile and return policy (no ids typed); puts it on sale once the merchant uploaded an image: listListings then finds it", async () => {
    const made = await etsyConnector.publishListing!(
      ctx,
      store,
      draft({ imageUrls: [], platformOptions: { taxonomyId: 2078 } }),
    );
    expect(made).to.deep.include({
      status: 'draft',
      notice:
        'Etsy keeps the listing a draft: it needs an image (Etsy lists nothing without one): give imageUrls, or upload one to the listing in Shop Manager, then publish it again.',
    });
    // Never an image of our making.
    expect(shop.setup.images.get(made.externalProductId) ?? []).to.deep.equal([]);
    expect(etsy.seen(new RegExp(`/listings/${made.externalProductId}/images$`))).to.deep.equal([]);
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

    uploadInShopManager(shop, made.externalProductId);
    const live = await etsyConnector.updateListing!(ctx, store, ref, { published: true });
    expect(live.status).to.equal('active');
    const complete = made;
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

  it('refuses to publish to a shop without a shipping profile, saying where to make one', async () => {
    shop.setup.shippingProfiles.length = 0;
    const refused = await failure(
      etsyConnector.publishListing!(ctx, store, draft({ platformOptions: { taxonomyId: 2078 } })),
    );
    expect(refused.kind).to.equal('invalid_payload');
    expect(refused.message).to.contain('The Etsy shop has no shipping profile');
  });

  it("never writes back a draft's null readiness_state_id when repricing (Etsy gives it for active listings only)", async () => {
    const made = await etsyConnector.publishListing!(
      ctx,
      store,
      draft({ published: false, platformOptions: { taxonomyId: 2078 } }),
    );
    expect([made.status, made.notice]).to.deep.equal(['draft', undefined]);
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
    const made = await etsyConnector.publishListing!(ctx, store, draft({ published: false }));
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
    const kept = await etsyConnector.publishListing!(ctx, store, draft({ published: false }));
    await etsyConnector.unpublishListing!(ctx, store, kept);
    expect(listing(kept.externalProductId).state).to.equal('draft');
    const made = await etsyConnector.publishListing!(ctx, store, draft());
    const ref = { externalProductId: made.externalProductId, externalVariantId: made.externalVariantId };
    expect(listing(made.externalProductId).state).to.equal('active');
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
