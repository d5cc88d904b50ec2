import { expect } from 'chai';
import { minorUnitsToDecimal } from '@print-api/connector-kit';
import { wooCommerceConnector } from '@print-api/connector-woocommerce';
import { FakeWooStore } from '../../../connectors/woocommerce/test/fake-woo-store.ts';
import type { TestBrowser } from '../helpers/browser.ts';
import {
  DASHBOARD_PUBLIC_URL as PUBLIC_URL,
  dashboardBrowserSuite,
  signInToDashboard,
} from '../helpers/dashboard-browser.ts';
import { eventually, posterReseller, POSTER_SKU } from '../helpers/connector-e2e.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import type { TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * "Publish to store" on a product's page in headless Chromium: the margin a retail price leaves
 * (our quote for one piece, shipping and VAT included, for the store's country), then the
 * product published to a (fake) WooCommerce store with its SKU and that price, and listed on the
 * page among the stores it is published to; a session whose key may not read stores sees none of them there.
 */
describe('publishing a product from the dashboard in a browser (real PostgreSQL + Redis, Chromium)', function () {
  this.timeout(scaled(240_000));
  let t: TestService;
  let files: TestHttpsServer;
  let b: TestBrowser | undefined;
  dashboardBrowserSuite([wooCommerceConnector], (started) => ({ t, files, b } = started));

  it("shows the margin of a retail price for the store's country, publishes the product to the store and lists the store on its page", async () => {
    const r = await posterReseller(t, files);
    const shop = new FakeWooStore({ host: 'dash-publish.example.com', ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    // A Belgian store: its address says so (WooCommerce > Settings > General).
    shop.defaultCountry = 'BE';
    const store = await t.api(r.key, 'POST', '/stores', {
      platform: 'WOOCOMMERCE',
      storeUrl: shop.url,
      consumerKey: shop.consumerKey,
      consumerSecret: shop.consumerSecret,
    });
    expect(store.status, JSON.stringify(store.body)).to.equal(201);
    // Learned once the store's first listings sync has read it.
    await eventually(
      async () => (await t.api(r.key, 'GET', `/stores/${store.body.data.id}`)).body.data.country === 'BE',
      "the store's country",
    );
    const product = (await t.api(r.key, 'GET', `/reseller-products/${POSTER_SKU}`)).body.data;
    const quote = await t.api(r.key, 'POST', '/quotes', {
      lines: [{ resellerSku: POSTER_SKU, quantity: 1 }],
      country: 'BE',
    });
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    const ours = quote.body.data.totals.totalCents as number;
    const euros = (cents: number) => `€${minorUnitsToDecimal(cents, 'EUR')}`;

    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    await page.goto(`${t.baseUrl}/dashboard/products/${product.id}`);
    expect(await page.getByText('Not published to any store yet.').count()).to.equal(1);

    const form = page.getByRole('form', { name: 'Publish to store' });
    await form.getByLabel('Store', { exact: true }).selectOption(store.body.data.id);
    await form.getByLabel('Title in the store').fill('Tulips at dawn, A2 poster');
    const price = form.getByLabel("Retail price in the store's currency (your customers pay)");
    // A price below ours: the margin is shown negative, never refused.
    await price.fill('1.00');
    await form.getByRole('button', { name: 'Show margin' }).click();
    await page.getByTestId('margin').waitFor();
    expect(await page.getByTestId('margin').textContent())
      .to.contain(`Margin: -${euros(ours - 100)} per piece`)
      .and.to.contain('The price does not cover ours.');
    await page
      .getByRole('form', { name: 'Publish to store' })
      .getByLabel("Retail price in the store's currency (your customers pay)")
      .fill('39.95');
    // The country typed is only for a store whose country is unknown: this one's is BE.
    await form.getByLabel("Your customers' country, where the store's is unknown (for shipping and VAT)").fill('DE');
    await page.getByRole('form', { name: 'Publish to store' }).getByRole('button', { name: 'Show margin' }).click();
    const margin = page.getByTestId('margin');
    // The page of the second submission: the margin of the new price.
    const text = await eventually(async () => {
      const shown = await margin.textContent().catch(() => null);
      return shown?.includes(euros(3995)) ? shown : undefined;
    }, 'the margin of 39.95');
    expect(text)
      .to.contain(`Margin: ${euros(3995 - ours)} per piece (${euros(3995)} retail − ${euros(ours)} our price`)
      .and.to.contain("shipping and VAT to BE included; BE: the store's country");
    expect(shop.seen('POST', /\/wc\/v3\/products$/)).to.have.length(0);

    await page.getByRole('form', { name: 'Publish to store' }).getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(/done=listing-published/);
    const listed = page.getByTestId('published-to');
    expect(await listed.textContent()).to.contain('Tulips at dawn, A2 poster, 39.95 EUR, on sale');
    const [created] = [...shop.products.values()].filter((p) => p.sku === POSTER_SKU);
    expect(created).to.deep.include({ name: 'Tulips at dawn, A2 poster', regular_price: '39.95', status: 'publish' });
    // Listed by a link of ours: the page says it cannot be deleted.
    expect(await page.getByTestId('delete-blocked').count()).to.equal(1);
    await page.close();
  });

  it('shows the stores a product is sold in and published to only to a session whose key may read stores', async () => {
    const r = await posterReseller(t, files);
    const shop = new FakeWooStore({ host: 'dash-scopes.example.com', ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    shop.defaultCountry = 'NL';
    const store = await t.api(r.key, 'POST', '/stores', {
      platform: 'WOOCOMMERCE',
      storeUrl: shop.url,
      consumerKey: shop.consumerKey,
      consumerSecret: shop.consumerSecret,
    });
    expect(store.status, JSON.stringify(store.body)).to.equal(201);
    const storeId = store.body.data.id as string;
    const storeName = store.body.data.name as string;
    await eventually(
      async () => (await t.api(r.key, 'GET', `/stores/${storeId}`)).body.data.country === 'NL',
      "the store's country",
    );
    const listing = await t.api(r.key, 'POST', `/stores/${storeId}/listings`, {
      resellerProduct: POSTER_SKU,
      title: 'Tulips at noon, A2 poster',
      priceCents: 3495,
    });
    expect(listing.status, JSON.stringify(listing.body)).to.equal(201);
    const product = (await t.api(r.key, 'GET', `/reseller-products/${POSTER_SKU}`)).body.data;
    const productPage = `${t.baseUrl}/dashboard/products/${product.id}`;
    const storeLinks = `main a[href="/dashboard/stores/${storeId}"]`;

    // A key with every scope: the store is named, and linked, under "Sold in" and "Published to".
    const full = await (await b!.isolated()).newPage();
    await signInToDashboard(full, t, r.key);
    await full.goto(productPage);
    expect(await full.locator(storeLinks).count()).to.equal(2);
    expect(await full.getByTestId('published-to').textContent()).to.contain(storeName);

    // A key that reads and writes products but not stores: nothing of the store on the same page.
    const narrow = await t.admin('POST', `/resellers/${r.id}/api-keys`, {
      mode: 'live',
      scopes: ['catalog:read', 'reseller-products:read', 'reseller-products:write', 'dashboard'],
    });
    expect(narrow.status, JSON.stringify(narrow.body)).to.equal(201);
    const page = await (await b!.isolated()).newPage();
    await signInToDashboard(page, t, narrow.body.data.key);
    const answer = await page.goto(productPage);
    expect(answer!.status()).to.equal(200);
    expect(await page.getByRole('heading', { name: `Product ${POSTER_SKU}` }).count()).to.equal(1);
    expect(await page.locator('a[href^="/dashboard/stores"]').count()).to.equal(0);
    expect(await page.getByTestId('published-to').count()).to.equal(0);
    const body = (await page.locator('body').textContent())!;
    expect(body).to.not.contain(storeName);
    // It says why nothing is listed, rather than that no store sells or lists it.
    expect(await page.getByTestId('stores-hidden').textContent()).to.contain('lacks the stores:read permission');
    expect(body).to.not.contain('No connected store sells it');
    expect(body).to.not.contain('Not published to any store yet');
  });
});
