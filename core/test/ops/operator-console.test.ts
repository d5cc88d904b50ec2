import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SecretBox } from '../../src/infra/crypto.ts';
import { newId } from '../../src/infra/ids.ts';
import { describeEachBackend, startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';

/** A platform no connector serves: the service's sweeps and polls leave its seeded stores alone. */
const PLATFORM = 'SIMULATED';

async function signIn(t: TestService, token = t.service.adminToken, headers: Record<string, string> = {}) {
  return fetch(`${t.baseUrl}/admin/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENT, ...headers },
    body: new URLSearchParams({ token }).toString(),
  });
}

/** Signs in; returns the cookie header to send and the session's CSRF token. */
async function session(t: TestService): Promise<{ cookie: string; csrf: string }> {
  const res = await signIn(t);
  expect(res.status).to.equal(303);
  const set = res.headers.getSetCookie();
  const cookie = set.map((c) => c.split(';')[0]!).join('; ');
  const csrf = set
    .find((c) => c.startsWith('XSRF-TOKEN='))!
    .split(';')[0]!
    .slice('XSRF-TOKEN='.length);
  return { cookie, csrf };
}

/** Seeds a store of PLATFORM directly (its rows as the ingestion pipeline writes them). */
async function seedStore(
  t: TestService,
  resellerId: string,
  opts: {
    name: string;
    status?: 'connected' | 'disconnected';
    lastError?: string;
    credentials?: Record<string, unknown>;
    createdAt: Date;
  },
): Promise<string> {
  const box = new SecretBox(t.service.config.ENCRYPTION_KEY!);
  const id = newId('sto', opts.createdAt.getTime());
  await t.service.db
    .insertInto('stores')
    .values({
      id,
      reseller_id: resellerId,
      mode: 'live',
      platform: PLATFORM,
      external_id: `ext-${randomUUID()}`,
      name: opts.name,
      credentials_sealed: box.sealJson(opts.credentials ?? { token: 'x' }),
      webhook_secret_sealed: null,
      status: opts.status ?? 'connected',
      poll_cursor: null,
      last_polled_at: new Date(Date.now() - 60_000),
      last_error: opts.lastError ?? null,
      created_at: opts.createdAt,
      updated_at: opts.createdAt,
      disconnected_at: opts.status === 'disconnected' ? opts.createdAt : null,
    })
    .execute();
  return id;
}

async function seedWebhook(t: TestService, storeId: string, receivedAt: Date, processed: boolean): Promise<void> {
  await t.service.db
    .insertInto('store_webhook_events')
    .values({
      id: newId('swe'),
      platform: PLATFORM,
      store_id: storeId,
      event_key: randomUUID(),
      topic: 'orders/create',
      headers: '{}',
      raw_body: Buffer.alloc(0),
      path: '',
      received_at: receivedAt,
      processed_at: processed ? receivedAt : null,
    })
    .execute();
}

async function seedIngest(
  t: TestService,
  storeId: string,
  status: 'placed' | 'failed' | 'no_print_lines',
  createdAt = new Date(),
): Promise<void> {
  await t.service.db
    .insertInto('store_ingests')
    .values({
      id: newId('sin'),
      store_id: storeId,
      external_order_id: randomUUID(),
      external_name: null,
      status,
      order_id: null,
      skipped_lines: '[]',
      error: status === 'failed' ? 'boom' : null,
      store_updated_at: createdAt,
      store_created_at: createdAt,
      attempts: 1,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .execute();
}

describeEachBackend('operators: sign-in, sessions and the back-office', (get) => {
  it('shows a sign-in page at /admin with the page headers', async () => {
    const res = await fetch(`${get().baseUrl}/admin`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/text\/html/);
    expect(res.headers.get('content-security-policy')).to.contain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const text = await res.text();
    expect(text).to.match(/^<!doctype html>/);
    expect(text).to.contain('<label for="f-token">Admin token</label>');
  });

  it('opens a session with the admin token: HttpOnly, SameSite=Strict, expiring; a wrong token or another site is refused', async () => {
    const t = get();
    const wrong = await signIn(t, 'x'.repeat(40));
    expect(wrong.status).to.equal(401);
    expect(await wrong.text()).to.contain('That is not the admin token.');
    const cross = await signIn(t, t.service.adminToken, { origin: 'https://evil.example' });
    expect(cross.status).to.equal(403);
    const ok = await signIn(t);
    expect(ok.status).to.equal(303);
    expect(ok.headers.get('location')).to.equal('/admin');
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith('pa_ops='))!;
    expect(cookie).to.match(/; HttpOnly; SameSite=Strict$/);
    // Eight hours.
    expect(Number(/Max-Age=(\d+)/.exec(cookie)![1])).to.be.within(8 * 3600 - 60, 8 * 3600);
    expect(cookie).to.not.contain('Secure');
    // Only a hash of the token is kept.
    const token = cookie.split(';')[0]!.slice('pa_ops='.length);
    const rows = await t.service.db.selectFrom('browser_sessions').selectAll().where('kind', '=', 'operator').execute();
    expect(JSON.stringify(rows)).to.not.contain(token);
    // Back to where the operator was going (inside the console only).
    const next = await fetch(`${t.baseUrl}/admin/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t.service.adminToken, next: '/admin/stores?platform=x' }).toString(),
    });
    expect(next.headers.get('location')).to.equal('/admin/stores?platform=x');
    const away = await fetch(`${t.baseUrl}/admin/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t.service.adminToken, next: '//evil.example/admin' }).toString(),
    });
    expect(away.headers.get('location')).to.equal('/admin');
  });

  it('lets the session use the back-office API, with the CSRF token on every change; the Bearer token keeps working', async () => {
    const t = get();
    const s = await session(t);
    const list = await fetch(`${t.baseUrl}/admin/v1/stores`, { headers: { cookie: s.cookie } });
    expect(list.status).to.equal(200);
    const body = { name: 'Session Prints', email: 'ops@session.example', phone: '+31 20 123 4567' };
    const post = (headers: Record<string, string>) =>
      fetch(`${t.baseUrl}/admin/v1/resellers`, {
        method: 'POST',
        headers: { cookie: s.cookie, 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
        body: JSON.stringify(body),
      });
    const without = await post({});
    expect(without.status).to.equal(403);
    expect(((await without.json()) as any).error.code).to.equal('csrf_failed');
    expect((await post({ 'x-csrf-token': 'nope' })).status).to.equal(403);
    expect((await post({ 'x-xsrf-token': s.csrf, origin: 'https://evil.example' })).status).to.equal(403);
    expect((await post({ 'x-xsrf-token': s.csrf })).status).to.equal(201);
    expect((await post({ 'x-csrf-token': s.csrf })).status).to.equal(201);
    expect((await t.admin('POST', '/resellers', body)).status).to.equal(201);
    // Without a session or a token: a browser is sent to sign in, a script gets the 401.
    const page = await fetch(`${t.baseUrl}/admin/v1/queues`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/admin?next=%2Fadmin%2Fv1%2Fqueues');
    expect((await fetch(`${t.baseUrl}/admin/v1/stores`)).status).to.equal(401);
  });

  it('serves the back-office OpenAPI description and docs, generated from the admin routes', async () => {
    const t = get();
    const s = await session(t);
    const spec = await t.admin('GET', '/openapi.json');
    expect(spec.status).to.equal(200);
    expect(spec.body.paths['/stores'].get.operationId).to.equal('listStoreHealth');
    expect(spec.body.paths['/stores'].get.parameters.map((p: { name: string }) => p.name)).to.include.members([
      'platform',
      'reseller',
      'state',
      'limit',
      'cursor',
    ]);
    expect(spec.body.paths['/resellers']).to.not.equal(undefined);
    const docs = await fetch(`${t.baseUrl}/admin/v1/docs`, { headers: { cookie: s.cookie } });
    expect(docs.status).to.equal(200);
    const html = await docs.text();
    expect(html).to.contain('/admin/v1/openapi.json');
    expect(html).to.contain('Print API back-office reference');
    expect(
      (await fetch(`${t.baseUrl}/admin/v1/docs/assets/swagger-ui-bundle.js`, { headers: { cookie: s.cookie } })).status,
    ).to.equal(200);
    expect(
      await (await fetch(`${t.baseUrl}/admin/v1/docs/assets/docs-init.js`, { headers: { cookie: s.cookie } })).text(),
    ).to.contain('X-XSRF-TOKEN');
  });

  it('signs out: the session and its cookie end; "everywhere" ends every operator session', async () => {
    const t = get();
    const a = await session(t);
    const b = await session(t);
    const out = await fetch(`${t.baseUrl}/admin/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: a.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${a.csrf}`,
    });
    expect(out.status).to.equal(303);
    expect(out.headers.getSetCookie().find((c) => c.startsWith('pa_ops='))).to.match(/Max-Age=0/);
    expect((await fetch(`${t.baseUrl}/admin/v1/stores`, { headers: { cookie: a.cookie } })).status).to.equal(401);
    expect((await fetch(`${t.baseUrl}/admin/v1/stores`, { headers: { cookie: b.cookie } })).status).to.equal(200);
    const noCsrf = await fetch(`${t.baseUrl}/admin/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: b.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'everywhere=1',
    });
    expect(noCsrf.status).to.equal(403);
    await fetch(`${t.baseUrl}/admin/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: b.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${b.csrf}&everywhere=1`,
    });
    expect((await fetch(`${t.baseUrl}/admin/v1/stores`, { headers: { cookie: b.cookie } })).status).to.equal(401);
  });

  it('does not take a session opened with an earlier admin token (rotating ADMIN_TOKEN signs operators out)', async () => {
    const t = get();
    const { token } = await t.service.services.sessions.create('operator', 'admin', {
      ttlMs: 3600_000,
      data: { tokenFingerprint: 'an-earlier-token' },
    });
    expect((await fetch(`${t.baseUrl}/admin/v1/stores`, { headers: { cookie: `pa_ops=${token}` } })).status).to.equal(
      401,
    );
    expect(await (await fetch(`${t.baseUrl}/admin`, { headers: { cookie: `pa_ops=${token}` } })).text()).to.contain(
      'Admin token',
    );
  });

  it('reports store health: lag, 24 h outcomes, platform errors and token expiry flagged; paged and filtered', async () => {
    const t = get();
    const r = await t.reseller();
    const other = await t.reseller();
    const base = Date.now() - 3600_000;
    const lagging = await seedStore(t, r.id, { name: 'Lagging', createdAt: new Date(base) });
    await seedWebhook(t, lagging, new Date(Date.now() - 10 * 60_000), false);
    await seedWebhook(t, lagging, new Date(Date.now() - 60_000), true);
    const failing = await seedStore(t, r.id, {
      name: 'Failing',
      lastError: 'Simulated refused our credentials (401)',
      createdAt: new Date(base + 1000),
    });
    for (const s of ['failed', 'failed', 'failed', 'placed', 'no_print_lines'] as const)
      await seedIngest(t, failing, s);
    await seedIngest(t, failing, 'failed', new Date(Date.now() - 25 * 3600_000));
    const expiring = await seedStore(t, r.id, {
      name: 'Expiring',
      credentials: {
        token: 'x',
        refreshToken: 'r',
        refreshTokenExpiresAt: new Date(Date.now() + 2 * 86400_000).toISOString(),
      },
      createdAt: new Date(base + 2000),
    });
    const healthy = await seedStore(t, other.id, {
      name: 'Healthy',
      credentials: { token: 'x', refreshToken: 'r', expiresAt: new Date(Date.now() + 3600_000).toISOString() },
      createdAt: new Date(base + 3000),
    });
    await seedIngest(t, healthy, 'placed');
    const gone = await seedStore(t, other.id, {
      name: 'Gone',
      status: 'disconnected',
      lastError: 'uninstalled',
      createdAt: new Date(base + 4000),
    });

    const all = await t.admin('GET', `/stores?platform=simulated`);
    expect(all.status).to.equal(200);
    const byId = new Map<string, any>(all.body.data.map((s: { id: string }) => [s.id, s]));
    expect([...byId.keys()]).to.deep.equal([gone, healthy, expiring, failing, lagging]);
    expect(byId.get(lagging).flags).to.deep.equal(['ingest_lag']);
    expect(byId.get(lagging).ingestLagSeconds).to.be.within(590, 900);
    expect(byId.get(lagging).lastWebhookAt).to.not.equal(null);
    expect(byId.get(failing).flags).to.deep.equal(['error_rate', 'platform_error']);
    expect(byId.get(failing).last24h).to.deep.equal({ placed: 1, skipped: 1, failed: 3 });
    expect(byId.get(failing).lastError).to.equal('Simulated refused our credentials (401)');
    expect(byId.get(expiring).flags).to.deep.equal(['token_expiring']);
    expect(byId.get(expiring).tokenExpiresAt).to.not.equal(null);
    // An access token that renews itself is not a risk.
    expect(byId.get(healthy)).to.deep.include({
      flags: [],
      tokenExpiresAt: null,
      ingestLagSeconds: 0,
      lastWebhookAt: null,
    });
    expect(byId.get(gone)).to.deep.include({ status: 'disconnected', flags: [] });

    const first = await t.admin('GET', `/stores?platform=SIMULATED&limit=2`);
    expect(first.body.data.map((s: { id: string }) => s.id)).to.deep.equal([gone, healthy]);
    const second = await t.admin(
      'GET',
      `/stores?platform=SIMULATED&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.data.map((s: { id: string }) => s.id)).to.deep.equal([expiring, failing]);
    expect(
      (await t.admin('GET', `/stores?reseller=${other.id}`)).body.data.map((s: { id: string }) => s.id),
    ).to.deep.equal([gone, healthy]);
    expect(
      (await t.admin('GET', `/stores?platform=simulated&state=disconnected`)).body.data.map(
        (s: { id: string }) => s.id,
      ),
    ).to.deep.equal([gone]);
    const badState = await t.admin('GET', '/stores?state=broken');
    expect(badState.status).to.equal(400);
    expect(badState.body.error.code).to.equal('invalid_request');
    expect((await t.admin('GET', '/stores?cursor=forged.cursor')).status).to.equal(400);

    // The page shows the same, with the flags.
    const s = await session(t);
    const page = await (
      await fetch(`${t.baseUrl}/admin/stores?platform=SIMULATED`, { headers: { cookie: s.cookie } })
    ).text();
    expect(page).to.contain(`data-store="${lagging}"`);
    expect(page).to.contain('data-flag="ingest_lag"');
    expect(page).to.contain('data-flag="token_expiring"');
    expect(page).to.contain('Simulated refused our credentials (401)');

    // And the metrics the alerts read.
    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(metrics).to.match(/stores_connected\{platform="SIMULATED"\} 4/);
    expect(metrics).to.match(/stores_flagged\{platform="SIMULATED",flag="ingest_lag"\} 1/);
    expect(metrics).to.match(/stores_flagged\{platform="SIMULATED",flag="error_rate"\} 1/);
    expect(metrics).to.match(/store_ingest_lag_seconds\{platform="SIMULATED"\} (59\d|[6-8]\d\d)/);
    expect(metrics).to.match(/store_token_expiry_seconds\{platform="SIMULATED"\} 1[67]\d{4}/);
    expect(metrics).to.match(/store_orders_24h\{platform="SIMULATED",outcome="failed"\} 3/);
    expect(metrics).to.match(/webhook_deliveries\{status="failed"\} 0/);
  });

  it('limits failed sign-ins per address: after 10 a wrong token waits, the right one still signs in', async () => {
    const t = get();
    for (let i = 0; i < 9; i++) expect((await signIn(t, `wrong-${i}-${'x'.repeat(30)}`)).status).to.equal(401);
    const tenth = await signIn(t, 'wrong-last-xxxxxxxxxxxxxxxxxxxxxxxxxxx');
    expect(tenth.status).to.equal(429);
    const blocked = await signIn(t, 'wrong-again-xxxxxxxxxxxxxxxxxxxxxxxxxx');
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await blocked.text()).to.contain('Too many failed sign-ins');
    // A lockout never refuses the right credential: the operator behind the same address signs in.
    expect((await signIn(t)).status).to.equal(303);
    // Scripts with the Bearer token are not held up.
    expect((await t.admin('GET', '/stores')).status).to.equal(200);
  });
});

describe('operators: the session cookie on an https deployment', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite', { PUBLIC_URL: 'https://ops.print.example' });
  });
  after(() => t?.close());

  it('is Secure, with the __Host- prefix', async () => {
    const res = await signIn(t, t.service.adminToken, { origin: 'https://ops.print.example' });
    expect(res.status).to.equal(303);
    const cookies = res.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('__Host-pa_ops='))).to.match(
      /; Path=\/; .*HttpOnly; SameSite=Strict; Secure$/,
    );
    expect(cookies.find((c) => c.startsWith('XSRF-TOKEN='))).to.match(/Path=\/admin\/v1; .*SameSite=Strict; Secure$/);
  });
});
