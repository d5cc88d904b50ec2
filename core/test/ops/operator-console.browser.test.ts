import { expect } from 'chai';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshotOnFailure, type TestBrowser } from '../helpers/browser.ts';
import { refOrder } from '../helpers/reference-shop.ts';
import { referenceStoreWorld, type ReferenceStoreWorld } from '../helpers/reference-store.ts';
import { waitFor, scaled } from '../helpers/wait.ts';

const INGEST_QUEUE = 'ingest-reference';

/**
 * Clicks the job card's icon button whose tooltip matches `name` (bull-board's job actions
 * are icons named only by a tooltip shown on hover).
 */
async function clickJobAction(page: Page, name: string): Promise<void> {
  const buttons = page.locator('button:not([role="tab"]):has(svg)');
  await buttons.first().waitFor();
  for (let i = 0; i < (await buttons.count()); i++) {
    const button = buttons.nth(i);
    if (!(await button.isVisible())) continue;
    await button.hover();
    const tip = page.getByText(name, { exact: true }).filter({ visible: true });
    if (
      await tip
        .first()
        .waitFor({ timeout: scaled(1500) })
        .then(
          () => true,
          () => false,
        )
    ) {
      await button.click();
      // Then bull-board asks "Are you sure…?": confirm.
      const dialog = page.getByRole('alertdialog').or(page.getByRole('dialog'));
      await dialog.first().waitFor();
      await dialog
        .first()
        .getByRole('button')
        .filter({ hasNotText: /cancel/i })
        .last()
        .click();
      return;
    }
  }
  throw new Error(`no job action named ${name}`);
}

/**
 * The operators' console in headless Chromium, on both deployments (embedded PGlite with the
 * in-process queue; PostgreSQL with BullMQ on Redis): sign in with the admin token, open the
 * queue dashboard, find a failed ingest job with its error, retry it, and find a store whose
 * webhooks stopped flagged on the store health page.
 */
