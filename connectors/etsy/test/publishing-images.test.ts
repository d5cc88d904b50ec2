import { expect } from 'chai';
import type { ConnectorContext, MultipartField, StoreConnection } from '@print-api/connector-kit';
import {
  connectorFailure as failure,
  tinyHtml,
  tinyJpeg,
  tinyPng,
  type FakePlatformServer,
} from '@print-api/core/testing';
import type { EtsyCredentials, EtsySettings } from '../src/config.ts';
import { etsyConnector } from '../src/index.ts';
import { APP, type FakeEtsyShop } from './fake-etsy.ts';
import { etsyPublishing } from './publishing-setup.ts';

// Etsy takes image files, not URLs: the product's images are downloaded through core's guard and uploaded
// (uploadListingImage, multipart) before the listing goes on sale.
describe("Etsy publishing: the product's images, and what Etsy's document says in prose", () => {
  const { etsy, world, draft, listing } = etsyPublishing();
  let server: FakePlatformServer;
  let shop: FakeEtsyShop;
  let ctx: ConnectorContext<EtsySettings>;
  let store: StoreConnection<EtsyCredentials>;
  beforeEach(() => ({ server, shop, ctx, store } = world()));

  it('uploads several images in their order (a redirect to the file followed, the type its bytes are), draft or not', async () => {
    const made = await etsyConnector.publishListing!(
      ctx,
      store,
      draft({ published: false, imageUrls: [`${server.url}/mockups/tulips-front.jpg`, `${server.url}/mockups/back`] }),
    );
    expect([made.status, made.notice]).to.deep.equal(['draft', undefined]);
    expect(
      shop.setup.images.get(made.externalProductId)!.map((i) => [i.rank, i.filename, i.type, i.bytes.length]),
    ).to.deep.equal([
      [1, 'tulips-front.jpg', 'jpeg', tinyJpeg().length],
      [2, 'back.png', 'png', tinyPng().length],
    ]);
  });

  it('refuses an image URL that gives no image Etsy lists, or redirects to a private address, before anything is made', async () => {
    const page = await failure(
      etsyConnector.publishListing!(ctx, store, draft({ imageUrls: [`${server.url}/mockups/page.jpg`] })),
    );
    expect(page).to.include({
      kind: 'invalid_payload',
      message: `Etsy takes image files, and imageUrls[0] gives none: The file at ${server.url}/mockups/page.jpg is of a type its bytes do not tell, not one of image/jpeg, image/png, image/gif`,
    });
    const internal = await failure(
      etsyConnector.publishListing!(ctx, store, draft({ imageUrls: [`${server.url}/mockups/internal`] })),
    );
    expect(internal.message).to.equal(
      `Etsy takes image files, and imageUrls[0] gives none: The file at ${server.url}/mockups/internal (redirected to https://169.254.169.254/latest/meta-data/): 169.254.169.254 is not a public internet address`,
    );
    const eleven = Array.from({ length: 11 }, () => `${server.url}/mockups/tulips-front.jpg`);
    expect((await failure(etsyConnector.publishListing!(ctx, store, draft({ imageUrls: eleven })))).message).to.equal(
      'Etsy keeps at most 10 images per listing: give at most 10 imageUrls.',
    );
    expect(etsy.seen(new RegExp(`^POST /v3/application/shops/${shop.shopId}/listings`))).to.deep.equal([]);
  });

  it('keeps the draft (with its SKU) when Etsy refuses the image or the activation, saying why: never a second draft', async () => {
    etsy.faultNext(/^POST .*\/images$/, [
      400,
      { error: 'Either a valid image file or a listing_image_id must be provided.' },
    ]);
    const refused = await etsyConnector.publishListing!(ctx, store, draft());
    expect(refused).to.deep.include({
      status: 'draft',
      notice:
        'Etsy keeps the listing a draft: it needs an image: imageUrls[0] could not be uploaded (Etsy answered 400: Either a valid image file or a listing_image_id must be provided.); upload one to the listing in Shop Manager, then publish it again.',
    });
    expect(listing(refused.externalProductId).skus).to.deep.equal(['POSTER-TULIPS-A2']);
    etsy.faultNext(/^PATCH .*\/listings\/\d+$/, [409, { error: 'The listing cannot be activated right now' }]);
    const inactive = await etsyConnector.publishListing!(ctx, store, draft());
    expect(inactive).to.deep.include({
      status: 'draft',
      notice:
        'Etsy keeps the listing a draft: putting it on sale failed (Etsy answered 409: The listing cannot be activated right now); publish it again.',
    });
    expect(shop.setup.images.get(inactive.externalProductId)).to.have.length(1);
  });

  it("refuses what Etsy's document says in prose: a physical draft without a shipping profile, who_made/when_made/is_supply apart", async () => {
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

  it("holds uploadListingImage to Etsy's document: a file in `image` (not a text field, not a form-encoded body), an image Etsy reads", async () => {
    const made = await etsyConnector.publishListing!(ctx, store, draft({ imageUrls: [] }));
    const upload = (req: { multipart?: MultipartField[]; body?: string }) =>
      ctx.http
        .request({
          method: 'POST',
          url: `${etsy.url}/v3/application/shops/${shop.shopId}/listings/${made.externalProductId}/images`,
          headers: {
            'x-api-key': `${APP.keystring}:${APP.sharedSecret}`,
            authorization: `Bearer ${store.credentials.accessToken}`,
            ...(req.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          ...req,
        })
        .then((res) => [res.status, JSON.parse(res.body).error]);
    const file = (bytes: Uint8Array): MultipartField => ({
      name: 'image',
      file: { bytes, filename: 'a.jpg', contentType: 'image/jpeg' },
    });
    expect(await upload({ multipart: [{ name: 'image', value: 'tulips.jpg' }] })).to.deep.equal([
      400,
      'Etsy Open API v3 uploadListingImage: body.image must be a file (format binary), not a text field',
    ]);
    expect(await upload({ body: 'rank=1' })).to.deep.equal([
      400,
      'Etsy Open API v3 uploadListingImage: content type application/x-www-form-urlencoded is not one of multipart/form-data',
    ]);
    expect(await upload({ multipart: [file(tinyHtml()), { name: 'rank', value: '1' }] })).to.deep.equal([
      400,
      'Either a valid image file or a listing_image_id must be provided.',
    ]);
    expect((await upload({ multipart: [file(tinyJpeg()), { name: 'rank', value: '1' }] }))[0]).to.equal(201);
    // The refusals above were provoked on purpose.
    etsy.contractLog.violations.splice(0);
  });
});
