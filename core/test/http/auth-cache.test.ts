import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createTestPostgresDatabase, needService } from '../helpers/services.ts';
import { startTestService } from '../helpers/test-service.ts';
import { waitFor } from '../helpers/wait.ts';

describe('cached API keys across processes', function () {
  it('stops a key revoked on one instance on the other at once [postgres+redis, key cached]', async function () {
    await needService(this, 'postgres');
    const { url, drop } = await createTestPostgresDatabase();
    const prefix = `pa-test-${randomBytes(4).toString('hex')}`;
    const a = await startTestService(this, 'postgres+redis', { DATABASE_URL: url }, { redisPrefix: prefix });
    const b = await startTestService(this, 'postgres+redis', { DATABASE_URL: url }, { redisPrefix: prefix });
    try {
      const { id, key, keyId } = await a.reseller();
      const other = await a.admin('POST', `/resellers/${id}/api-keys`, { mode: 'live' });
      // Both keys authenticated (and cached) on b.
      expect((await b.api(key, 'GET', '/me')).status).to.equal(200);
      expect((await b.api(other.body.data.key, 'GET', '/me')).status).to.equal(200);
      // Proof that b serves the key from its cache: a change behind the service's back (no
      // invalidation) is not seen before the entry expires.
      await a.service.db
        .updateTable('api_keys')
        .set({ scopes: JSON.stringify(['wallet:read']) })
        .where('id', '=', keyId)
        .execute();
      expect((await b.api(key, 'GET', '/me')).body.data.scopes).to.equal(null);

      expect((await a.admin('DELETE', `/api-keys/${keyId}`)).status).to.equal(200);
      await waitFor('the revocation on b', async () => (await b.api(key, 'GET', '/me')).status === 401, 2000);
      expect((await b.api(other.body.data.key, 'GET', '/me')).status).to.equal(200);

      // b has the reseller's row cached (its orders' placement and hand-off read it) ...
      expect((await b.service.services.accounts.resellerRow(id)).status).to.equal('approved');
      await a.admin('POST', `/resellers/${id}/suspend`);
      // ... and is told of the suspension like of a revoked key.
      await waitFor(
        'the suspended row on b',
        async () => (await b.service.services.accounts.resellerRow(id)).status === 'suspended',
        2000,
      );
      await waitFor(
        'the suspension on b',
        async () => (await b.api(other.body.data.key, 'GET', '/me')).status === 403,
        2000,
      );
      await a.admin('POST', `/resellers/${id}/approve`);
      await waitFor(
        'the approval on b',
        async () => (await b.api(other.body.data.key, 'GET', '/me')).status === 200,
        2000,
      );
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });

  it('does not cache keys on PostgreSQL without Redis, where no other process could be told', async function () {
    await needService(this, 'postgres');
    const { url, drop } = await createTestPostgresDatabase();
    // Two instances on one database, each with its own in-process queue: no Redis at all.
    const a = await startTestService(this, 'pglite', { DATABASE_URL: url });
    const b = await startTestService(this, 'pglite', { DATABASE_URL: url });
    try {
      const { key, keyId } = await a.reseller();
      expect((await b.api(key, 'GET', '/me')).status).to.equal(200);
      await a.admin('DELETE', `/api-keys/${keyId}`);
      expect((await b.api(key, 'GET', '/me')).status).to.equal(401);
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });
});
