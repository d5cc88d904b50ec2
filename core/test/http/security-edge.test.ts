import { expect } from 'chai';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';

/**
 * A request from the client address `from` (the service trusts loopback as its proxy, so X-Forwarded-For names the
 * client).
 */
async function from(
  t: TestService,
  address: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return fetch(`${t.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { 'user-agent': USER_AGENT, 'x-forwarded-for': address, ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Every response, whichever router answers it, carries the same security headers (helmet, set once at the app). */
function expectSecurityHeaders(res: Response, what: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).to.contain("frame-ancestors 'none'");
  expect(csp, what).to.contain("script-src 'self'");
  expect(csp, what).to.contain("default-src 'none'");
  expect(res.headers.get('x-frame-options'), what).to.equal('DENY');
  expect(res.headers.get('x-content-type-options'), what).to.equal('nosniff');
  expect(res.headers.get('x-powered-by'), what).to.equal(null);
}

describe('the edge on an https deployment: security headers on every surface, HSTS (PGlite)', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite', { PUBLIC_URL: 'https://print.example.com' });
  });
  after(() => t?.close());

  it('sends CSP with frame-ancestors, X-Frame-Options, nosniff and HSTS, and no X-Powered-By, on pages, references, the queue dashboard, JSON and 404s', async () => {
    const admin = bearer(t.service.adminToken);
    const { key } = await t.reseller();
    const surfaces: Array<[string, Record<string, string>]> = [
      ['/admin/v1/queues', admin],
      ['/admin/v1/docs', admin],
      ['/api/reseller/v1/docs', {}],
      ['/api/reseller/v1/docs/errors', {}],
      ['/api/reseller/v1/openapi.json', {}],
      ['/api/reseller/v1/me', bearer(key)],
      ['/api/reseller/v1/me', {}],
      ['/admin', {}],
      ['/dashboard/login/unknown-link', {}],
      ['/no-such-page', {}],
      ['/health', {}],
    ];
    for (const [path, headers] of surfaces) {
      const res = await fetch(`${t.baseUrl}${path}`, {
        redirect: 'manual',
        headers: { 'user-agent': USER_AGENT, ...headers },
      });
      expectSecurityHeaders(res, path);
      expect(res.headers.get('strict-transport-security'), path).to.match(/^max-age=\d{7,}/);
    }
  });
});

describe('credential requests: no open redirect on our own domain (PGlite)', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite', { PUBLIC_URL: 'https://print.example.com' });
  });
  after(() => t?.close());

  it("answers a page, never a redirect, at a request's return address until its flow connected a store", async () => {
    const { key } = await t.reseller();
    const begun = await t.api(key, 'POST', '/stores/credential-requests', {
      platform: 'WOOCOMMERCE',
      storeUrl: 'https://shop.example.com',
      returnUrl: 'https://evil.example/phish',
    });
    expect(begun.status, JSON.stringify(begun.body)).to.equal(201);
    const returnUrl = new URL(begun.body.data.redirectUrl).searchParams.get('return_url')!;
    expect(returnUrl.startsWith('https://print.example.com/connectors/woocommerce/credentials/')).to.equal(true);
    for (const query of ['', '?success=1&user_id=x', '?success=0']) {
      const res = await fetch(`${returnUrl.replace('https://print.example.com', t.baseUrl)}${query}`, {
        redirect: 'manual',
        headers: { 'user-agent': USER_AGENT },
      });
      expect(res.status, query).to.equal(200);
      expect(res.headers.get('location'), query).to.equal(null);
      expect(await res.text()).to.contain('You can close this window');
    }
  });
});

describe('the edge on a plain-http deployment: no HSTS, and X-Forwarded-For ignored unless TRUST_PROXY names the proxy (PGlite)', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(() => t?.close());

  it('sends no Strict-Transport-Security over http, the other headers still', async () => {
    const res = await fetch(`${t.baseUrl}/api/reseller/v1/docs`, { headers: { 'user-agent': USER_AGENT } });
    expectSecurityHeaders(res, 'docs');
    expect(res.headers.get('strict-transport-security')).to.equal(null);
  });

  it('counts wrong keys by the socket address: a forged X-Forwarded-For per guess does not escape the lockout', async () => {
    let last: Response | undefined;
    for (let i = 0; i < 31; i++)
      last = await from(t, `203.0.113.${i}`, '/api/reseller/v1/me', {
        headers: bearer(`prk_live_${'B'.repeat(31)}${i % 10}`),
      });
    expect(last!.status).to.equal(429);
  });
});

describe('lockouts throttle failures per client address, and never refuse a right credential (PostgreSQL + Redis, TRUST_PROXY=loopback)', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', {
      TRUST_PROXY: 'loopback',
      PUBLIC_URL: 'https://print.example.com',
    });
  });
  after(() => t?.close());

  it('wrong API keys: 401, then 429 with Retry-After past 30 from one address; a valid key from that address is never slowed; another address is not affected', async () => {
    const { key } = await t.reseller();
    const client = '198.51.100.10';
    const wrong = () => from(t, client, '/api/reseller/v1/me', { headers: bearer(`prk_live_${'A'.repeat(32)}`) });
    for (let i = 0; i < 29; i++) expect((await wrong()).status).to.equal(401);
    const limited = await wrong();
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    const body = (await limited.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('too_many_failures');
    expect(body.error.message).to.contain('a right one still works');
    expect((await from(t, client, '/api/reseller/v1/me', { headers: bearer(key) })).status).to.equal(200);
    expect((await wrong()).status).to.equal(429);
    expect(
      (await from(t, '198.51.100.11', '/api/reseller/v1/me', { headers: bearer(`prk_live_${'A'.repeat(32)}`) })).status,
    ).to.equal(401);
    // No key at all is not a guess: it is never counted nor throttled.
    expect((await from(t, client, '/api/reseller/v1/me')).status).to.equal(401);
  });

  it('wrong admin tokens: 429 past 30 from one address; the right token from that address still works', async () => {
    const client = '198.51.100.20';
    const wrong = () => from(t, client, '/admin/v1/resellers', { headers: bearer(`adm_wrong_${'x'.repeat(30)}`) });
    for (let i = 0; i < 29; i++) expect((await wrong()).status).to.equal(401);
    const limited = await wrong();
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    expect((await from(t, client, '/admin/v1/resellers', { headers: bearer(t.service.adminToken) })).status).to.equal(
      200,
    );
  });

  it('console sign-in: ten wrong tokens lock out wrong ones from that address only; the right token signs in from it', async () => {
    const signIn = (client: string, token: string) =>
      from(t, client, '/admin/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
      });
    const client = '198.51.100.30';
    for (let i = 0; i < 9; i++) expect((await signIn(client, `wrong-${i}-${'x'.repeat(30)}`)).status).to.equal(401);
    expect((await signIn(client, `wrong-10-${'x'.repeat(30)}`)).status).to.equal(429);
    expect((await signIn(client, t.service.adminToken)).status).to.equal(303);
    expect((await signIn('198.51.100.31', `wrong-${'x'.repeat(30)}`)).status).to.equal(401);
  });

  it('dashboard links: ten that do not open lock out bad links from that address; a valid link still opens from it', async () => {
    const { key } = await t.reseller();
    const client = '198.51.100.40';
    const open = (path: string) =>
      from(t, client, path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
    for (let i = 0; i < 9; i++) expect((await open(`/dashboard/login/not-a-link-${i}`)).status).to.equal(404);
    const limited = await open('/dashboard/login/not-a-link-10');
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    const link = new URL((await t.api(key, 'POST', '/dashboard-links')).body.data.url).pathname;
    const signedIn = await open(link);
    expect(signedIn.status).to.equal(303);
    expect(signedIn.headers.getSetCookie().join()).to.contain('pa_dash=rds_');
  });
});