for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`operator console in a browser [${backend}]`, function () {
    this.timeout(scaled(120_000));
    let w: ReferenceStoreWorld;
    let b: TestBrowser | undefined;
    let page: Page;
    let key: string;

    before(async function () {
      w = await referenceStoreWorld(this, backend);
      b = await launchBrowser(this);
      page = await b.page();
      page.setDefaultTimeout(30_000);
      const store = await w.t.service.db
        .selectFrom('stores')
        .select('reseller_id')
        .where('id', '=', w.storeId)
        .executeTakeFirstOrThrow();
      key = (await w.t.admin('POST', `/resellers/${store.reseller_id}/api-keys`, { mode: 'live' })).body.data.key;
    });
    afterEach(async function () {
      await screenshotOnFailure(this, b);
    });
    after(async () => {
      await b?.close();
      await w?.close();
    });

    it('sends a browser to sign in, refuses a wrong token, and opens a session with the right one', async () => {
      const base = w.t.baseUrl;
      await page.goto(`${base}/admin/v1/queues`);
      expect(new URL(page.url()).pathname).to.equal('/admin');
      await page.getByLabel('Admin token').fill('not-the-token-at-all-000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('That is not the admin token.').waitFor();
      expect(await page.getByLabel('Admin token').getAttribute('aria-invalid')).to.equal('true');

      await page.getByLabel('Admin token').fill(w.t.service.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // Back where it was sent from: the queue dashboard.
      await page.waitForURL(/\/admin\/v1\/queues/);
      const cookies = await b!.browser.cookies();
      const session = cookies.find((c) => c.name === 'pa_ops');
      expect(session, JSON.stringify(cookies)).to.include({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(session!.expires).to.be.greaterThan(Date.now() / 1000);
      expect(cookies.find((c) => c.name === 'XSRF-TOKEN')).to.include({
        httpOnly: false,
        sameSite: 'Strict',
        path: '/admin/v1',
      });
      // The Bearer token keeps working for scripts.
      expect((await w.t.admin('GET', '/stores')).status).to.equal(200);
    });

    /** Signs in unless this browser already has a session (each test stands on its own). */
    async function signedIn(): Promise<void> {
      if ((await b!.browser.cookies()).some((c) => c.name === 'pa_ops')) return;
      await page.goto(`${w.t.baseUrl}/admin`);
      await page.getByLabel('Admin token').fill(w.t.service.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Operations' }).waitFor();
    }

    it('shows a failed ingest job with its error on the queue dashboard, and retries it', async () => {
      await signedIn();
      // The shop refuses our token: the poll fails for good (an auth error is not retried).
      w.shop.server.route(
        '/api/orders',
        (_req, res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"token revoked"}'),
      );
      const ingest = () => w.t.service.queue.queues().find((q) => q.name === INGEST_QUEUE)!;
      await waitFor(
        'the poll lease to end',
        async () => (await w.t.api(key, 'POST', `/stores/${w.storeId}/sync`)).status === 202,
        30_000,
        200,
      );
      await waitFor('a failed ingest job', async () => (await ingest().counts()).failed === 1, 30_000, 100);

      await page.goto(`${w.t.baseUrl}/admin/v1/queues/queue/${INGEST_QUEUE}?status=failed`);
      await page.getByText(`poll-${w.storeId}`).first().waitFor();
      await page
        .getByText(/Reference shop refused our credentials \(401\)/)
        .first()
        .waitFor();

      // The shop takes the token again; the operator retries the job from the dashboard.
      w.shop.server.route(
        '/api/orders',
        (_req, res) =>
          void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ orders: [] })),
      );
      await clickJobAction(page, 'Retry');
      await waitFor('the retried job to succeed', async () => (await ingest().counts()).failed === 0, 30_000, 100);
      await page.reload();
      await page.getByText(`poll-${w.storeId}`).first().waitFor({ state: 'detached' });
    });

    it('flags a store whose webhooks stopped on the store health page', async () => {
      await signedIn();
      const now = Date.now();
      // A webhook arrives and is processed…
      const first = refOrder(`wh-${now}`, {
        created_at: new Date(now - 3 * 3600_000).toISOString(),
        updated_at: new Date(now - 3 * 3600_000).toISOString(),
      });
      const delivery = w.shop.signed(first);
      const res = await fetch(`${w.t.baseUrl}/connectors/reference/webhooks/${w.storeId}`, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      });
      expect(res.status).to.be.within(200, 299);
      await waitFor(
        'the webhook to be processed',
        async () => {
          const row = await w.t.service.db
            .selectFrom('store_webhook_events')
            .select('processed_at')
            .where('store_id', '=', w.storeId)
            .executeTakeFirst();
          return row?.processed_at != null;
        },
        30_000,
        100,
      );
      // …three hours ago (the passing of time, written where the service reads it)…
      await sql`update store_webhook_events set received_at = ${new Date(now - 3 * 3600_000)} where store_id = ${w.storeId}`.execute(
        w.t.service.db,
      );
      // …and since then, orders only arrive by polling.
      const late = refOrder(`poll-${now}`, {
        created_at: new Date(now - 60_000).toISOString(),
        updated_at: new Date(now).toISOString(),
      });
      w.shop.orders.set(late.id, late);
      w.shop.server.route(
        '/api/orders',
        (_req, res) =>
          void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ orders: [late] })),
      );
      await waitFor(
        'the poll to be accepted',
        async () => (await w.t.api(key, 'POST', `/stores/${w.storeId}/sync`)).status === 202,
        30_000,
        200,
      );
      await waitFor(
        'the polled order',
        async () => {
          const row = await w.t.service.db
            .selectFrom('store_ingests')
            .select('id')
            .where('store_id', '=', w.storeId)
            .where('external_order_id', '=', late.id)
            .executeTakeFirst();
          return row !== undefined;
        },
        30_000,
        100,
      );

      const json = await w.t.admin('GET', `/stores?platform=reference`);
      expect(json.status).to.equal(200);
      const health = json.body.data.find((s: { id: string }) => s.id === w.storeId);
      expect(health.flags).to.include('webhooks_stopped');
      expect(health.lastWebhookAt).to.equal(new Date(now - 3 * 3600_000).toISOString());

      await page.goto(`${w.t.baseUrl}/admin/stores`);
      const row = page.locator(`tr[data-store="${w.storeId}"]`);
      await row.locator('[data-flag="webhooks_stopped"]').waitFor();
      expect(await row.textContent()).to.contain('Webhooks stopped');
      await page
        .getByRole('link', { name: 'Next page' })
        .count()
        .then((n) => expect(n).to.equal(0));
    });

    it('signs out: the session no longer opens the dashboard', async () => {
      await signedIn();
      await page.goto(`${w.t.baseUrl}/admin`);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(/\/admin$/);
      await page.getByLabel('Admin token').waitFor();
      await page.goto(`${w.t.baseUrl}/admin/v1/queues`);
      expect(new URL(page.url()).pathname).to.equal('/admin');
    });
  });
}
