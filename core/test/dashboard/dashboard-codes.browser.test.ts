import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { sandboxConnector } from '@print-api/connector-sandbox';
import { eventually, POSTER_SKU, posterReseller } from '../helpers/connector-e2e.ts';
import { codesShown, dashboardBrowserSuite, signInToDashboard } from '../helpers/dashboard-browser.ts';
import type { TestBrowser } from '../helpers/browser.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import type { TestService } from '../helpers/test-service.ts';
import { RECIPIENT } from '../orders/orders-helpers.ts';

/**
 * Issue 37, in headless Chromium: every dashboard page is for a merchant, so a state, status,
 * platform, payment, event type or delivery status reads in words ("Waiting for the print file",
 * "Sandbox", "Paid from your wallet", "Order received"), and the text of the main pages carries
 * none of the API's codes; the codes stay where they are values (filters' options, data attributes).
 */
describe("the dashboard's pages show names, not codes (Chromium)", function () {
  this.timeout(240_000);
  let t: TestService;
  let files: TestHttpsServer;
  let b: TestBrowser | undefined;
  dashboardBrowserSuite([sandboxConnector], (started) => ({ t, files, b } = started));

  async function expectNoCodes(page: Page, path: string): Promise<void> {
    await page.goto(`${t.baseUrl}${path}`);
    expect(await codesShown(page), `codes on ${path}`).to.deep.equal([]);
  }

  it('a live merchant: orders, payment, events, products and webhooks in words', async () => {
    const r = await posterReseller(t, files, 'live');
    const paid = await t.api(
      r.key,
      'POST',
      '/orders',
      { lines: [{ resellerSku: POSTER_SKU, quantity: 1 }], recipient: RECIPIENT },
      { 'idempotency-key': randomUUID() },
    );
    expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
    const noFile = await t.api(
      r.key,
      'POST',
      '/orders',
      { externalOrderId: 'NO-FILE-37', lines: [{ productId: 'business-cards', quantity: 250 }], recipient: RECIPIENT },
      { 'idempotency-key': randomUUID() },
    );
    expect(noFile.body.data.state).to.equal('AWAITING_FILE');
    const hook = await t.api(r.key, 'POST', '/webhooks', { url: `${files.url}/hooks`, events: ['order.shipped'] });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    await t.api(r.key, 'POST', `/webhooks/${hook.body.data.id}/test`);

    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    const home = page.getByRole('region', { name: 'Orders needing attention' });
    expect(await home.locator('td[data-code="AWAITING_FILE"]').textContent()).to.equal('Waiting for the print file');
    expect(await page.getByRole('region', { name: 'Recent ledger entries' }).textContent()).to.contain('Top-up');

    await page.goto(`${t.baseUrl}/dashboard/orders`);
    // The filters: words to read, codes as the values sent.
    const state = page.getByLabel('State');
    expect(await state.locator('option[value="AWAITING_FILE"]').textContent()).to.equal('Waiting for the print file');
    expect(await page.getByLabel('Source').locator('option[value="SANDBOX"]').textContent()).to.equal('Sandbox');
    await state.selectOption({ label: 'Waiting for the print file' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=AWAITING_FILE/);
    expect(await page.locator('tbody').textContent())
      .to.contain(noFile.body.data.id)
      .and.not.to.contain(paid.body.data.id);

    await page.goto(`${t.baseUrl}/dashboard/orders/${paid.body.data.id}`);
    await eventually(
      async () => {
        await page.reload();
        return (await page.getByTestId('payment').textContent()) === 'Paid from your wallet.';
      },
      'the order paid from the wallet',
      30_000,
    );
    expect(await page.getByTestId('order-state').getAttribute('data-code')).to.equal('SUBMITTED');
    expect(await page.getByTestId('order-state').textContent()).to.equal('Sent to production');
    expect(await page.getByTestId('events').textContent()).to.contain('Order received');

    for (const path of [
      '/dashboard',
      '/dashboard/orders',
      `/dashboard/orders/${paid.body.data.id}`,
      `/dashboard/orders/${noFile.body.data.id}`,
      '/dashboard/products',
      `/dashboard/products/${POSTER_SKU}`,
      '/dashboard/stores',
      '/dashboard/webhooks',
      `/dashboard/webhooks/${hook.body.data.id}`,
    ])
      await expectNoCodes(page, path);
    // The endpoint's subscription, on its page (the last one opened), in words.
    expect(await page.locator('dl.facts').first().textContent()).to.contain('Shipped');
    await page.close();
  });

  it('a test merchant: the sandbox store and its orders by their platform name', async () => {
    const r = await posterReseller(t, files, 'test');
    const store = (await t.api(r.key, 'POST', '/stores', { platform: 'SANDBOX', name: 'Tulip sandbox' })).body.data;
    const made = await t.api(r.key, 'POST', `/stores/${store.id}/sandbox-orders`, {
      lines: [
        { sku: POSTER_SKU, quantity: 1 },
        { sku: 'NOT-OURS', quantity: 1 },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    await page.goto(`${t.baseUrl}/dashboard/stores`);
    expect(await page.getByRole('row', { name: /Tulip sandbox/ }).textContent()).to.contain('Sandbox');
    await eventually(
      async () => {
        await page.goto(`${t.baseUrl}/dashboard/orders?source=SANDBOX`);
        return (await page.locator('tbody tr').count()) === 1;
      },
      'the store order placed',
      30_000,
    );
    expect(await page.locator('tbody tr').textContent()).to.contain('Sandbox');
    for (const path of ['/dashboard', '/dashboard/orders', '/dashboard/stores', `/dashboard/stores/${store.id}`])
      await expectNoCodes(page, path);
    await page.goto(`${t.baseUrl}/dashboard/stores/${store.id}`);
    expect(await page.locator('dl.facts').textContent())
      .to.contain('Platform')
      .and.contain('Sandbox');
    await page.close();
  });
});
