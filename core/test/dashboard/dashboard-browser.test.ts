import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { wooCommerceConnector } from '@print-api/connector-woocommerce';
import { FakeWooStore } from '../../../connectors/woocommerce/test/fake-woo-store.ts';
import { wooOrder } from '../../../connectors/woocommerce/test/woo-fixtures.ts';
import { sha256Hex } from '../../src/infra/crypto.ts';
import type { TestBrowser } from '../helpers/browser.ts';
import {
  DASHBOARD_PUBLIC_URL as PUBLIC_URL,
  dashboardBrowserSuite,
  loginLink as loginLinkOf,
  signInToDashboard,
} from '../helpers/dashboard-browser.ts';
import { eventually, posterReseller, POSTER_SKU } from '../helpers/connector-e2e.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import type { TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * The reseller dashboard in headless Chromium: signed in by a login link, a WooCommerce store
 * (a fake one behind nock, reached by the service) connected with pasted keys, an unmatched
 * listing made a product in one step, a store order followed to shipped (test mode: the
 * production simulator ships it), and another reseller's data nowhere.
 */
describe('the reseller dashboard in a browser (real PostgreSQL + Redis, Chromium)', function () {
  // A browser on a busy machine: generous, every wait polls against its own deadline.
  this.timeout(scaled(240_000));
  let t: TestService;
  let files: TestHttpsServer;
  let b: TestBrowser | undefined;
  dashboardBrowserSuite([wooCommerceConnector], (started) => ({ t, files, b } = started));

  const loginLink = (key: string) => loginLinkOf(t, key);
  const signIn = (page: Page, key: string) => signInToDashboard(page, t, key);

  /** Reloads `path` until `probe` holds (the queues work asynchronously). */
  async function reloadUntil(page: Page, path: string, probe: () => Promise<boolean>, what: string): Promise<void> {
    await eventually(
      async () => {
        await page.goto(`${t.baseUrl}${path}`);
        return probe();
      },
      what,
      30_000,
    );
  }

  it('signs in through a login link with an HttpOnly, SameSite=Lax session cookie of 12 hours, in the link’s mode', async () => {
    const r = await t.reseller({ mode: 'test', scopes: ['dashboard'] });
    const page = await b!.page();
    // By keyboard: Enter on the focused sign-in button.
    await page.goto(await loginLink(r.key));
    await page.getByRole('button', { name: 'Sign in' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    expect(await page.getByTestId('mode').textContent()).to.equal('test');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Home');
    const [cookie] = (await b!.browser.cookies(t.baseUrl)).filter((c) => c.name.endsWith('pa_dash'));
    expect(cookie).to.include({ httpOnly: true, sameSite: 'Lax' });
    expect(cookie!.expires * 1000 - Date.now()).to.be.within(11.9 * 3600_000, 12 * 3600_000 + 5_000);

    // Readable on a phone: no page is wider than its screen (wide tables scroll in their own box).
    await page.setViewportSize({ width: 375, height: 740 });
    for (const path of [
      '/dashboard',
      '/dashboard/stores',
      '/dashboard/products/new',
      '/dashboard/orders',
      '/dashboard/webhooks',
    ]) {
      await page.goto(`${t.baseUrl}${path}`);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), path).to.be.at.most(375);
    }
    await page.close();
  });

  it('refuses a used and an expired link, and lets nothing through without a session', async () => {
    const r = await t.reseller({ mode: 'test' });
    const ctx = await b!.isolated();
    const page = await ctx.newPage();
    const used = await loginLink(r.key);
    await page.goto(used);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    const again = await page.goto(used);
    expect(again!.status()).to.equal(410);
    expect(await page.getByRole('alert').textContent()).to.contain('has been used already');

    const late = await loginLink(r.key);
    await t.service.db
      .updateTable('dashboard_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', sha256Hex(late.slice(late.lastIndexOf('/') + 1)))
      .execute();
    const expired = await page.goto(late);
    expect(expired!.status()).to.equal(410);
    expect(await page.getByRole('alert').textContent()).to.contain('has expired');

    const fresh = await b!.isolated();
    const anonymous = await fresh.newPage();
    expect((await anonymous.goto(`${t.baseUrl}/dashboard/orders`))!.status()).to.equal(401);
    await ctx.close();
    await fresh.close();
  });

  it('connects a WooCommerce store, makes an unmatched listing a product, retries the skipped store order, supplies its file and follows it to shipped, syncs and disconnects; another reseller sees none of it', async () => {
    const r = await posterReseller(t, files, 'test');
    const shop = new FakeWooStore({ host: 'dashboard-shop.example.com', ourBaseUrl: t.baseUrl, publicUrl: PUBLIC_URL });
    shop.saveProduct({ id: 10, name: 'Tulip poster', type: 'simple', status: 'publish', sku: POSTER_SKU });
    shop.saveProduct({ id: 11, name: 'Rose poster', type: 'simple', status: 'publish', sku: 'POSTER-ROSES' });
    const page = await b!.page();
    await signIn(page, r.key);

    // Stores: connect with pasted keys.
    await page.getByRole('link', { name: 'Stores' }).click();
    await page.getByText('WooCommerce', { exact: true }).click();
    const form = page.getByRole('form', { name: 'Connect with these credentials (WooCommerce)' });
    await form.getByLabel('Store URL').fill(shop.url);
    await form.getByLabel('Consumer key').fill(shop.consumerKey);
    await form.getByLabel('Consumer secret').fill(shop.consumerSecret);
    await form.getByRole('button', { name: 'Connect with these credentials' }).click();
    await page.waitForURL(/\/dashboard\/stores\/sto_/);
    expect(await page.getByRole('status').textContent()).to.contain('The store is connected');
    expect(await page.getByTestId('store-state').textContent()).to.equal('connected');
    const storePath = new URL(page.url()).pathname;
    const storeId = storePath.split('/').pop()!;

    // The listings sync: POSTER-ROSES is none of the reseller's products.
    await reloadUntil(
      page,
      storePath,
      async () => (await page.locator('tr[data-listing="POSTER-ROSES"]').count()) === 1,
      'the unmatched listing',
    );

    // A store order for it arrives: skipped, and Home says so.
    const roses = structuredClone(wooOrder().line_items[0]!);
    roses.sku = 'POSTER-ROSES';
    roses.name = 'Rose poster';
    const order = shop.save(wooOrder({ id: 5001, number: '5001', line_items: [roses] }));
    expect(await shop.deliver(order, 'order.created')).to.equal(200);
    const skipped = page.getByRole('region', { name: 'Skipped store orders' });
    await reloadUntil(
      page,
      '/dashboard',
      async () => (await skipped.getByRole('cell', { name: '5001' }).count()) === 1,
      'the skipped store order on Home',
    );
    expect(await skipped.textContent()).to.contain('POSTER-ROSES');

    // One step: the product from the listing (no artwork: orders for it wait for a file).
    await page.goto(`${t.baseUrl}${storePath}`);
    const create = page.getByRole('form', { name: 'Create the product for POSTER-ROSES' });
    await create.getByLabel('Print product for POSTER-ROSES').selectOption('posters');
    await create.getByRole('button', { name: 'Create product POSTER-ROSES' }).click();
    await page.waitForURL(/done=product-created/);
    expect(await page.locator('tr[data-listing="POSTER-ROSES"]').count()).to.equal(0);
    const matched = page.getByRole('region', { name: 'Matched listings' });
    await reloadUntil(
      page,
      storePath,
      async () => (await matched.getByRole('link', { name: 'POSTER-ROSES' }).count()) === 1,
      'POSTER-ROSES matched',
    );

    // The skipped store order, retried, is placed; it waits for its file.
    await page.getByRole('button', { name: /^Retry #?5001$/ }).click();
    await page.waitForURL(/retried=ing_/);
    expect(await page.getByRole('status').textContent()).to.match(/Store order #?5001 is placed now: print order ord_/);
    await page.getByRole('region', { name: 'Store orders received' }).getByRole('link', { name: /^ord_/ }).click();
    const orderPath = new URL(page.url()).pathname;
    const orderId = orderPath.split('/').pop()!;
    expect(await page.getByTestId('order-state').textContent()).to.equal('Waiting for the print file');
    await page.goto(`${t.baseUrl}/dashboard`);
    expect(await page.getByRole('region', { name: 'Orders needing attention' }).textContent()).to.contain('5001');

    // The order list finds it by store; its page takes the missing file.
    await page.goto(`${t.baseUrl}/dashboard/orders?storeId=${storeId}`);
    await page.getByRole('link', { name: orderId }).click();
    await page.getByLabel('File URL for line 1').fill(`${files.url}/art/flyer.pdf`);
    await page.getByRole('button', { name: 'Supply file' }).click();
    await page.waitForURL(/done=file-supplied/);
    // The simulator may already have delivered it: shipped is where it has been, with its tracking.
    await reloadUntil(
      page,
      orderPath,
      async () => ['Shipped', 'Delivered'].includes((await page.getByTestId('order-status').textContent()) ?? ''),
      'the order shipped',
    );
    expect(await page.getByTestId('tracking').textContent()).not.to.equal('—');
    expect(await page.getByTestId('events').textContent()).to.match(/Shipped · Sent to production · Shipped/);

    // The product page says where it is sold and, in words, why it cannot be deleted: no Delete offered.
    await page.goto(`${t.baseUrl}/dashboard/products/POSTER-ROSES`);
    expect(await page.getByRole('region', { name: 'Sold in' }).textContent()).to.contain('Tulip Prints');
    expect(await page.getByRole('button', { name: 'Delete product' }).count()).to.equal(0);
    const blocked = await page.getByTestId('delete-blocked').textContent();
    expect(blocked).to.contain('A store sells it, so it cannot be deleted');
    expect(blocked).not.to.match(/409|reseller_product_linked/);
    // A delete sent anyway (an old tab) is refused in a sentence, not a code.
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const forced = await page.request.post(`${t.baseUrl}/dashboard/products/POSTER-ROSES/delete`, {
      form: { _csrf: csrf },
      headers: { origin: t.baseUrl },
    });
    const forcedHtml = await forced.text();
    expect(forcedHtml).to.contain('This product is sold in one of your stores, so it cannot be deleted');
    expect(forcedHtml).not.to.contain('reseller_product_linked');

    // Sync now (queued, or refused while the connect-time poll still runs), then disconnect: the product is free to go.
    await page.goto(`${t.baseUrl}${storePath}`);
    await page.getByRole('button', { name: 'Sync now' }).click();
    expect(await page.locator('.notice, .alert').first().textContent()).to.match(/A sync was asked for|sync/i);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.waitForURL(/done=store-disconnected/);
    expect(await page.getByTestId('store-state').textContent()).to.equal('disconnected');
    await page.goto(`${t.baseUrl}/dashboard/products/POSTER-ROSES`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete product' }).click();
    await page.waitForURL(/done=product-deleted/);

    // Another reseller: its own dashboard shows none of this, and this one's ids are not found there.
    const other = await t.reseller({ mode: 'test' });
    await t.api(other.key, 'POST', '/reseller-products', {
      sku: 'OTHER-SKU',
      title: 'Not yours',
      productId: 'business-cards',
    });
    const ctx = await b!.isolated();
    const theirs = await ctx.newPage();
    await signIn(theirs, other.key);
    for (const path of ['/dashboard', '/dashboard/stores', '/dashboard/products', '/dashboard/orders']) {
      await theirs.goto(`${t.baseUrl}${path}`);
      const text = (await theirs.textContent('main')) ?? '';
      expect(text, path).not.to.contain('Tulip Prints');
      expect(text, path).not.to.contain('POSTER-ROSES');
      expect(text, path).not.to.contain(POSTER_SKU);
      expect(text, path).not.to.contain(orderId);
    }
    for (const path of [storePath, orderPath, `/dashboard/products/${POSTER_SKU}`]) {
      expect((await theirs.goto(`${t.baseUrl}${path}`))!.status(), path).to.equal(404);
    }
    await page.goto(`${t.baseUrl}/dashboard/products`);
    expect(await page.textContent('main')).not.to.contain('OTHER-SKU');
    await ctx.close();
  });

  it("connects a WooCommerce store through the store's own key-issuing approval (/wc-auth/v1/authorize)", async () => {
    const r = await t.reseller({ mode: 'test' });
    const shop = new FakeWooStore({
      host: 'dashboard-approve.example.com',
      ourBaseUrl: t.baseUrl,
      publicUrl: PUBLIC_URL,
    });
    const ctx = await b!.isolated();
    const page = await ctx.newPage();
    // The browser's way to the store: it approves (as its admin would on the merchant's click),
    // POSTs the keys to our callback and sends the merchant back, to our public address, which
    // is this service.
    await ctx.route(`${shop.url}/**`, async (route) => {
      const approval = await shop.approve(route.request().url());
      await route.fulfill({ status: 302, headers: { location: approval.returnedTo!.replace(PUBLIC_URL, t.baseUrl) } });
    });
    await signIn(page, r.key);
    await page.goto(`${t.baseUrl}/dashboard/stores`);
    await page.getByText('WooCommerce', { exact: true }).click();
    const form = page.getByRole('form', { name: 'Connect through WooCommerce (WooCommerce)' });
    await form.getByLabel('Store URL').fill(shop.url);
    await form.getByRole('button', { name: 'Connect through WooCommerce' }).click();
    await page.waitForURL(/\/dashboard\/stores\?done=store-connected/);
    expect(await page.getByRole('status').textContent()).to.contain('The store is connected');
    expect(
      await page.getByRole('region', { name: 'Your stores' }).getByRole('link', { name: 'Tulip Prints' }).count(),
    ).to.equal(1);
    await ctx.close();
  });
});
