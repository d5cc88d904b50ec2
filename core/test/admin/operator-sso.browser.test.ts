import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Provider from 'oidc-provider';
import type { BrowserContext, Page } from 'playwright-core';
import { suiteBrowser, type TestBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** The people of the test identity provider, with what their roles claim holds. */
const PEOPLE: Record<string, { name: string; email: string; roles: string[] }> = {
  vera: { name: 'Vera Viewer', email: 'vera@print.example', roles: ['viewer'] },
  sam: { name: 'Sam Support', email: 'sam@print.example', roles: ['support'] },
  ada: { name: 'Ada Admin', email: 'ada@print.example', roles: ['viewer', 'admin'] },
  cleo: { name: 'Cleo Customer', email: 'cleo@print.example', roles: ['customer'] },
};

const isCallback = (url: URL) => url.pathname === '/admin/oidc/callback';
const HELD = 'Held by the test: the browser did not follow the provider back.';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/**
 * Single sign-on of operators against a real OpenID Provider (oidc-provider, a certified implementation) started in
 * this process on loopback, driven in Chromium: its own login and consent pages, the code flow with PKCE, state and
 * nonce, and the console's roles.
 */
describe('operators sign in with single sign-on (OpenID Connect) and act by their role', function () {
  this.timeout(300_000);
  let t: TestService;
  let b: TestBrowser;
  let idp: Server;
  let resellerId: string;
  /**
   * The test on the path between the browser and the provider, as an attacker or a broken proxy would be: it may take
   * the provider's redirect back to our callback (the browser then stops at the provider, the URL in the test's hand)
   * and change the next authorization request on its way in. The provider itself answers as it always does.
   */
  let holdNextCallback: ((callback: string) => void) | undefined;
  let rewriteNextAuthorization: ((params: URLSearchParams) => void) | undefined;
  suiteBrowser((launched) => (b = launched));

  before(async function () {
    idp = createServer();
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: 'print-api-console',
          client_secret: 'a-long-client-secret-for-the-console',
          redirect_uris: [`${publicUrl}/admin/oidc/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      claims: { openid: ['sub'], email: ['email'], profile: ['name', 'roles'] },
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      findAccount: async (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: async () => ({ sub: id, ...(PEOPLE[id] ?? { roles: [] }) }),
      }),
    });
    provider.use(async (ctx: any, next: () => Promise<void>) => {
      if (rewriteNextAuthorization && ctx.method === 'GET' && ctx.path === '/auth') {
        const params = new URLSearchParams(ctx.querystring);
        rewriteNextAuthorization(params);
        rewriteNextAuthorization = undefined;
        ctx.querystring = params.toString();
      }
      await next();
      const location = String(ctx.response.get('location') ?? '');
      if (holdNextCallback && ctx.status >= 300 && ctx.status < 400 && isCallback(new URL(location, issuer))) {
        holdNextCallback(location);
        holdNextCallback = undefined;
        ctx.remove('Location');
        ctx.status = 200;
        ctx.type = 'text/plain';
        ctx.body = HELD;
      }
    });
    idp.on('request', provider.callback());
    t = await startTestService(
      this,
      'pglite',
      {
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        OPERATOR_OIDC_ISSUER: issuer,
        OPERATOR_OIDC_CLIENT_ID: 'print-api-console',
        OPERATOR_OIDC_CLIENT_SECRET: 'a-long-client-secret-for-the-console',
      },
      { oidcAllowInsecureRequests: true },
    );
    const created = await t.admin('POST', '/resellers', {
      name: 'Inkwell',
      email: 'i@inkwell.example',
      phone: '+31 20 123 4567',
    });
    resellerId = created.body.data.id;
  });
  after(async () => {
    await t?.close();
    idp?.close();
  });

  /**
   * Signs `who` in through the provider's own pages in a fresh profile. With `holdCallback` the browser stops at the
   * provider and the callback URL it would have followed is returned; otherwise `status` is our callback's answer.
   */
  async function signIn(
    who: string,
    opts: { holdCallback?: boolean } = {},
  ): Promise<{ ctx: BrowserContext; page: Page; callback?: string; status?: number }> {
    const ctx = await b.isolated();
    const page = await ctx.newPage();
    const held = opts.holdCallback ? new Promise<string>((resolve) => (holdNextCallback = resolve)) : undefined;
    const answered = held ? undefined : page.waitForResponse((r) => isCallback(new URL(r.url())));
    await page.goto(`${t.baseUrl}/admin`);
    await page.click('a[data-sso]');
    await page.fill('input[name="login"]', who);
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    await page.locator('button:has-text("Continue")').click();
    if (held) {
      const callback = await held;
      await page.getByText(HELD).waitFor();
      return { ctx, page, callback };
    }
    const status = (await answered!).status();
    await page.locator('[data-signed-in-as], [data-sso-refused]').first().waitFor();
    return { ctx, page, status };
  }

  /** The newest record's place in the audit chain: what a test's own records come after. */
  async function headSeq(): Promise<number> {
    const [newest] = (await t.admin('GET', '/audit-events?limit=1')).body.data;
    return newest?.seq ?? 0;
  }

  /** The refused sign-ins recorded after `seq`, newest first. */
  async function refusalsAfter(seq: number): Promise<any[]> {
    const page = (await t.admin('GET', '/audit-events?action=operator.sign_in_refused&limit=50')).body.data as any[];
    return page.filter((e) => e.seq > seq);
  }

  /** Whether the profile holds a console session's cookie. */
  async function hasSession(ctx: BrowserContext): Promise<boolean> {
    return (await ctx.cookies()).some((c) => c.name === 'pa_ops');
  }

  /** A back-office call from the page, with the console session's cookie and CSRF token (the XSRF-TOKEN cookie). */
  async function fromPage(page: Page, method: string, path: string, body?: unknown) {
    return page.evaluate(
      async ({ method, path, body }) => {
        const xsrf = (globalThis as any).document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]+)/);
        const res = await fetch(path, {
          method,
          headers: {
            'content-type': 'application/json',
            ...(xsrf ? { 'x-csrf-token': decodeURIComponent(xsrf[1]!) } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json().catch(() => null)) as any };
      },
      { method, path, body },
    );
  }

  it('a viewer signs in, is shown by name, reads everything and changes nothing', async () => {
    const { page } = await signIn('vera');
    expect(await page.locator('[data-signed-in-as]').innerText()).to.contain('Vera Viewer');
    expect(await page.locator('[data-role]').innerText()).to.equal('viewer');
    await page.goto(`${t.baseUrl}/admin/resellers/${resellerId}`);
    expect(await page.locator('[data-action]').count()).to.equal(0);
    // The same session is a door to /admin/v1 (XSRF-TOKEN is scoped to it), under the same role.
    await page.goto(`${t.baseUrl}/admin/v1/docs`);
    expect((await fromPage(page, 'GET', `/admin/v1/resellers/${resellerId}`)).status).to.equal(200);
    const approve = await fromPage(page, 'POST', `/admin/v1/resellers/${resellerId}/approve`);
    expect(approve.status).to.equal(403);
    expect(approve.body.error.code).to.equal('insufficient_role');
    expect(approve.body.error.message).to.contain('vera@print.example');
  });

  it('an admin approves, tops up and makes a key from the reseller page, recorded as the person', async () => {
    const { page } = await signIn('ada');
    expect(await page.locator('[data-role]').innerText()).to.equal('admin');
    await page.goto(`${t.baseUrl}/admin/resellers/${resellerId}`);
    await page.click('button[data-action="approve"]');
    await page.waitForURL(`**/admin/resellers/${resellerId}`);
    expect(await page.locator('[data-status]').innerText()).to.equal('approved');
    await page.fill('#amount', '25.50');
    await page.click('button[data-action="top-up"]');
    await page.waitForURL(`**/admin/resellers/${resellerId}`);
    await page.click('button[data-action="api-keys"]');
    expect(await page.locator('[data-new-key]').innerText()).to.match(/^prk_live_/);
    const wallet = await t.admin('GET', `/resellers/${resellerId}/wallet`);
    expect(wallet.body.data.balanceCents).to.equal(2550);
    const trail = (await t.admin('GET', `/audit-events?actorId=ada&limit=50`)).body.data as any[];
    expect(trail.map((e) => e.action).reverse()).to.deep.equal([
      'operator.signed_in',
      'reseller.approved',
      'wallet.topped_up',
      'api_key.created',
    ]);
    expect(trail[0].actor).to.deep.equal({
      type: 'operator',
      id: 'ada',
      name: 'Ada Admin',
      email: 'ada@print.example',
    });
    await page.goto(`${t.baseUrl}/admin/audit?actorId=ada`);
    expect(await page.locator('tr[data-action="reseller.approved"]').count()).to.equal(1);
  });

  it('support makes a dashboard link but may not suspend', async () => {
    const { page } = await signIn('sam');
    await page.goto(`${t.baseUrl}/admin/resellers/${resellerId}`);
    expect(await page.locator('button[data-action="suspend"]').count()).to.equal(0);
    await page.click('button[data-action="dashboard-link"]');
    expect(await page.locator('[data-new-link]').innerText()).to.contain('/dashboard/login/');
    await page.goto(`${t.baseUrl}/admin/v1/docs`);
    const suspend = await fromPage(page, 'POST', `/admin/v1/resellers/${resellerId}/suspend`);
    expect(suspend.status).to.equal(403);
    const link = await fromPage(page, 'POST', `/admin/v1/resellers/${resellerId}/dashboard-links`, {});
    expect(link.status).to.equal(201);
    // A change without the session's CSRF token is refused, whatever the role.
    const bare = await page.evaluate(
      async (p) => (await fetch(p, { method: 'POST' })).status,
      `/admin/v1/resellers/${resellerId}/dashboard-links`,
    );
    expect(bare).to.equal(403);
  });

  it('a person with no known role gets no session and a page that says so', async () => {
    const { page, ctx } = await signIn('cleo');
    expect(await page.locator('[data-sso-refused]').innerText()).to.contain('no operator role');
    expect((await ctx.cookies()).map((c) => c.name)).to.not.include('pa_ops');
    await page.goto(`${t.baseUrl}/admin`);
    expect(await page.locator('a[data-sso]').count()).to.equal(1);
    const [refused] = (await t.admin('GET', '/audit-events?action=operator.sign_in_refused&actorId=cleo')).body.data;
    expect(refused.changes).to.include({ method: 'oidc', reason: 'no_known_role' });
  });

  it('a callback whose state is not the one this browser sent gives no session, and is recorded', async () => {
    const seq = await headSeq();
    const { ctx, page, callback } = await signIn('ada', { holdCallback: true });
    const tampered = new URL(callback!);
    expect(tampered.searchParams.get('code')).to.be.a('string');
    tampered.searchParams.set('state', 'a-state-this-browser-never-sent');
    const answer = await page.goto(tampered.href);
    expect(answer!.status()).to.equal(400);
    expect(await page.locator('[data-sso-refused]').innerText()).to.contain('no session was opened');
    expect(await hasSession(ctx)).to.equal(false);
    const [refused, ...more] = await refusalsAfter(seq);
    expect(more).to.deep.equal([]);
    expect(refused.actor).to.deep.equal({ type: 'system', id: 'operator-sso' });
    expect(refused.changes).to.include({ method: 'oidc', reason: 'failed_check', check: 'OAUTH_INVALID_RESPONSE' });
    expect(refused.changes.message).to.contain('"state"');
  });

  it('an authorization code used once is refused the second time, with a page (not a 500) and no session', async () => {
    const { ctx, page, callback } = await signIn('ada', { holdCallback: true });
    const flow = (await ctx.cookies()).find((c) => c.name === 'pa_oidc_tx');
    expect(flow, 'the sign-in flow cookie').to.not.equal(undefined);
    await page.goto(callback!);
    await page.locator('[data-signed-in-as]').waitFor();
    expect(await hasSession(ctx)).to.equal(true);
    // Someone holding the callback URL and the flow's cookie replays both from another browser: state, PKCE verifier
    // and nonce all match, and the provider refuses the code it has already exchanged.
    const seq = await headSeq();
    const other = await b.isolated();
    await other.addCookies([flow!]);
    const replayPage = await other.newPage();
    const answer = await replayPage.goto(callback!);
    expect(answer!.status()).to.equal(400);
    expect(await replayPage.locator('[data-sso-refused]').innerText()).to.contain('no session was opened');
    expect(await hasSession(other)).to.equal(false);
    const [refused, ...more] = await refusalsAfter(seq);
    expect(more).to.deep.equal([]);
    expect(refused.changes).to.include({
      method: 'oidc',
      reason: 'failed_check',
      check: 'OAUTH_RESPONSE_BODY_ERROR',
      error: 'invalid_grant',
    });
  });

  it('an ID token whose nonce is not the one this browser sent gives no session, and is recorded', async () => {
    const seq = await headSeq();
    // The authorization request reaches the provider with another nonce: the provider signs an ID token carrying it.
    rewriteNextAuthorization = (params) => params.set('nonce', 'a-nonce-this-browser-never-sent');
    const { ctx, page, status } = await signIn('ada');
    expect(rewriteNextAuthorization, 'the authorization request was rewritten').to.equal(undefined);
    expect(status).to.equal(400);
    expect(await page.locator('[data-sso-refused]').innerText()).to.contain('no session was opened');
    expect(await hasSession(ctx)).to.equal(false);
    const [refused, ...more] = await refusalsAfter(seq);
    expect(more).to.deep.equal([]);
    expect(refused.changes).to.include({
      method: 'oidc',
      reason: 'failed_check',
      check: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
    });
    expect(refused.changes.message).to.contain('"nonce"');
  });

  it('a callback without the flow this browser started gives no session, and is recorded', async () => {
    const seq = await headSeq();
    const res = await fetch(`${t.baseUrl}/admin/oidc/callback?code=a-code&state=a-state`, { redirect: 'manual' });
    expect(res.status).to.equal(400);
    expect(await res.text()).to.contain('This sign-in was not started here');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('pa_ops='))).to.equal(false);
    const [refused] = await refusalsAfter(seq);
    expect(refused.changes).to.include({ method: 'oidc', reason: 'no_flow' });
  });

  it('stops recording refused callbacks from an address that keeps sending them: ten are heard, then 429 unheard', async () => {
    // From 127.0.0.2 (loopback too): its count is its own, the other tests' callbacks come from 127.0.0.1.
    const callback = () =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        const req = httpRequest(
          `${t.baseUrl}/admin/oidc/callback?code=a-code&state=a-state`,
          { localAddress: '127.0.0.2' },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const seq = await headSeq();
    for (let i = 0; i < 10; i++) expect((await callback()).status).to.equal(400);
    expect(await refusalsAfter(seq)).to.have.length(10);
    const stopped = await callback();
    expect(stopped.status).to.equal(429);
    expect(Number(stopped.retryAfter)).to.be.greaterThan(0);
    expect(await refusalsAfter(seq)).to.have.length(10);
    // Another address is still heard.
    const other = await fetch(`${t.baseUrl}/admin/oidc/callback?code=a-code&state=a-state`, { redirect: 'manual' });
    expect(other.status).to.equal(400);
  });
});
