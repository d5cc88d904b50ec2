import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshotOnFailure, type TestBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * The consoles work offline: the operators' console, the queue dashboard (bull-board) and the
 * reseller dashboard load nothing from another host, and nothing they ask for is missing
 * (`/favicon.ico` included, which every browser asks for).
 */
describe('the consoles offline, in a browser [pglite]', function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  let b: TestBrowser | undefined;
  let page: Page;
  const requested: string[] = [];
  const missing: string[] = [];

  before(async function () {
    t = await startTestService(this, 'pglite');
    b = await launchBrowser(this);
    page = await b.page();
    page.setDefaultTimeout(30_000);
    page.on('request', (r) => void requested.push(r.url()));
    page.on('response', (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
  });
  afterEach(async function () {
    await screenshotOnFailure(this, b);
  });
  after(async () => {
    await b?.close();
    await t?.close();
  });

  /** Every request since `from` went to the service and found something. */
  function onlyTheService(from: number, what: string): void {
    const origin = new URL(t.baseUrl).origin;
    const elsewhere = requested.slice(from).filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
    expect(elsewhere, `${what} loads from another host`).to.deep.equal([]);
    expect(missing, `${what} asks for what is not there`).to.deep.equal([]);
  }

  it('signs an operator in and shows the console and the queue dashboard, all from the service', async () => {
    const from = requested.length;
    await page.goto(`${t.baseUrl}/admin`);
    await page.getByLabel('Admin token').fill(t.service.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
    expect(await page.locator('link[rel="icon"]').getAttribute('href'), 'the page names its icon').to.equal(
      '/favicon.ico',
    );
    await page.goto(`${t.baseUrl}/admin/v1/queues`);
    await page.getByText('Print API queues').first().waitFor();
    await page.waitForLoadState('networkidle');
    onlyTheService(from, 'the console');
    const favicon = await page.request.get(`${t.baseUrl}/favicon.ico`);
    expect(favicon.status()).to.equal(200);
    expect(favicon.headers()['content-type']).to.equal('image/x-icon');
    expect((await favicon.body()).subarray(0, 4).toString('hex')).to.equal('00000100');
  });

  it("shows a reseller's dashboard from the service alone, with the service's icon", async () => {
    const { key } = await t.reseller({ mode: 'test' });
    const link = await t.api(key, 'POST', '/dashboard-links');
    expect(link.status, JSON.stringify(link.body)).to.equal(201);
    const url = new URL(link.body.data.url as string);
    const from = requested.length;
    await page.goto(`${t.baseUrl}${url.pathname}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    await page.waitForLoadState('networkidle');
    onlyTheService(from, 'the dashboard');
    expect(await page.locator('link[rel="icon"]').getAttribute('href'), 'the page names its icon').to.equal(
      '/favicon.ico',
    );
  });
});
