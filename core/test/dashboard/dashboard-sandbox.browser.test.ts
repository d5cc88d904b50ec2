import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { sandboxConnector } from '@print-api/connector-sandbox';
import type { TestBrowser } from '../helpers/browser.ts';
import { dashboardBrowserSuite, signInToDashboard } from '../helpers/dashboard-browser.ts';
import { eventually } from '../helpers/connector-e2e.ts';
import type { TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

const SKU = 'POSTER-TULIPS';

/**
 * The sandbox store in the dashboard, in headless Chromium: "Try a sandbox store" on the stores
 * page (test mode only), then on the store's page a store order made with the form, followed to
 * the tracking pushed back (the production simulator ships test orders).
 */
describe('the sandbox store in the dashboard (Chromium)', function () {
  this.timeout(scaled(240_000));
  let t: TestService;
  let b: TestBrowser | undefined;
  dashboardBrowserSuite([sandboxConnector], (started) => ({ t, b } = started));

  const signIn = (page: Page, key: string) => signInToDashboard(page, t, key);

  it('offers "Try a sandbox store" in test mode only, and connects one in one click', async () => {
    const live = await t.reseller({ mode: 'live' });
    const livePage = await b!.page();
    await signIn(livePage, live.key);
    await livePage.goto(`${t.baseUrl}/dashboard/stores`);
    expect(await livePage.getByRole('button', { name: 'Try a sandbox store' }).count()).to.equal(0);
    await livePage.close();

    const r = await t.reseller({ mode: 'test' });
    const page = await b!.page();
    await signIn(page, r.key);
    await page.goto(`${t.baseUrl}/dashboard/stores`);
    await page.getByRole('button', { name: 'Try a sandbox store' }).click();
    await page.waitForURL(/\/dashboard\/stores\/sto_[^?]+\?done=store-connected/);
    expect(await page.getByTestId('store-state').textContent()).to.equal('connected');
    expect(await page.getByRole('heading', { name: 'Sandbox store orders' }).count()).to.equal(1);
    const stores = (await t.api(r.key, 'GET', '/stores')).body.data;
    expect(stores.map((s: { platform: string }) => s.platform)).to.deep.equal(['SANDBOX']);
    await page.close();
  });

  it('makes a store order from the store page: a field error next to its field, then the order placed and its tracking shown', async () => {
    const r = await t.reseller({ mode: 'test' });
    const sample = (await t.api(r.key, 'GET', '/products/posters')).body.data.sampleFiles[0].url as string;
    expect(
      (
        await t.api(r.key, 'POST', '/reseller-products', {
          sku: SKU,
          title: 'Tulip poster A2',
          productId: 'posters',
          fileUrl: sample,
        })
      ).status,
    ).to.equal(201);
    const store = (await t.api(r.key, 'POST', '/stores', { platform: 'SANDBOX', name: 'Tulip test shop' })).body.data;
    const page = await b!.page();
    await signIn(page, r.key);
    await page.goto(`${t.baseUrl}/dashboard/stores/${store.id}`);

    const form = page.getByRole('form', { name: 'Make a store order' });
    await form.getByLabel('SKU').fill(SKU);
    await form.getByLabel('Quantity').fill('0');
    // The browser's own check would stop a 0 only with min=; the API's refusal is shown next to the field.
    await form.getByRole('button', { name: 'Make the store order' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#sandbox-quantity').getAttribute('aria-invalid')).to.equal('true');
    expect(await page.locator('#sandbox-sku').inputValue()).to.equal(SKU);
    expect((await t.api(r.key, 'GET', `/stores/${store.id}/sandbox-orders`)).body.data).to.deep.equal([]);

    await page.locator('#sandbox-quantity').fill('3');
    await page.getByRole('button', { name: 'Make the store order' }).click();
    await page.waitForURL(/done=sandbox-order-made/);
    const [made] = (await t.api(r.key, 'GET', `/stores/${store.id}/sandbox-orders`)).body.data;
    expect(made.lines).to.deep.include({
      externalLineId: `${made.externalOrderId}-1`,
      sku: SKU,
      quantity: 3,
      title: null,
      externalProductId: null,
    });

    await eventually(
      async () => {
        await page.goto(`${t.baseUrl}/dashboard/stores/${store.id}`);
        const row = page.locator(`tr[data-sandbox-order="${made.externalOrderId}"]`);
        return (await row.count()) === 1 && (await row.locator('a[href^="https://"]').count()) === 1;
      },
      'the tracking pushed back shown',
      30_000,
    );
    const ingests = page.getByRole('heading', { name: 'Store orders received' });
    expect(await ingests.count()).to.equal(1);
    expect(await page.getByRole('link', { name: /^ord_/ }).count()).to.equal(1);
    await page.close();
  });
});
