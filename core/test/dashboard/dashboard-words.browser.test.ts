import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sandboxConnector } from '@print-api/connector-sandbox';
import type { TestBrowser } from '../helpers/browser.ts';
import { dashboardBrowserSuite, signInToDashboard } from '../helpers/dashboard-browser.ts';
import { eventually } from '../helpers/connector-e2e.ts';
import type { TestService } from '../helpers/test-service.ts';
import { RECIPIENT } from '../orders/orders-helpers.ts';

/**
 * Issue 37's words, in headless Chromium: every dashboard page is for a merchant. The banner
 * names no API path or command; an order page numbers its lines from 1, names its options as
 * the catalogue does, says its payment in words and its address as the carrier prints it; a
 * refused form says each problem with its field's name; a single Retry says what happened; a
 * European price is read.
 */
describe("the dashboard's pages in a merchant's words (Chromium)", function () {
  this.timeout(240_000);
  let t: TestService;
  let b: TestBrowser | undefined;
  // Test orders stay as placed (the production simulator's next step a minute away).
  dashboardBrowserSuite([sandboxConnector], (started) => ({ t, b } = started), {
    PRODUCTION_SIMULATOR_STEP_MS: '60000',
  });

  it('an order page: no API words in the banner, lines from 1, option names, payment and address in words', async () => {
    const r = await t.reseller({ mode: 'test' });
    const placed = await t.api(
      r.key,
      'POST',
      '/orders',
      {
        lines: [{ productId: 'business-cards', quantity: 250 }],
        recipient: { ...RECIPIENT, company: 'Tulpen BV' },
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    const banner = (await page.getByTestId('mode-hint').textContent())!;
    expect(banner).to.contain('stays in test mode');
    expect(banner).not.to.match(/\/api\/|npm run|POST /);

    await page.goto(`${t.baseUrl}/dashboard/orders/${placed.body.data.id}`);
    const line = page.getByRole('region', { name: 'Lines and files' }).locator('tbody tr').first();
    expect(await line.locator('td').first().textContent()).to.equal('1');
    const options = (await page.getByTestId('line-options').textContent())!;
    expect(options).to.contain('Press sheet: ').and.contain('Print process: ').and.contain('Paper: ');
    expect(options).not.to.match(/sheetFormat|printProcess|\bpaper:/);
    // Before it is submitted, not paid yet; once submitted, a test order is never charged.
    expect(await page.getByTestId('payment').textContent()).to.be.oneOf([
      'Not paid yet.',
      'Not charged: a test order is never charged.',
    ]);
    expect(await page.getByTestId('ship-to').innerText()).to.equal(
      'Jan de Vries\nTulpen BV\nKeizersgracht 1\n1015 CJ Amsterdam\nNETHERLANDS',
    );
    await page.close();
  });

  it('a refused form names its field in words; a single Retry says the order is still skipped, and why', async () => {
    const r = await t.reseller({ mode: 'test' });
    const store = (await t.api(r.key, 'POST', '/stores', { platform: 'SANDBOX', name: 'Words shop' })).body.data;
    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    await page.goto(`${t.baseUrl}/dashboard/stores/${store.id}`);
    const form = page.getByRole('form', { name: 'Make a store order' });
    await form.getByLabel('SKU').fill('NOT-OURS');
    await form.getByLabel('Quantity').fill('0');
    await form.getByRole('button', { name: 'Make the store order' }).click();
    await page.waitForLoadState();
    const alert = (await page.getByRole('form', { name: 'Make a store order' }).locator('.alert').textContent())!;
    expect(alert).to.equal('Line 1: quantity must be at least 1.');
    expect(await page.locator('#sandbox-quantity-error').textContent()).to.equal('Must be at least 1.');

    await page.locator('#sandbox-quantity').fill('2');
    await page.getByRole('button', { name: 'Make the store order' }).click();
    await page.waitForURL(/done=sandbox-order-made/);
    const received = page.getByRole('region', { name: 'Store orders received' });
    await eventually(
      async () => {
        await page.goto(`${t.baseUrl}/dashboard/stores/${store.id}`);
        return (await received.getByRole('button', { name: /^Retry/ }).count()) === 1;
      },
      'the store order skipped',
      30_000,
    );
    await received.getByRole('button', { name: /^Retry/ }).click();
    await page.waitForURL(/retried=ing_/);
    expect(await page.getByRole('status').textContent()).to.match(
      /^Store order #\d+ is still skipped: nothing of it was placed \(NOT-OURS × 2: its SKU is none of your products, and its listing is not mapped\)\. Create the product, or map the listing to one of yours, and retry\.$/,
    );
    await page.close();
  });

  it('reads a retail price typed the European way (29,95)', async () => {
    const r = await t.reseller({ mode: 'test' });
    await t.api(r.key, 'POST', '/reseller-products', {
      sku: 'CARDS-EU',
      title: 'Poster',
      productId: 'posters',
    });
    await t.api(r.key, 'POST', '/stores', { platform: 'SANDBOX', name: 'Euro shop' });
    const page = await b!.page();
    await signInToDashboard(page, t, r.key);
    await page.goto(`${t.baseUrl}/dashboard/products/CARDS-EU`);
    const publish = page.getByRole('form', { name: 'Publish to store' });
    await publish.getByLabel("Retail price in the store's currency (your customers pay)").fill('29,95');
    await publish.getByRole('button', { name: 'Show margin' }).click();
    await page.waitForLoadState();
    expect(await page.getByTestId('margin').textContent()).to.contain('€29.95 retail');
    await page.close();
  });
});
