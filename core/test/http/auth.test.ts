import { expect } from 'chai';
import { SCOPES } from '../../src/kernel/scopes.ts';
import { describeEachBackend } from '../helpers/test-service.ts';

describeEachBackend('API keys, scopes and accounts', (get) => {
  it('answers 401 without a key, with a malformed, an unknown and a revoked key', async () => {
    const t = get();
    const { key, keyId } = await t.reseller();
    const none = await t.api(undefined, 'GET', '/me');
    expect(none.status).to.equal(401);
    expect(none.body.error.code).to.equal('unauthorized');
    expect((await t.api('not-a-key', 'GET', '/me')).status).to.equal(401);
    const truncated = await t.api('prk_test_wrong', 'GET', '/me');
    expect(truncated.status).to.equal(401);
    expect(truncated.body.error.message).to.match(/^The API key is not valid: /);
    expect((await t.api(`prk_live_${'A'.repeat(32)}`, 'GET', '/me')).status).to.equal(401);
    expect((await t.api(key, 'GET', '/me')).status).to.equal(200);
    expect((await t.admin('DELETE', `/api-keys/${keyId}`)).status).to.equal(200);
    const revoked = await t.api(key, 'GET', '/me');
    expect(revoked.status).to.equal(401);
    expect(revoked.body.error.message).to.match(/revoked/);
  });

  it('stores only a hash of the key, and shows the full key only at creation', async () => {
    const t = get();
    const { id, key } = await t.reseller();
    const rows = await t.service.db.selectFrom('api_keys').selectAll().where('reseller_id', '=', id).execute();
    expect(JSON.stringify(rows)).not.to.contain(key.slice(12));
    const listed = await t.admin('GET', `/resellers/${id}/api-keys`);
    expect(JSON.stringify(listed.body)).not.to.contain(key.slice(12));
    expect(listed.body.data[0].prefix).to.equal(key.slice(0, 15));
  });

  it('answers 403 for a suspended account and lets it in again once approved', async () => {
    const t = get();
    const { id, key } = await t.reseller();
    await t.admin('POST', `/resellers/${id}/suspend`);
    const res = await t.api(key, 'GET', '/me');
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('account_not_active');
    await t.admin('POST', `/resellers/${id}/approve`);
    expect((await t.api(key, 'GET', '/me')).status).to.equal(200);
  });

  it('lets only approved accounts create keys', async () => {
    const t = get();
    const created = await t.admin('POST', '/resellers', {
      name: 'New',
      email: 'new@example.com',
      phone: '+31 6 1234 5678',
      discountPercent: 5,
    });
    expect(created.status).to.equal(201);
    expect(created.body.data.status).to.equal('pending');
    const refused = await t.admin('POST', `/resellers/${created.body.data.id}/api-keys`, { mode: 'live' });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('account_not_approved');
  });

  it('refuses a key without the route scope with 403 naming the scope, for every scoped route', async () => {
    const t = get();
    const doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        path: path.replace(/\{\w+\}/g, 'x'),
        method: method.toUpperCase(),
        scope: op['x-scope'] as string | undefined,
      })),
    );
    const scoped = operations.filter((o) => o.scope);
    expect(scoped.length).to.be.greaterThan(0);
    for (const op of scoped) {
      const others = SCOPES.filter((s) => s !== op.scope);
      const { key } = await t.reseller({ scopes: others });
      const res = await t.api(key, op.method, op.path, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      expect(res.status, `${op.method} ${op.path}`).to.equal(403);
      expect(res.body.error.message).to.contain(op.scope);
      const anonymous = await t.api(undefined, op.method, op.path);
      expect(anonymous.status, `${op.method} ${op.path} without key`).to.equal(401);
    }
  });

  it('gives a key with the scope access, and a key without scopes every scope', async () => {
    const t = get();
    const scoped = await t.reseller({ scopes: ['wallet:read'] });
    expect((await t.api(scoped.key, 'GET', '/wallet')).status).to.equal(200);
    const all = await t.reseller();
    const me = await t.api(all.key, 'GET', '/me');
    expect(me.body.data.scopes).to.equal(null);
    expect((await t.api(all.key, 'GET', '/wallet')).status).to.equal(200);
  });

  it('gives a key created with an empty scope list no scope at all: GET /me only, from the cache too', async () => {
    const t = get();
    const { id, key, keyId } = await t.reseller({ scopes: [] });
    const listed = await t.admin('GET', `/resellers/${id}/api-keys`);
    expect(listed.body.data.find((k: { id: string }) => k.id === keyId).scopes).to.deep.equal([]);
    // Stored as jsonb '[]', not NULL (which is every scope).
    const row = await t.service.db
      .selectFrom('api_keys')
      .select('scopes')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(row.scopes).to.deep.equal([]);
    const all = await t.reseller();
    expect(
      (await t.service.db.selectFrom('api_keys').select('scopes').where('id', '=', all.keyId).executeTakeFirstOrThrow())
        .scopes,
    ).to.equal(null);
    // Twice: the second answer comes from the cache of authenticated keys where it is on.
    for (let i = 0; i < 2; i++) {
      const me = await t.api(key, 'GET', '/me');
      expect(me.status).to.equal(200);
      expect(me.body.data.scopes).to.deep.equal([]);
    }
    const doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    const scoped = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op['x-scope'])
        .map(([method, op]) => ({
          path: path.replace(/\{\w+\}/g, 'x'),
          method: method.toUpperCase(),
          scope: op['x-scope'] as string,
        })),
    );
    for (const op of scoped) {
      const res = await t.api(key, op.method, op.path, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      expect(res.status, `${op.method} ${op.path}`).to.equal(403);
      expect(res.body.error.code).to.equal('insufficient_scope');
    }
    // Placing an order, the case the issue names, with a valid body.
    const order = await t.api(
      key,
      'POST',
      '/orders',
      {
        lines: [{ productId: 'business-cards', quantity: 250 }],
        recipient: { name: 'A', address1: 'B 1', postalCode: '1000 AA', city: 'C', country: 'NL' },
      },
      { 'idempotency-key': `empty-${keyId}` },
    );
    expect(order.status).to.equal(403);
    // The back-office description says so.
    const adminDoc = (await t.admin('GET', '/openapi.json')).body;
    expect(
      adminDoc.paths['/resellers/{id}/api-keys'].post.requestBody.content['application/json'].schema.properties.scopes
        .description,
    ).to.match(/\[\] gives none/);
    // The connector install links check the scope themselves.
    const link = await fetch(`${t.baseUrl}/connectors/shopify/install-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(link.status).to.equal(403);
  });

  it('keeps tenants apart: a reseller sees only its own wallet, and test keys only the test wallet', async () => {
    const t = get();
    const a = await t.reseller();
    const b = await t.reseller();
    await t.admin('POST', `/resellers/${a.id}/wallet/top-ups`, { amountCents: 5000, reference: 'bank transfer 1' });
    expect((await t.api(a.key, 'GET', '/wallet')).body.data.balanceCents).to.equal(5000);
    expect((await t.api(b.key, 'GET', '/wallet')).body.data.balanceCents).to.equal(0);
    const aTest = await t.admin('POST', `/resellers/${a.id}/api-keys`, { mode: 'test' });
    const sandbox = await t.api(aTest.body.data.key, 'GET', '/wallet');
    expect(sandbox.body.data.balanceCents).to.equal(0);
    expect(sandbox.body.data.entries.data).to.deep.equal([]);
  });

  it('protects the back-office with its token', async () => {
    const t = get();
    const res = await fetch(`${t.baseUrl}/admin/v1/resellers/x`, {
      headers: { 'user-agent': 'x-test', authorization: 'Bearer wrong' },
    });
    expect(res.status).to.equal(401);
    expect(((await res.json()) as any).error.code).to.equal('unauthorized');
  });
});
