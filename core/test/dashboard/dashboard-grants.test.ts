import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { RECIPIENT } from '../orders/orders-helpers.ts';
import { scaled } from '../helpers/wait.ts';

const PUBLIC_URL = 'https://print.example.com';

/** One browser without a browser: its cookie, redirects not followed, pages as text. */
class Visitor {
  cookie: string | undefined;
  readonly t: TestService;
  constructor(t: TestService) {
    this.t = t;
  }

  async open(
    path: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    const res = await fetch(`${this.t.baseUrl}${path}`, {
      method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        'user-agent': USER_AGENT,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    const setCookie = res.headers.getSetCookie();
    for (const c of setCookie) {
      const [pair] = c.split(';');
      this.cookie = pair!.endsWith('=') ? undefined : pair;
    }
    return { status: res.status, location: res.headers.get('location'), setCookie, html: await res.text() };
  }

  async csrf(): Promise<string> {
    const page = await this.open('/dashboard');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.html)?.[1];
    if (!token) throw new Error(`no CSRF token on the page: ${page.status} ${page.html.slice(0, 300)}`);
    return token;
  }
}

/** The path of a fresh login link of `key`. */
async function linkOf(t: TestService, key: string): Promise<string> {
  const res = await t.api(key, 'POST', '/dashboard-links');
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return new URL(res.body.data.url).pathname;
}

async function signedIn(t: TestService, key: string): Promise<Visitor> {
  const v = new Visitor(t);
  const res = await v.open(await linkOf(t, key), { method: 'POST' });
  expect(res.status, res.html).to.equal(303);
  return v;
}

async function liveSessionsOf(t: TestService, resellerId: string) {
  return t.service.db
    .selectFrom('browser_sessions')
    .select(['id', 'data'])
    .where('subject', '=', resellerId)
    .where('revoked_at', 'is', null)
    .execute();
}

describe('dashboard sessions never outgrow the key that opened them (real PostgreSQL + Redis)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PUBLIC_URL });
  });
  after(() => t?.close());

  it("keeps a test key's session in test: no switch offered, the way to a live session said, the live switch refused 403, live orders out of reach", async () => {
    const live = await t.reseller({ mode: 'live' });
    const testKey = (
      await t.admin('POST', `/resellers/${live.id}/api-keys`, {
        mode: 'test',
        scopes: ['dashboard', 'orders:read', 'orders:write'],
      })
    ).body.data.key as string;
    const order = await t.api(
      live.key,
      'POST',
      '/orders',
      { lines: [{ productId: 'business-cards', quantity: 250 }], recipient: RECIPIENT },
      { 'idempotency-key': randomUUID() },
    );
    expect(order.status, JSON.stringify(order.body)).to.equal(201);
    const v = await signedIn(t, testKey);

    const home = await v.open('/dashboard');
    expect(home.html).to.contain('data-testid="mode">test<');
    expect(home.html).not.to.contain('action="/dashboard/mode"');
    expect(home.html).to.contain('login link made with a live key');
    // Merchant words: no API path or command in the banner.
    expect(home.html).not.to.contain('/api/reseller');
    expect(home.html).not.to.contain('npm run');

    const switched = await v.open('/dashboard/mode', { form: { mode: 'live', _csrf: await v.csrf() } });
    expect(switched.status).to.equal(403);
    expect(switched.html).to.contain('stays in test mode');
    expect((await v.open('/dashboard')).html).to.contain('data-testid="mode">test<');
    const rows = await liveSessionsOf(t, live.id);
    expect(rows.map((r) => (r.data as { mode: string }).mode)).to.deep.equal(['test']);

    expect((await v.open(`/dashboard/orders/${order.body.data.id}`)).status).to.equal(404);
    expect(
      (await v.open(`/dashboard/orders/${order.body.data.id}/cancel`, { form: { _csrf: await v.csrf() } })).status,
    ).to.equal(404);
    expect((await t.api(live.key, 'GET', `/orders/${order.body.data.id}`)).body.data.state).not.to.equal('CANCELLED');
  });

  it("offers only the pages and forms of the key's scopes; the others answer 403 and change nothing", async () => {
    const r = await t.reseller({ mode: 'live', scopes: ['dashboard', 'orders:read'] });
    const v = await signedIn(t, r.key);
    const home = await v.open('/dashboard');
    expect(home.status, home.html).to.equal(200);
    const nav = /<nav aria-label="Main">(.*?)<\/nav>/.exec(home.html)?.[1] ?? '';
    expect(nav).to.contain('href="/dashboard/orders"');
    for (const hidden of ['/dashboard/stores', '/dashboard/products', '/dashboard/webhooks'])
      expect(nav).not.to.contain(`href="${hidden}"`);
    expect((await v.open('/dashboard/orders')).status).to.equal(200);
    // An order it may read, but not change: neither the cancel form nor the file form is offered.
    const writer = (await t.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live' })).body.data.key as string;
    const order = await t.api(
      writer,
      'POST',
      '/orders',
      { lines: [{ productId: 'business-cards', quantity: 250 }], recipient: RECIPIENT },
      { 'idempotency-key': randomUUID() },
    );
    const detail = await v.open(`/dashboard/orders/${order.body.data.id}`);
    expect(detail.status).to.equal(200);
    expect(detail.html).to.contain(order.body.data.id);
    expect(detail.html).not.to.contain('/cancel"');
    expect(detail.html).not.to.contain('Supply file');
    for (const path of ['/dashboard/stores', '/dashboard/products', '/dashboard/products/new', '/dashboard/webhooks']) {
      const page = await v.open(path);
      expect(page.status, path).to.equal(403);
      expect(page.html, path).to.contain('without the scope');
    }
    const csrf = await v.csrf();
    const hook = await v.open('/dashboard/webhooks', {
      form: { url: 'https://hooks.example.com/in', events: '*', _csrf: csrf },
    });
    expect(hook.status).to.equal(403);
    expect(
      await t.service.db.selectFrom('webhook_endpoints').select('id').where('reseller_id', '=', r.id).execute(),
    ).to.deep.equal([]);
    expect((await v.open('/dashboard/orders/ord_x/cancel', { form: { _csrf: csrf } })).status).to.equal(403);
    expect(
      (await v.open('/dashboard/stores/connect', { form: { platform: 'WOOCOMMERCE', _csrf: csrf } })).status,
    ).to.equal(403);
  });

  it('refuses a login link posted from another site (403, no cookie, the link not used up); a GET never starts a session', async () => {
    const r = await t.reseller({ mode: 'live' });
    const path = await linkOf(t, r.key);
    const v = new Visitor(t);
    const page = await v.open(path);
    expect(page.status).to.equal(200);
    expect(page.setCookie).to.deep.equal([]);
    const foreign: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const forged = await v.open(path, { method: 'POST', headers });
      expect(forged.status, JSON.stringify(headers)).to.equal(403);
      expect(forged.setCookie, JSON.stringify(headers)).to.deep.equal([]);
      expect(forged.html).to.contain('sent by another site');
    }
    expect(await liveSessionsOf(t, r.id)).to.deep.equal([]);
    const own = await v.open(path, {
      method: 'POST',
      headers: { origin: PUBLIC_URL, 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).to.equal(303);
    expect(own.setCookie.join()).to.contain('pa_dash=rds_');
  });
});

