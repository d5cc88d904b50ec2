import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { sandboxConnector } from '@print-api/connector-sandbox';
import type { TestBrowser } from '../helpers/browser.ts';
import { dashboardBrowserSuite, signInToDashboard } from '../helpers/dashboard-browser.ts';
import { eventually } from '../helpers/connector-e2e.ts';
import type { TestService } from '../helpers/test-service.ts';

/** The reseller's product, and the merchant's own SKU for the listing in the sandbox store (none of theirs). */
const OUR_SKU = 'POSTER-TULIPS-A2';
const OWN_SKU = 'TULIP-FIELDS-A2';

/** Reloads `path` until `ready` holds (a sync or ingest runs in the background). */
async function reloadUntil(page: Page, url: string, ready: () => Promise<boolean>, what: string): Promise<void> {
  await eventually(
    async () => {
      await page.goto(url);
      return ready();
    },
    what,
    30_000,
  );
}

/**
 * Issue 37's merchant, from the dashboard alone (headless Chromium): a product made, a sandbox
 * store tried, a listing added to it under the merchant's own SKU, an order of that listing
 * received and skipped, the listing mapped, the skipped order retried and placed, printed and its
 * tracking back in the sandbox store. Along the way, the sandbox forms' words and layout.
 */
describe('the sandbox store end to end from the dashboard (Chromium)', function () {
  this.timeout(300_000);
  let t: TestService;
  let b: TestBrowser | undefined;
  dashboardBrowserSuite([sandboxConnector], (started) => ({ t, b } = started));

  it('makes a sandbox store, lists a product, receives its order, maps, retries, and sees it printed and tracked', async () => {
    const r = await t.reseller({ mode: 'test' });
    const sample = (await t.api(r.key, 'GET', '/products/posters')).body.data.sampleFiles[0].url as string;
    const page = await b!.page();
    await signInToDashboard(page, t, r.key);

    // A product of the merchant's, made on the dashboard.
    await page.goto(`${t.baseUrl}/dashboard/products/new`);
    const make = page.getByRole('form', { name: 'New product' });
    await make.getByLabel('SKU (as in your store)').fill(OUR_SKU);
    await make.getByLabel('Title').fill('Tulip poster A2');
    await make.getByLabel('Print product').selectOption('posters');
    await make.getByLabel('Default artwork URL (https, optional)').fill(sample);
    await make.getByRole('button', { name: 'Create product' }).click();
    await page.waitForURL(/done=product-created/);

    // A sandbox store, in one click; the connect form speaks of no admin the sandbox does not have.
    await page.goto(`${t.baseUrl}/dashboard/stores`);
    expect(await page.content()).not.to.contain('Sandbox admin');
    await page.getByRole('button', { name: 'Try a sandbox store' }).click();
    await page.waitForURL(/\/dashboard\/stores\/sto_[^?]+\?done=store-connected/);
    const storePath = new URL(page.url()).pathname;
    const storeUrl = `${t.baseUrl}${storePath}`;
    // No shop id shown as if it were an address.
    expect(await page.locator('dl.facts').textContent()).not.to.match(/Address|sbs_/);

    // The order form: the Paid box beside its label, the merchant's SKUs suggested, an empty line refused in words.
    const orderForm = page.getByRole('form', { name: 'Make a store order' });
    const box = (await orderForm.getByRole('checkbox', { name: /Paid/ }).boundingBox())!;
    const label = (await orderForm.locator('label[for="sandbox-paid"]').boundingBox())!;
    expect(box.y + box.height / 2, 'the checkbox sits on its label’s line').to.be.within(
      label.y,
      label.y + label.height,
    );
    expect(await orderForm.getByLabel('SKU').getAttribute('list')).to.equal('own-skus');
    expect(
      await page.locator('datalist#own-skus option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))),
    ).to.deep.equal([OUR_SKU]);
    await orderForm.getByRole('button', { name: 'Make the store order' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#sandbox-sku-error').textContent()).to.equal(
      'Choose a listing, or type a SKU: a line with neither is nothing we could print.',
    );
    expect(await page.locator('tr[data-sandbox-order]').count()).to.equal(0);

    // A listing of the merchant's own SKU, added from the dashboard: it shows unmatched once the store's listings sync.
    const addListing = page.getByRole('form', { name: 'Add a listing to the sandbox store' });
    await addListing.getByLabel('Listing title').fill('Tulip fields poster');
    await addListing.getByLabel('Listing SKU (optional)').fill(OWN_SKU);
    await addListing.getByRole('button', { name: 'Add the listing' }).click();
    await page.waitForURL(/done=sandbox-listing-added/);
    expect(await page.locator('tr[data-sandbox-listing]').textContent()).to.contain(OWN_SKU);
    const mapForm = page.getByRole('form', { name: 'Map Tulip fields poster to a product' });
    await reloadUntil(page, storeUrl, async () => (await mapForm.count()) === 1, 'the listing unmatched');

    // A customer orders that listing: its line carries the listing, and it is skipped (not one of our SKUs).
    await page
      .getByRole('form', { name: 'Make a store order' })
      .getByLabel('Listing')
      .selectOption({ label: `Tulip fields poster (${OWN_SKU})` });
    await page
      .getByRole('form', { name: 'Make a store order' })
      .getByRole('button', { name: 'Make the store order' })
      .click();
    await page.waitForURL(/done=sandbox-order-made/);
    const received = page.getByRole('region', { name: 'Store orders received' });
    await reloadUntil(page, storeUrl, async () => /Skipped/.test((await received.textContent()) ?? ''), 'skipped');
    expect(await received.textContent()).to.contain(`${OWN_SKU} × 1: its SKU is none of your products`);

    // Mapped to the product, the skipped order is offered again and retried: placed, printed, tracked.
    await mapForm
      .getByLabel('Your product for Tulip fields poster')
      .selectOption({ label: `${OUR_SKU} (Tulip poster A2)` });
    await mapForm.getByRole('button', { name: 'Map to product' }).click();
    await page.waitForURL(/done=listing-mapped/);
    await page.getByRole('button', { name: 'Retry 1 skipped order' }).click();
    await page.waitForURL(/done=skipped-retried/);
    await reloadUntil(
      page,
      storeUrl,
      async () => (await received.getByRole('link', { name: /^ord_/ }).count()) === 1,
      'the skipped order placed',
    );
    await reloadUntil(
      page,
      storeUrl,
      async () => (await page.locator('tr[data-sandbox-order] a[href^="https://"]').count()) === 1,
      'the tracking pushed back to the sandbox store',
    );
    const orderId = (await received.getByRole('link', { name: /^ord_/ }).textContent())!;
    await page.goto(`${t.baseUrl}/dashboard/orders/${orderId}`);
    expect(['Shipped', 'Delivered']).to.include(await page.getByTestId('order-status').textContent());
    await page.close();
  });

  it('a store order line of a listed SKU carries the listing, and a published product links to the sandbox store', async () => {
    const r = await t.reseller({ mode: 'test' });
    const store = (await t.api(r.key, 'POST', '/stores', { platform: 'SANDBOX', name: 'Tulips' })).body.data;
    const listing = (
      await t.api(r.key, 'POST', `/stores/${store.id}/sandbox-listings`, { sku: OWN_SKU, title: 'Tulip fields' })
    ).body.data;
    const made = await t.api(r.key, 'POST', `/stores/${store.id}/sandbox-orders`, {
      lines: [
        { sku: OWN_SKU.toLowerCase(), quantity: 2 },
        { externalProductId: listing.externalProductId, quantity: 1 },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.data.lines.map((l: { externalProductId: string | null }) => l.externalProductId)).to.deep.equal([
      listing.externalProductId,
      listing.externalProductId,
    ]);
    expect(made.body.data.lines[1]).to.deep.include({ sku: OWN_SKU, title: 'Tulip fields' });
    const unknown = await t.api(r.key, 'POST', `/stores/${store.id}/sandbox-orders`, {
      lines: [{ externalProductId: 'sbp_nope', quantity: 1 }],
    });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.error.code).to.equal('unknown_listing');
    expect((await t.api(r.key, 'GET', `/stores/${store.id}/sandbox-listings`)).body.data).to.have.length(1);

    // Published to the sandbox store: "view in the store" stays in the dashboard (the sandbox has no web address).
    // The README's A2 poster: the second sample file is the A2 one, on a product fixed to A2.
    const a2 = (await t.api(r.key, 'GET', '/products/posters')).body.data.sampleFiles[1];
    expect(a2.format).to.equal('a2');
    expect(a2.url).to.match(/\/sample-files\/posters\/a2\.pdf$/);
    const product = await t.api(r.key, 'POST', '/reseller-products', {
      sku: OUR_SKU,
      title: 'Tulip poster A2',
      productId: 'posters',
      options: { size: 'a2' },
      fileUrl: a2.url,
    });
    expect(product.status, JSON.stringify(product.body)).to.equal(201);
    const published = await t.api(r.key, 'POST', `/stores/${store.id}/listings`, {
      resellerProduct: OUR_SKU,
      title: 'Tulip poster A2',
      priceCents: 2995,
      currency: 'EUR',
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(201);
    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    await page.goto(`${t.baseUrl}/dashboard/products/${OUR_SKU}`);
    const view = page.getByRole('link', { name: 'view in the sandbox store' });
    expect(await view.getAttribute('href')).to.equal(`/dashboard/stores/${store.id}#sandbox-listings-h`);
    expect(await page.content()).not.to.contain('print-api.invalid');
    await page.close();
  });
});
