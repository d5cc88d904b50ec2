import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suiteBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';

const PUBLIC_URL = 'https://print-api.example.com';

/**
 * The dashboard's trust boundaries in headless Chromium: another site's page cannot sign a
 * reseller into a session (login CSRF), and a test key's session cannot switch to live.
 */
describe('dashboard trust in a browser: login CSRF and a test key’s session (real PostgreSQL + Redis, Chromium)', function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  let b: TestBrowser | undefined;
  let attacker: Server;
  /** What the attacker's page auto-submits: set per test. */
  let target = '';

  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PUBLIC_URL });
    // Another site (another origin and another site: `localhost` is not `127.0.0.1`), whose page posts a login link on
    // load.
    attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<!doctype html><form id="f" method="post" action="${target}"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  });
  suiteBrowser((launched) => (b = launched));
  after(async () => {
    await new Promise((resolve) => attacker?.close(resolve));
    await t?.close();
  });

  /** A login link of the key, at the address the browser reaches the service by. */
  async function loginLink(key: string): Promise<string> {
    const res = await t.api(key, 'POST', '/dashboard-links');
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return (res.body.data.url as string).replace(PUBLIC_URL, t.baseUrl);
  }

  async function dashboardCookies(ctx: TestBrowser['browser']) {
    return (await ctx.cookies(t.baseUrl)).filter((c) => c.name.endsWith('pa_dash'));
  }

  it("refuses a login link another site's page auto-submits: no session, and the link still opens from our own page", async () => {
    const r = await t.reseller({ mode: 'live' });
    target = await loginLink(r.key);
    const ctx = await b!.isolated();
    const page = await ctx.newPage();
    const landed = page.waitForResponse((res) => res.url() === target && res.request().method() === 'POST');
    await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/innocent-page`);
    const refused = await landed;
    expect(refused.status()).to.equal(403);
    await waitFor('the refusal page', async () =>
      (
        await page
          .getByRole('alert')
          .textContent()
          .catch(() => null)
      )?.includes('sent by another site'),
    );
    expect(await dashboardCookies(ctx)).to.deep.equal([]);
    expect((await page.goto(`${t.baseUrl}/dashboard`))!.status()).to.equal(401);

    // The reseller's own click on the link's page signs in: the forged post used nothing up.
    await page.goto(target);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    expect(await dashboardCookies(ctx)).to.have.length(1);
    await ctx.close();
  });

  it('keeps a test key’s session in test: no switch offered, the way to live shown, a forged switch refused 403', async () => {
    const r = await t.reseller({ mode: 'test', scopes: ['dashboard', 'orders:read'] });
    const ctx = await b!.isolated();
    const page = await ctx.newPage();
    await page.goto(await loginLink(r.key));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.baseUrl}/dashboard`);
    expect(await page.getByTestId('mode').textContent()).to.equal('test');
    expect(await page.getByRole('button', { name: /Switch to/ }).count()).to.equal(0);
    expect(await page.getByTestId('mode-hint').textContent()).to.contain('login link made with a live key');
    // Only what the key may read is in the navigation.
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).to.deep.equal([
      'Home',
      'Orders',
    ]);

    // The switch the page does not offer, sent anyway from the page with the session's CSRF token.
    const switched = page.waitForResponse((res) => res.url() === `${t.baseUrl}/dashboard/mode`);
    // A string: the test's TypeScript knows no DOM. CSP does not apply to what DevTools evaluates.
    await page.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/dashboard/mode';
      form.innerHTML = '<input type="hidden" name="mode" value="live">';
      form.appendChild(document.querySelector('input[name="_csrf"]').cloneNode());
      document.body.appendChild(form);
      form.submit();
    })()`);
    expect((await switched).status()).to.equal(403);
    await waitFor('the refusal', async () =>
      (
        await page
          .getByRole('alert')
          .textContent()
          .catch(() => null)
      )?.includes('stays in test mode'),
    );
    await page.goto(`${t.baseUrl}/dashboard`);
    expect(await page.getByTestId('mode').textContent()).to.equal('test');
    expect((await page.goto(`${t.baseUrl}/dashboard/webhooks`))!.status()).to.equal(403);
    await ctx.close();
  });
});
