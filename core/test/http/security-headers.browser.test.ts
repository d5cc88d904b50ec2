import { expect } from 'chai';
import { suiteBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * The app-wide Content-Security-Policy must not break the pages it now covers: the API
 * references (Swagger UI) and the queue dashboard (bull-board) still render in Chromium, and
 * the browser reports no violation.
 */
describe('the references and the queue dashboard under the CSP (PGlite, Chromium)', function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  let b: TestBrowser | undefined;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  // The full browser: a policy is the browser's to enforce, and this suite checks it in the one people use.
  suiteBrowser((launched) => (b = launched), { full: true });
  after(async () => {
    await t?.close();
  });

  it('renders the reseller reference, the back-office reference and the queue dashboard without a CSP violation', async () => {
    const page = await b!.page();
    const violations: string[] = [];
    page.on('console', (m) => {
      // bull-board's page asks Google Fonts for its typeface: refused on purpose (no third-party
      // request from the operators' browsers); it falls back to the system font.
      if (/Content Security Policy/i.test(m.text()) && !m.text().includes('https://fonts.googleapis.com/'))
        violations.push(m.text());
    });
    await page.goto(`${t.baseUrl}/api/reseller/v1/docs`);
    await page
      .locator('.opblock')
      .first()
      .waitFor({ timeout: scaled(30_000) });

    await page.goto(`${t.baseUrl}/admin`);
    await page.getByLabel('Admin token').fill(t.service.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/admin`);
    await page.goto(`${t.baseUrl}/admin/v1/docs`);
    await page
      .locator('.opblock')
      .first()
      .waitFor({ timeout: scaled(30_000) });
    await page.goto(`${t.baseUrl}/admin/v1/queues`);
    // bull-board's client rendered the queues (its script ran and its API calls went through).
    await page
      .getByRole('link', { name: 'production-simulator' })
      .first()
      .waitFor({ timeout: scaled(30_000) });
    expect(violations).to.deep.equal([]);
    await page.close();
  });
});