describe('revoking a key ends its sessions and unused links at once, in every process (two API processes on one PostgreSQL)', function () {
  this.timeout(scaled(90_000));
  let a: TestService;
  let b: TestService;
  before(async function () {
    a = await startTestService(this, 'postgres+redis', { PUBLIC_URL });
    b = await startTestService(this, 'postgres+redis', {
      PUBLIC_URL,
      DATABASE_URL: a.service.config.DATABASE_URL!,
      ADMIN_TOKEN: a.service.adminToken,
    });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('signs out every session of the revoked key on the other process and refuses its unused link; another key’s session lives on', async () => {
    const r = await a.reseller({ mode: 'live' });
    const other = (await a.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live' })).body.data.key as string;
    const onA = await signedIn(a, r.key);
    const onB = new Visitor(b);
    onB.cookie = onA.cookie;
    expect((await onB.open('/dashboard')).status).to.equal(200);
    const survivor = await signedIn(b, other);
    const unused = await linkOf(a, r.key);

    expect((await a.admin('DELETE', `/api-keys/${r.keyId}`)).status).to.equal(200);

    // Ended in the database before the revocation was answered: the other process finds no session.
    const gone = await onB.open('/dashboard/orders');
    expect(gone.status).to.equal(401);
    expect(gone.html).to.contain('Sign in with a login link');
    expect((await onA.open('/dashboard')).status).to.equal(401);
    const live = await liveSessionsOf(a, r.id);
    expect(live.map((s) => (s.data as { keyId?: string }).keyId)).to.not.include(r.keyId);
    expect(live).to.have.length(1);
    expect((await survivor.open('/dashboard')).status).to.equal(200);

    const refused = await new Visitor(b).open(unused, { method: 'POST' });
    expect(refused.status).to.equal(410);
    expect(refused.html).to.contain('has been revoked');
    expect(refused.setCookie).to.deep.equal([]);
  });
});
