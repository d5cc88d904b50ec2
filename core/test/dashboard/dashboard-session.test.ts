import { expect } from 'chai';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { eventually } from '../helpers/connector-e2e.ts';
import { placeOrder, PRODUCT, RECIPIENT } from '../orders/orders-helpers.ts';
import { scaled } from '../helpers/wait.ts';

const PUBLIC_URL = 'https://print.example.com';

/** A browser without a browser: one cookie, redirects not followed, pages as text. */
class Visitor {
  cookie: string | undefined;
  readonly t: TestService;
  constructor(t: TestService) {
    this.t = t;
  }

  async open(
    path: string,
    init: { method?: string; form?: Record<string, string | string[]>; headers?: Record<string, string> } = {},
  ) {
    const body = init.form
      ? new URLSearchParams(
          Object.entries(init.form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
        ).toString()
      : undefined;
    const res = await fetch(`${this.t.baseUrl}${path}`, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        'user-agent': USER_AGENT,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      ...(body ? { body } : {}),
    });
    const setCookie = res.headers.getSetCookie();
    for (const c of setCookie) {
      const [pair] = c.split(';');
      this.cookie = pair!.endsWith('=') ? undefined : pair;
    }
    return { status: res.status, location: res.headers.get('location'), setCookie, html: await res.text() };
  }

  /** The CSRF token of the session, from a page's forms. */
  async csrf(): Promise<string> {
    const page = await this.open('/dashboard');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.html)?.[1];
    if (!token) throw new Error(`no CSRF token on the page: ${page.status} ${page.html.slice(0, 300)}`);
    return token;
  }
}

