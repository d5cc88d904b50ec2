import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { sandboxConnector } from '@print-api/connector-sandbox';
import { suiteBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { RECIPIENT } from '../orders/orders-helpers.ts';
import { loadAlertThresholds, thresholdsOf } from '../../src/modules/console/alert-thresholds.ts';
import { PermanentJobError } from '../../src/infra/queue/job-queue.ts';
import { codesShown } from '../helpers/dashboard-browser.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * Issue 37's operator, in headless Chromium: the console's home page says at a glance which
 * platform is falling behind (charts of the last 24 hours marked against ops/alerts.yml's
 * thresholds), the search field on every page finds a reseller by e-mail and an order by its
 * external id, the reseller and order pages show what operators are asked about, the queue
 * dashboard leads back, and the store health flags fit 1280 px.
 */
describe("the operators' console: is anything wrong, and where (Chromium)", function () {
  this.timeout(240_000);
  let t: TestService;
  let b: TestBrowser | undefined;

  before(async function () {
    t = await startTestService(
      this,
      'postgres+redis',
      { PRODUCTION_SIMULATOR_STEP_MS: '60000', RATE_LIMIT_PER_MINUTE: '100000' },
      { connectors: [sandboxConnector] },
    );
  });
  suiteBrowser((launched) => (b = launched));
  after(async () => {
    await t?.close();
  });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${t.baseUrl}/admin`);
    // The browser's pages share their cookies: a page after the first is signed in already.
    if ((await page.getByLabel('Admin token').count()) > 0) {
      await page.getByLabel('Admin token').fill(t.service.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
  }

  it('reads its thresholds from ops/alerts.yml', () => {
    const t0 = loadAlertThresholds();
    expect(t0).to.include({ source: 'ops/alerts.yml', ingestLagSeconds: 600, failedDeliveryShare: 0.5, deadJobs: 0 });
    const tuned = thresholdsOf(
      '  - alert: StoreIngestLag\n    expr: max by (platform) (store_ingest_lag_seconds) > 120\n    for: 5m\n',
      'x',
    );
    expect(tuned.ingestLagSeconds).to.equal(120);
    expect(tuned.failedDeliveryShare).to.equal(0.5);
  });

  it('charts the dead jobs of the last 24 hours per queue, marked against the DeadJobs threshold', async () => {
    // A queue whose one job fails for good now: a dead job, in this hour's bar.
    const queue = `console-dead-${randomBytes(3).toString('hex')}`;
    const dying = t.service.queue.define<null>(queue, {
      process: async () => {
        throw new PermanentJobError('dead for the console test');
      },
    });
    await dying.add(null);
    await waitFor('the dead job', async () => (await dying.counts()).failed === 1);

    const page = await b!.page();
    await signIn(page);
    const section = page.locator(`section[data-queue="${queue}"]`);
    expect(await section.getAttribute('data-over')).to.equal('true');
    expect(await section.locator('h3').textContent()).to.contain('1 dead now');
    const chart = page.getByTestId(`dead-${queue}`);
    expect(await chart.getAttribute('data-over')).to.equal('true');
    expect(await chart.locator('line[data-threshold]').getAttribute('data-threshold')).to.equal('0');
    expect(await chart.locator('rect[data-over="true"]').count()).to.equal(1);
    expect(await chart.locator('svg').getAttribute('aria-label')).to.equal(
      'Failed for good: 1 in the last hour, at most 1 in 24 h; alert above 0 — OVER',
    );
    expect(await page.getByTestId('dead-jobs-all').locator('svg').getAttribute('aria-label')).to.match(
      /^Jobs that failed for good, all queues: [1-9]\d* in the last hour/,
    );
    expect(await page.getByTestId('verdict').textContent()).to.contain(`1 dead job in queue ${queue}`);
    await page.close();
  });

  it('shows the platform falling behind at a glance, and finds a reseller by e-mail and an order by external id', async () => {
    // A reseller of its own e-mail, with a sandbox store and an order placed by its external id.
    const email = `ops-${randomBytes(4).toString('hex')}@tulips.example`;
    const created = await t.admin('POST', '/resellers', { name: 'Tulip Prints BV', email, phone: '+31 20 123 4567' });
    const resellerId = created.body.data.id as string;
    await t.admin('POST', `/resellers/${resellerId}/approve`);
    const key = (await t.admin('POST', `/resellers/${resellerId}/api-keys`, { mode: 'test' })).body.data.key as string;
    const store = (await t.api(key, 'POST', '/stores', { platform: 'SANDBOX', name: 'Tulip sandbox' })).body.data;
    const externalOrderId = `EXT-37-${randomBytes(3).toString('hex')}`;
    const order = await t.api(
      key,
      'POST',
      '/orders',
      { externalOrderId, lines: [{ productId: 'business-cards', quantity: 250 }], recipient: RECIPIENT },
      { 'idempotency-key': randomUUID() },
    );
    expect(order.status, JSON.stringify(order.body)).to.equal(201);
    // A store webhook received 20 minutes ago and still waiting: the sandbox platform is falling behind.
    await t.service.db
      .insertInto('store_webhook_events')
      .values({
        id: `swe_${randomBytes(8).toString('hex')}`,
        platform: 'SANDBOX',
        store_id: store.id,
        event_key: `test-${randomUUID()}`,
        topic: 'orders/create',
        headers: JSON.stringify({}),
        raw_body: Buffer.from('{}'),
        path: store.id,
        received_at: new Date(Date.now() - 20 * 60_000),
        processed_at: null,
      } as never)
      .execute();

    const page = await b!.page();
    await page.setViewportSize({ width: 1280, height: 900 });
    await signIn(page);
    const verdict = (await page.getByTestId('verdict').textContent())!;
    expect(verdict).to.match(/^Needs attention: Sandbox: store webhooks wait \d+ min to be processed/);
    const sandbox = page.locator('section[data-platform="SANDBOX"]');
    expect(await sandbox.getAttribute('data-trouble')).to.equal('true');
    const lag = page.getByTestId('lag-SANDBOX');
    expect(await lag.getAttribute('data-over')).to.equal('true');
    expect(await lag.locator('line[data-threshold]').getAttribute('data-threshold')).to.equal('600');
    expect(await lag.locator('svg').getAttribute('aria-label')).to.contain('alert above 10 min — OVER');
    expect(await page.getByTestId('orders-SANDBOX').locator('svg').count()).to.equal(1);
    expect(await page.getByTestId('thresholds-source').textContent()).to.contain('Thresholds from ops/alerts.yml');

    // The search field, on every page: an e-mail finds the reseller (by name), its page what operators are asked.
    await page.goto(`${t.baseUrl}/admin/stores`);
    await page.locator('input[type="search"][name="q"]').fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/admin\/(search|resellers)/);
    if (page.url().includes('/search'))
      await page.getByRole('region', { name: 'Resellers' }).getByRole('link', { name: 'Tulip Prints BV' }).click();
    await page.waitForURL(`${t.baseUrl}/admin/resellers/${resellerId}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Tulip Prints BV');
    expect(await page.getByTestId('reseller-status').textContent()).to.equal('approved');
    expect(await page.getByTestId('balance-test').textContent()).to.equal('€0.00');
    expect(await page.getByRole('region', { name: 'API keys' }).textContent()).to.contain('prk_test_');
    expect(await page.getByRole('region', { name: 'Stores' }).textContent()).to.contain('Tulip sandbox');
    expect(await page.getByRole('region', { name: 'Recent orders' }).textContent()).to.contain(externalOrderId);

    // An external order id finds the order: its lines, recipient as the carrier prints it, payment, timeline.
    await page.locator('input[type="search"][name="q"]').fill(externalOrderId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(`${t.baseUrl}/admin/orders/${order.body.data.id}`);
    expect(await page.getByTestId('recipient').innerText()).to.equal(
      'Jan de Vries\nKeizersgracht 1\n1015 CJ Amsterdam\nNETHERLANDS',
    );
    expect(await page.getByTestId('order-payment').textContent()).to.match(/^(Not paid yet|Not charged)/);
    expect(await page.getByRole('region', { name: 'Lines' }).textContent()).to.contain('business-cards');
    expect(await page.getByTestId('timeline').textContent()).to.contain('Order received');
    expect(await page.getByRole('link', { name: 'Tulip Prints BV' }).getAttribute('href')).to.equal(
      `/admin/resellers/${resellerId}`,
    );

    // Store health: resellers by name, the flags column in view at 1280 px.
    await page.goto(`${t.baseUrl}/admin/stores`);
    const row = page.locator(`tr[data-store="${store.id}"]`);
    expect(await row.getByRole('link', { name: 'Tulip Prints BV' }).count()).to.equal(1);
    const flags = (await row.locator('td.flags').boundingBox())!;
    expect(flags.x + flags.width).to.be.at.most(1280);

    // No page of the console shows a code where a person reads (codes only small, beside their words).
    for (const path of [
      '/admin',
      '/admin/stores',
      `/admin/resellers/${resellerId}`,
      `/admin/orders/${order.body.data.id}`,
      `/admin/search?q=${encodeURIComponent(email)}`,
      '/admin/audit',
    ]) {
      await page.goto(`${t.baseUrl}${path}`);
      expect(await codesShown(page), `codes on ${path}`).to.deep.equal([]);
    }
    await page.goto(`${t.baseUrl}/admin/orders/${order.body.data.id}`);
    // The state and status in words, their codes small beside them for support.
    const orderState = page.getByTestId('order-state');
    expect(await orderState.textContent()).to.match(/^[A-Z][a-z ,]+ · [A-Z][a-z ,]+ [A-Z_]+ · [A-Z_]+$/);
    expect(await orderState.locator('code').textContent()).to.equal(
      `${order.body.data.state} · ${order.body.data.status}`,
    );
    expect(await page.getByTestId('timeline').locator('code').first().textContent()).to.equal('order.created');
    expect(await page.getByTestId('store-order').textContent()).to.equal('none (from API)');
    await page.goto(`${t.baseUrl}/admin/stores`);
    expect(await page.getByLabel('Platform').locator('option[value="SANDBOX"]').textContent()).to.equal('Sandbox');
    expect(await row.locator('td').nth(2).textContent()).to.equal('Sandbox');

    // The queue dashboard leads back to the console.
    await page.goto(`${t.baseUrl}/admin/v1/queues`);
    await page.getByRole('link', { name: '← Operations console' }).click();
    await page.getByRole('heading', { name: 'Operations' }).waitFor();
    await page.close();
  });
});
