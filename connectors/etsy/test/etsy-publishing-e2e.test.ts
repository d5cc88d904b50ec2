import { expect } from 'chai';
import {
  eventually,
  posterReseller,
  redirectTo,
  scaled,
  tinyPng,
  POSTER_SKU,
  type TestHttpsServer,
  type TestService,
} from '@print-api/core/testing';
import type { ConformanceService } from '@print-api/connector-kit/testing';
import { FakeEtsy } from './fake-etsy.ts';
import { etsyE2eService } from './etsy-e2e-service.ts';
import { install } from './etsy-platform.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const BROWSER = 'Mozilla/5.0 (print-api tests)';

// POST /stores/{id}/listings through the whole service: the product's image fetched from the merchant's host through
// core's guard, uploaded to Etsy as a file, and the listing put on sale; without one, a draft the dashboard explains.
describe('Etsy publishing end to end (real PostgreSQL + Redis, Etsy and the image host played by local HTTPS servers)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  let files: TestHttpsServer;
  const etsy = new FakeEtsy();
  etsyE2eService(etsy, PUBLIC_URL, (started) => {
    ({ t, files } = started);
    files.route('/art/to-metadata.png', redirectTo('https://169.254.169.254/latest/meta-data/iam'));
  });
  // Every call the connector made kept to Etsy's published contract, the image uploads' multipart bodies included.
  after(() => expect(etsy.contractLog.violations).to.deep.equal([]));

  const service = (): ConformanceService => ({
    baseUrl: t.baseUrl,
    publicUrl: PUBLIC_URL,
    toService: (u) => u.replace(PUBLIC_URL, t.baseUrl),
    api: async (key, method, path, body) => t.api(key, method, path, body),
  });

  async function connected() {
    const reseller = await posterReseller(t, files);
    const shop = etsy.addShop();
    const storeId = await install(service(), etsy, reseller.key, shop);
    await eventually(
      async () => etsy.seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts$`)).length > 0,
      'the first poll',
    );
    return { key: reseller.key, shop, storeId };
  }
  const poster = (over: Record<string, unknown> = {}) => ({
    resellerProduct: POSTER_SKU,
    title: 'Tulip poster A2',
    priceCents: 2495,
    platformOptions: { taxonomyId: 2078 },
    ...over,
  });

  /** The product's page in the reseller's dashboard, signed in through a dashboard link. */
  async function productPage(key: string): Promise<string> {
    const product = (await t.api(key, 'GET', `/reseller-products/${POSTER_SKU}`)).body.data as { id: string };
    const link = new URL((await t.api(key, 'POST', '/dashboard-links')).body.data.url);
    const session = await fetch(`${t.baseUrl}${link.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER },
      body: '',
    });
    await session.arrayBuffer();
    const cookie = session.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const page = await fetch(`${t.baseUrl}/dashboard/products/${product.id}`, {
      headers: { cookie, 'user-agent': BROWSER },
    });
    return page.text();
  }

  it("publishes a product with its image: the file downloaded from the merchant's host, uploaded to the draft, the listing on sale", async () => {
    const { key, shop, storeId } = await connected();
    const res = await t.api(
      key,
      'POST',
      `/stores/${storeId}/listings`,
      poster({ imageUrls: [`${files.url}/art/poster.png`] }),
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data).to.include({ status: 'active', notice: null, currency: 'USD' });
    const listingId = res.body.data.externalProductId as string;
    expect(shop.listings.find((l) => String(l.listing_id) === listingId)?.state).to.equal('active');
    const images = shop.setup.images.get(listingId)!;
    expect(images.map((i) => [i.rank, i.filename, i.type])).to.deep.equal([[1, 'poster.png', 'png']]);
    expect(images[0]!.bytes.equals(tinyPng())).to.equal(true);
  });

  it('keeps a product published without an image a draft, and the dashboard says why', async () => {
    const { key, storeId } = await connected();
    const res = await t.api(key, 'POST', `/stores/${storeId}/listings`, poster());
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const notice =
      'Etsy keeps the listing a draft: it needs an image (Etsy lists nothing without one): give imageUrls, or upload one to the listing in Shop Manager, then publish it again.';
    expect(res.body.data).to.include({ status: 'draft', notice });
    const page = await productPage(key);
    expect(page).to.match(/data-testid="published-to"[^]*draft[^]*data-testid="listing-notice"/);
    expect(page).to.contain(notice);
  });

  it('refuses an image URL that gives no image, or redirects to a private address (422 listing_rejected), making nothing on Etsy', async () => {
    const { key, shop, storeId } = await connected();
    const page = await t.api(
      key,
      'POST',
      `/stores/${storeId}/listings`,
      poster({ imageUrls: [`${files.url}/art/fake.pdf`] }),
    );
    expect(page.status, JSON.stringify(page.body)).to.equal(422);
    expect(page.body.error).to.include({
      code: 'listing_rejected',
      message: `Etsy takes image files, and imageUrls[0] gives none: The file at ${files.url}/art/fake.pdf is of a type its bytes do not tell, not one of image/jpeg, image/png, image/gif`,
    });
    const internal = await t.api(
      key,
      'POST',
      `/stores/${storeId}/listings`,
      poster({ imageUrls: [`${files.url}/art/to-metadata.png`] }),
    );
    expect(internal.status, JSON.stringify(internal.body)).to.equal(422);
    expect(internal.body.error.message).to.match(
      /redirected to https:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\): 169\.254\.169\.254 is not a public internet address$/,
    );
    expect(etsy.seen(new RegExp(`^POST /v3/application/shops/${shop.shopId}/listings`))).to.deep.equal([]);
    // Nothing was made, so a corrected request publishes.
    const fixed = await t.api(
      key,
      'POST',
      `/stores/${storeId}/listings`,
      poster({ imageUrls: [`${files.url}/art/poster.png`] }),
    );
    expect(fixed.status, JSON.stringify(fixed.body)).to.equal(201);
    expect(fixed.body.data.status).to.equal('active');
  });
});