describe('dashboard sessions and pages over HTTP (real PostgreSQL + Redis)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  let receiver: TestHttpsServer;
  before(async function () {
    receiver = await startHttpsServer();
    receiver.route('/hooks', (_req, res) => void res.end('ok'));
    t = await startTestService(this, 'postgres+redis', { PUBLIC_URL }, { maintenanceIntervalMs: 200 });
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  /**
   * Signs in with a link of the reseller's key, or one the back-office made (`backOffice`: a session that switches
   * mode).
   */
  async function signedIn(
    opts: { mode?: 'live' | 'test'; as?: { id: string; key: string }; backOffice?: boolean } = {},
  ) {
    const r = opts.as ?? (await t.reseller({ mode: opts.mode ?? 'live' }));
    const v = new Visitor(t);
    const link = opts.backOffice
      ? await t.admin('POST', `/resellers/${r.id}/dashboard-links`, { mode: opts.mode ?? 'live' })
      : await t.api(r.key, 'POST', '/dashboard-links');
    const path = new URL(link.body.data.url).pathname;
    expect((await v.open(path)).status).to.equal(200);
    const signIn = await v.open(path, { method: 'POST' });
    expect(signIn.status, signIn.html).to.equal(303);
    expect(signIn.location).to.equal('/dashboard');
    return { r, v, signIn };
  }

  it('hands out an HttpOnly, Secure, SameSite=Lax __Host- cookie for 12 hours; only a hash of it is stored', async () => {
    const { r, v, signIn } = await signedIn();
    const [cookie] = signIn.setCookie;
    expect(cookie).to.match(
      /^__Host-pa_dash=rds_[^;]+; Path=\/; Expires=[^;]+; Max-Age=43(1\d\d|200); HttpOnly; SameSite=Lax; Secure$/,
    );
    const token = v.cookie!.split('=')[1]!;
    const rows = await t.service.db.selectFrom('browser_sessions').selectAll().where('subject', '=', r.id).execute();
    expect(rows.map((s) => [s.kind, (s.data as { mode: string }).mode])).to.deep.equal([['reseller', 'live']]);
    expect(JSON.stringify(rows)).not.to.contain(token);
  });

  it('renders every page for a signed-in reseller, and none without a session', async () => {
    const { v } = await signedIn();
    for (const path of [
      '/dashboard',
      '/dashboard/stores',
      '/dashboard/products',
      '/dashboard/products/new',
      '/dashboard/orders',
      '/dashboard/orders?state=AWAITING_FILE',
      '/dashboard/webhooks',
    ]) {
      const page = await v.open(path);
      expect(page.status, `${path}: ${page.html.slice(0, 500)}`).to.equal(200);
      expect(page.html).to.match(/^<!doctype html>/);
    }
    const anonymous = new Visitor(t);
    expect((await anonymous.open('/dashboard')).status).to.equal(401);
    expect((await anonymous.open('/dashboard/products', { form: { sku: 'X' } })).status).to.equal(401);
  });

  it('refuses a form without the session’s CSRF token, or sent from another site', async () => {
    const { v } = await signedIn();
    const form = { sku: 'CSRF-1', title: 'Card', productId: 'business-cards', options: '', active: 'on' };
    expect((await v.open('/dashboard/products', { form })).status).to.equal(403);
    const csrf = await v.csrf();
    expect(
      (
        await v.open('/dashboard/products', {
          form: { ...form, _csrf: csrf },
          headers: { origin: 'https://evil.example' },
        })
      ).status,
    ).to.equal(403);
    const made = await v.open('/dashboard/products', { form: { ...form, _csrf: csrf } });
    expect(made.status, made.html).to.equal(303);
    expect(made.location).to.match(/^\/dashboard\/products\/rp_[^?]+\?done=product-created$/);
  });

  it('shows the API’s refusals next to the fields, with a 422', async () => {
    const { v } = await signedIn();
    const page = await v.open('/dashboard/products', {
      form: { sku: 'bad sku!', title: 'Card', productId: 'business-cards', options: '', _csrf: await v.csrf() },
    });
    expect(page.status).to.equal(422);
    expect(page.html).to.match(/<input id="f-sku"[^>]*aria-invalid="true"[^>]*aria-describedby="f-sku-error"/);
    expect(page.html).to.match(
      /<p id="f-sku-error" class="error" role="alert">May contain letters, digits, dot, underscore and hyphen only\.<\/p>/,
    );
  });

  it('signs a suspended reseller out at once, and every session of theirs with it', async () => {
    const { r, v } = await signedIn();
    const second = (await signedIn({ as: r })).v;
    expect((await v.open('/dashboard')).status).to.equal(200);
    await t.admin('POST', `/resellers/${r.id}/suspend`);
    const next = await v.open('/dashboard/orders');
    expect(next.status).to.equal(303);
    expect(next.location).to.equal('/dashboard/signed-out?reason=inactive');
    expect(v.cookie).to.equal(undefined);
    const live = await t.service.db
      .selectFrom('browser_sessions')
      .select('id')
      .where('subject', '=', r.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).to.deep.equal([]);
    expect((await v.open(next.location!)).html).to.contain('The account is not active any more');
    // The other browser's session ended with it: it has no session any more.
    expect((await second.open('/dashboard')).status).to.equal(401);
  });

  it('signs out (the session is revoked, the cookie cleared) and switches mode by replacing the session (a back-office link)', async () => {
    const { v, r } = await signedIn({ backOffice: true });
    const before = v.cookie;
    const switched = await v.open('/dashboard/mode', { form: { mode: 'test', _csrf: await v.csrf() } });
    expect(switched.status).to.equal(303);
    expect(v.cookie).not.to.equal(before);
    expect((await v.open('/dashboard')).html).to.contain('data-testid="mode">test<');
    const old = new Visitor(t);
    old.cookie = before;
    expect((await old.open('/dashboard')).status).to.equal(401);

    const out = await v.open('/dashboard/sign-out', { form: { _csrf: await v.csrf() } });
    expect(out.status).to.equal(303);
    expect(out.setCookie[0]).to.match(/Max-Age=0/);
    const after = await t.service.db
      .selectFrom('browser_sessions')
      .select('revoked_at')
      .where('subject', '=', r.id)
      .execute();
    expect(after.every((s) => s.revoked_at !== null)).to.equal(true);
  });

  it('gives up the session a browser had when it signs in again with a new link', async () => {
    const { r, v } = await signedIn();
    const first = v.cookie;
    const path = new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url).pathname;
    expect((await v.open(path, { method: 'POST' })).status).to.equal(303);
    expect(v.cookie).not.to.equal(first);
    const live = await t.service.db
      .selectFrom('browser_sessions')
      .select('id')
      .where('subject', '=', r.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).to.have.length(1);
  });

  it('never opens a dashboard page with an operator session', async () => {
    const { token } = await t.service.services.sessions.create('operator', 'admin', { ttlMs: 3600_000 });
    const v = new Visitor(t);
    v.cookie = `__Host-pa_dash=${token}`;
    expect((await v.open('/dashboard')).status).to.equal(401);
  });

  it('webhooks: the secret is shown once on creation and rotation, a test event is delivered and listed', async () => {
    const { v } = await signedIn();
    const url = `${receiver.url}/hooks`;
    const created = await v.open('/dashboard/webhooks', { form: { url, events: ['*'], _csrf: await v.csrf() } });
    expect(created.status, created.html.slice(0, 800)).to.equal(200);
    const secret = /data-testid="secret">(whsec_[^<]+)</.exec(created.html)?.[1];
    expect(secret).to.be.a('string');
    const id =
      /action="\/dashboard\/webhooks\/(whe_[^/]+)\/test"/.exec(created.html)?.[1] ??
      /action="\/dashboard\/webhooks\/([^/"]+)\/test"/.exec(created.html)![1]!;
    const shown = await v.open(`/dashboard/webhooks/${id}`);
    expect(shown.html).not.to.contain(secret!);
    expect((await v.open(`/dashboard/webhooks/${id}/test`, { form: { _csrf: await v.csrf() } })).location).to.equal(
      `/dashboard/webhooks/${id}?done=test-sent`,
    );
    await eventually(
      async () => (await v.open(`/dashboard/webhooks/${id}`)).html.includes('>Delivered<'),
      'the test event delivered',
    );
    const rotated = await v.open(`/dashboard/webhooks/${id}/rotate`, {
      form: { expiresInHours: '0', _csrf: await v.csrf() },
    });
    const fresh = /data-testid="secret">(whsec_[^<]+)</.exec(rotated.html)?.[1];
    expect(fresh).to.be.a('string').and.not.equal(secret);
  });

  it("keeps to the session's mode: test products only in test, live ones only in live (a back-office link)", async () => {
    const { r, v } = await signedIn({ mode: 'live', backOffice: true });
    const testKey = (await t.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'test' })).body.data.key as string;
    expect(
      (
        await t.api(testKey, 'POST', '/reseller-products', {
          sku: 'ONLY-TEST',
          title: 'Sandbox card',
          productId: 'business-cards',
        })
      ).status,
    ).to.equal(201);
    expect(
      (
        await t.api(r.key, 'POST', '/reseller-products', {
          sku: 'ONLY-LIVE',
          title: 'Live card',
          productId: 'business-cards',
        })
      ).status,
    ).to.equal(201);
    const live = (await v.open('/dashboard/products')).html;
    expect(live).to.contain('ONLY-LIVE');
    expect(live).not.to.contain('ONLY-TEST');
    expect((await v.open('/dashboard/products/ONLY-TEST')).status).to.equal(404);
    await v.open('/dashboard/mode', { form: { mode: 'test', _csrf: await v.csrf() } });
    const test = (await v.open('/dashboard/products')).html;
    expect(test).to.contain('ONLY-TEST');
    expect(test).not.to.contain('ONLY-LIVE');
  });

  it('edits and deletes a product, and cancels an order waiting for its file (shown on Home until then)', async () => {
    const { r, v } = await signedIn();
    const made = await v.open('/dashboard/products', {
      form: {
        sku: 'EDIT-ME',
        title: 'Card',
        productId: 'business-cards',
        options: '',
        active: 'on',
        _csrf: await v.csrf(),
      },
    });
    const path = made.location!.replace(/\?.*$/, '');
    const saved = await v.open(path, {
      form: {
        sku: 'EDIT-ME',
        title: 'Better card',
        productId: 'business-cards',
        options: '',
        active: 'on',
        _csrf: await v.csrf(),
      },
    });
    expect(saved.status, saved.html.slice(0, 500)).to.equal(303);
    expect((await t.api(r.key, 'GET', '/reseller-products/EDIT-ME')).body.data.title).to.equal('Better card');
    const deleted = await v.open(`${path}/delete`, { form: { _csrf: await v.csrf() } });
    expect(deleted.location).to.equal('/dashboard/products?done=product-deleted');
    expect((await t.api(r.key, 'GET', '/reseller-products/EDIT-ME')).status).to.equal(404);

    const placed = await placeOrder(t, r.key, {
      externalOrderId: 'NO-FILE-1',
      lines: [{ ...PRODUCT }],
      recipient: RECIPIENT,
    });
    expect(placed.body.data.state, JSON.stringify(placed.body)).to.equal('AWAITING_FILE');
    const orderId = placed.body.data.id as string;
    expect((await v.open('/dashboard')).html).to.contain('NO-FILE-1');
    const detail = await v.open(`/dashboard/orders/${orderId}`);
    expect(detail.html).to.contain('Supply file');
    // The address as a carrier prints it: the company, and the province after the city.
    const italian = await placeOrder(t, r.key, {
      externalOrderId: 'IT-1',
      lines: [{ ...PRODUCT }],
      recipient: {
        ...RECIPIENT,
        company: 'Tipografia Rossi',
        address1: 'Via Torino 12',
        postalCode: '20121',
        city: 'Milano',
        state: 'MI',
        country: 'IT',
      },
    });
    // As the carrier prints it: a line each, the country's name last.
    expect((await v.open(`/dashboard/orders/${italian.body.data.id}`)).html).to.match(
      /Jan de Vries<br\s*\/?>Tipografia Rossi<br\s*\/?>Via Torino 12<br\s*\/?>20121 Milano MI<br\s*\/?>ITALY/,
    );
    const badFile = await v.open(`/dashboard/orders/${orderId}/lines/0/file`, {
      form: { fileUrl: 'http://not-https.example/x.pdf', _csrf: await v.csrf() },
    });
    expect(badFile.status).to.equal(422);
    expect(badFile.html).to.match(/<p id="file-0-error" class="error" role="alert">[^<]*https/);
    const cancelled = await v.open(`/dashboard/orders/${orderId}/cancel`, { form: { _csrf: await v.csrf() } });
    expect(cancelled.location).to.equal(`/dashboard/orders/${orderId}?done=order-cancelled`);
    expect((await t.api(r.key, 'GET', `/orders/${orderId}`)).body.data.state).to.equal('CANCELLED');
    expect((await v.open('/dashboard')).html).not.to.contain('NO-FILE-1');
    const again = await v.open(`/dashboard/orders/${orderId}/cancel`, { form: { _csrf: await v.csrf() } });
    expect(again.status).to.equal(422);
    expect(again.html).to.contain('already cancelled');
  });
});

