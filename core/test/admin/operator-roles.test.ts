import { expect } from 'chai';
import { sql } from 'kysely';
import { ADMIN_BASE } from '../../src/http/app.ts';
import { entryPointsOf } from '../../src/http/entry-points.ts';
import { ROLE_TABLE, roleFor } from '../../src/modules/operators/operator-roles.ts';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';

/** A request with a bearer credential, JSON in and out. */
async function call(t: TestService, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.baseUrl}${path}`, {
    method,
    headers: {
      'user-agent': USER_AGENT,
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

describe('operator roles and operator tokens', function () {
  this.timeout(120_000);
  let t: TestService;
  const tokens: Record<'viewer' | 'support' | 'admin', string> = { viewer: '', support: '', admin: '' };
  before(async function () {
    t = await startTestService(this, 'pglite');
    for (const role of ['viewer', 'support', 'admin'] as const) {
      const made = await t.admin('POST', '/operator-tokens', { name: `${role} robot`, role, expiresInDays: 30 });
      expect(made.status).to.equal(201);
      expect(made.body.data).to.include({ name: `${role} robot`, role });
      expect(made.body.data.token).to.match(/^opt_[A-Za-z0-9_-]{40,}$/);
      tokens[role] = made.body.data.token;
    }
  });
  after(() => t?.close());

  it('has one role table that covers every state-changing back-office and console entry point, and nothing else', () => {
    const entries = entryPointsOf(t.service.app).entries.filter(
      (e) => e.method !== 'get' && e.path.startsWith('/admin') && e.auth !== 'public',
    );
    expect(entries.length).to.be.greaterThan(10);
    for (const e of entries) {
      // A route of an app mounted whole (the queue dashboard's bull-board) falls under its `*` row.
      const row = ROLE_TABLE.find(
        (r) =>
          (r.method === e.method && r.path === e.path) ||
          (e.kind === 'mounted' && r.method === '*' && e.path.startsWith(r.path.slice(0, -1))),
      );
      expect(row, `${e.method.toUpperCase()} ${e.path} is in the role table`).to.not.equal(undefined);
    }
    for (const row of ROLE_TABLE.filter((r) => r.method !== '*')) {
      const entry = entryPointsOf(t.service.app).entries.find((e) => e.method === row.method && e.path === row.path);
      // The console's reseller actions are declared by the console (present once it is mounted).
      expect(entry, `${row.method.toUpperCase()} ${row.path} is an entry point`).to.not.equal(undefined);
    }
    expect(roleFor('get', `${ADMIN_BASE}/resellers`)).to.equal('viewer');
    expect(roleFor('put', `${ADMIN_BASE}/queues/api/queues/x/retry/failed`)).to.equal('support');
    expect(roleFor('post', `${ADMIN_BASE}/not-in-the-table`)).to.equal('admin');
  });

  it('refuses a viewer every mutating /admin/v1 entry point with 403 insufficient_role, and lets it read', async () => {
    const mutating = entryPointsOf(t.service.app).entries.filter(
      (e) => e.kind === 'api' && e.base === ADMIN_BASE && e.method !== 'get',
    );
    expect(mutating.length).to.be.greaterThan(10);
    for (const e of mutating) {
      const path = e.path.replace(/\{(\w+)\}/g, (_m, name) => (name === 'line' ? '1' : `x_${name}`));
      const res = await call(t, tokens.viewer, e.method.toUpperCase(), path, {});
      expect(res.status, `${e.method} ${e.path}`).to.equal(403);
      expect(res.body.error.code, `${e.method} ${e.path}`).to.equal('insufficient_role');
      expect(res.body.error.message).to.contain(`needs the role '${roleFor(e.method, e.path)}'`);
    }
    // bull-board's actions on the queue dashboard are refused too.
    const retry = await call(t, tokens.viewer, 'PUT', `${ADMIN_BASE}/queues/api/queues/orders/retry/failed`);
    expect(retry.status).to.equal(403);
    expect(retry.body.error.code).to.equal('insufficient_role');
    // Reading is every role's.
    expect((await call(t, tokens.viewer, 'GET', `${ADMIN_BASE}/resellers`)).status).to.equal(200);
    expect((await call(t, tokens.viewer, 'GET', `${ADMIN_BASE}/audit-events`)).status).to.equal(200);
  });

  it('lets support run operations but not change accounts, and admin do everything', async () => {
    const reseller = await t.reseller();
    const link = await call(t, tokens.support, 'POST', `${ADMIN_BASE}/resellers/${reseller.id}/dashboard-links`, {});
    expect(link.status).to.equal(201);
    const approve = await call(t, tokens.support, 'POST', `${ADMIN_BASE}/resellers/${reseller.id}/suspend`);
    expect(approve.status).to.equal(403);
    expect(approve.body.error.code).to.equal('insufficient_role');
    const topUp = await call(t, tokens.support, 'POST', `${ADMIN_BASE}/resellers/${reseller.id}/wallet/top-ups`, {
      amountCents: 100,
    });
    expect(topUp.status).to.equal(403);
    const byAdmin = await call(t, tokens.admin, 'POST', `${ADMIN_BASE}/resellers/${reseller.id}/wallet/top-ups`, {
      amountCents: 100,
    });
    expect(byAdmin.status).to.equal(201);
    const made = await call(t, tokens.support, 'POST', `${ADMIN_BASE}/operator-tokens`, { name: 'x', role: 'admin' });
    expect(made.status).to.equal(403);
  });

  it('lists tokens without their secrets, and a revoked or expired token is refused at once', async () => {
    const list = await t.admin('GET', '/operator-tokens');
    expect(list.status).to.equal(200);
    const json = JSON.stringify(list.body);
    for (const token of Object.values(tokens)) expect(json).to.not.contain(token);
    expect(json).to.not.contain('hash');
    const made = await t.admin('POST', '/operator-tokens', { name: 'short-lived', role: 'viewer' });
    const token = made.body.data.token as string;
    expect(made.body.data.expiresAt).to.equal(null);
    expect((await call(t, token, 'GET', `${ADMIN_BASE}/resellers`)).status).to.equal(200);
    const revoked = await t.admin('DELETE', `/operator-tokens/${made.body.data.id}`);
    expect(revoked.status).to.equal(200);
    expect(revoked.body.data.revokedAt).to.be.a('string');
    const after = await call(t, token, 'GET', `${ADMIN_BASE}/resellers`);
    expect(after.status).to.equal(401);
    expect(after.body.error.message).to.contain('revoked');

    const other = await t.admin('POST', '/operator-tokens', { name: 'expiring', role: 'viewer', expiresInDays: 1 });
    await sql`update operator_tokens set expires_at = now() - interval '1 second' where id = ${other.body.data.id}`.execute(
      t.service.db,
    );
    const expired = await call(t, other.body.data.token, 'GET', `${ADMIN_BASE}/resellers`);
    expect(expired.status).to.equal(401);
    expect(expired.body.error.message).to.contain('expired');
    expect((await call(t, 'opt_unknown', 'GET', `${ADMIN_BASE}/resellers`)).status).to.equal(401);
    expect((await t.admin('DELETE', '/operator-tokens/opk_nope')).status).to.equal(404);
  });

  it('refuses a token body that is not valid with 400', async () => {
    const bad = await t.admin('POST', '/operator-tokens', { name: 'x', role: 'owner' });
    expect(bad.status).to.equal(400);
    const noName = await t.admin('POST', '/operator-tokens', { role: 'viewer' });
    expect(noName.status).to.equal(400);
  });
});