describe('dashboard pages count against the API rate limit, per reseller (real PostgreSQL + Redis)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PUBLIC_URL, RATE_LIMIT_PER_MINUTE: '5' });
  });
  after(async () => t?.close());

  it('answers 429 with Retry-After once the minute’s budget is spent', async () => {
    const r = await t.reseller();
    const v = new Visitor(t);
    const path = new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url).pathname;
    await v.open(path, { method: 'POST' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await v.open('/dashboard/webhooks')).status);
    expect(statuses.slice(0, 5)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(statuses[5]).to.equal(429);
  });
});

describe('the dashboard on the embedded backend (npm start: PGlite, in-process queue, no Redis)', function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite', { PUBLIC_URL: 'http://127.0.0.1:3000' });
  });
  after(async () => t?.close());

  it('signs in with a plain (not Secure) cookie on http, renders every page and takes a form', async () => {
    const r = await t.reseller();
    const v = new Visitor(t);
    const signIn = await v.open(new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url).pathname, {
      method: 'POST',
    });
    expect(signIn.setCookie[0]).to.match(/^pa_dash=rds_[^;]+;.*HttpOnly; SameSite=Lax$/);
    for (const path of [
      '/dashboard',
      '/dashboard/stores',
      '/dashboard/products',
      '/dashboard/orders',
      '/dashboard/webhooks',
    ]) {
      expect((await v.open(path)).status, path).to.equal(200);
    }
    const made = await v.open('/dashboard/products', {
      form: {
        sku: 'EMBEDDED-1',
        title: 'Card',
        productId: 'business-cards',
        options: '',
        active: 'on',
        _csrf: await v.csrf(),
      },
    });
    expect(made.status, made.html.slice(0, 300)).to.equal(303);
  });
});
