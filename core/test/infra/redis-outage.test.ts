import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { sendBytes, type TestHttpsServer } from '../helpers/https-server.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { createTestPostgresDatabase, needService } from '../helpers/services.ts';
import { startTestService, type HttpResult, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';
import { orderBody, placeOrder, startFileServer } from '../orders/orders-helpers.ts';

/**
 * `work`'s result, or a failure as soon as `ms` (what an idle machine needs, grown by the run's time scale) have passed
 * without one: a request that waits on the stopped Redis never answers, and fails at this deadline, not at mocha's
 * timeout. One that gives up on Redis (its 500 ms command timeout) answers well within it.
 */
async function within<T>(ms: number, what: string, work: () => Promise<T>): Promise<T> {
  const budget = scaled(ms);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${budget} ms`)), budget);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function readyz(t: TestService): Promise<HttpResult> {
  const res = await fetch(`${t.baseUrl}/readyz`);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** How many requests the API limiter counted in this process because Redis was unreachable. */
async function fallbackCount(t: TestService): Promise<number> {
  const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
  const m = /^rate_limit_fallback_total\{limiter="api"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('a Redis outage [PostgreSQL + a private redis-server]', function () {
  this.timeout(scaled(120_000));
  let redis: PrivateRedis | undefined;
  let files: TestHttpsServer | undefined;

  before(async function () {
    await needService(this, 'postgres');
    redis = await PrivateRedis.start(this);
    files = await startFileServer();
    // The webhook receiver: takes every delivery.
    files.route('/hooks', sendBytes('ok', 'text/plain'));
  });
  after(async () => {
    await redis?.kill();
    await files?.close();
  });

  describe('one API process', function () {
    let t: TestService | undefined;
    const prefix = `pa-test-${randomBytes(4).toString('hex')}`;
    before(async function () {
      t = await startTestService(this, 'postgres+redis', { REDIS_URL: redis!.url }, { redisPrefix: prefix });
    });
    after(async () => {
      await t?.close();
    });

    const outages = [
      { name: 'dead (SIGKILL)', begin: () => redis!.kill(), end: () => redis!.restart() },
      { name: 'unresponsive (SIGSTOP)', begin: async () => redis!.pause(), end: async () => redis!.resume() },
    ];
    for (const outage of outages) {
      it(`keeps answering while Redis is ${outage.name}, never with a 500, and recovers when it is back`, async () => {
        const service = t!;
        const r = await service.reseller();
        await service.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 1_000_000 });
        const spare = (await service.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live' })).body.data;
        const endpoint = await service.api(r.key, 'POST', '/webhooks', { url: `${files!.url}/hooks`, events: ['*'] });
        expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
        expect((await service.api(r.key, 'GET', '/me')).status).to.equal(200);
        expect((await service.api(spare.key, 'GET', '/me')).status).to.equal(200);
        expect((await readyz(service)).status).to.equal(200);
        const fallbacksBefore = await fallbackCount(service);

        await outage.begin();
        let placedId = '';
        try {
          // At once: a paused Redis still looks connected here, and its PING goes unanswered.
          const firstReady = await within(1000, 'GET /readyz', () => readyz(service));
          expect(firstReady.status).to.equal(503);
          expect(firstReady.body.checks.redis).to.be.a('string').and.not.equal('ok');

          // Key-authenticated reads: answered at once, counted by the per-process fallback limiter.
          for (let i = 0; i < 5; i++) {
            const me = await within(1500, `GET /me #${i + 1}`, () => service.api(r.key, 'GET', '/me'));
            expect(me.status, JSON.stringify(me.body)).to.equal(200);
            expect(me.headers.get('ratelimit-limit')).to.equal('120');
          }
          expect(await fallbackCount(service)).to.be.greaterThan(fallbacksBefore);

          // An order is committed and answered; its hand-off job and its webhook delivery could
          // not be queued (their sweepers' work).
          const placed = await within(5000, 'POST /orders', () => placeOrder(service, r.key, orderBody(files!)));
          expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
          placedId = placed.body.data.id as string;
          expect(
            (await within(1500, 'GET /orders/{id}', () => service.api(r.key, 'GET', `/orders/${placedId}`))).status,
          ).to.equal(200);

          // Deleting an endpoint with a pending delivery: its job's removal is given up, not waited for.
          await waitFor('the pending delivery', async () => {
            const row = await service.service.db
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('endpoint_id', '=', endpoint.body.data.id)
              .where('status', '=', 'pending')
              .executeTakeFirst();
            return row !== undefined;
          });
          const deleted = await within(3000, 'DELETE /webhooks/{id}', () =>
            service.api(r.key, 'DELETE', `/webhooks/${endpoint.body.data.id}`),
          );
          expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);

          // A revocation (its broadcast cannot go out) takes effect here at once.
          expect(
            (await within(1500, 'DELETE /api-keys/{id}', () => service.admin('DELETE', `/api-keys/${spare.id}`)))
              .status,
          ).to.equal(200);
          expect(
            (await within(1500, 'GET /me with the revoked key', () => service.api(spare.key, 'GET', '/me'))).status,
          ).to.equal(401);

          const ready = await within(1000, 'GET /readyz', () => readyz(service));
          expect(ready.status).to.equal(503);
          expect(ready.body.checks.database).to.equal('ok');
          expect(ready.body.checks.redis).to.be.a('string').and.not.equal('ok');
        } finally {
          await outage.end();
        }

        await waitFor('/readyz to answer 200 again', async () => (await readyz(service)).status === 200, 20_000, 100);
        // Counting is shared through Redis again: a new key's counter appears there.
        const fresh = (await service.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live' })).body.data;
        const direct = new Redis(redis!.url, { maxRetriesPerRequest: 1 });
        try {
          await waitFor(
            'a request counted in Redis',
            async () =>
              (await service.api(fresh.key, 'GET', '/me')).status === 200 &&
              (await direct.exists(`${prefix}:rl:${fresh.id}`)) === 1,
            20_000,
            100,
          );
        } finally {
          direct.disconnect();
        }
        // The workers took up their queues again: the hand-off lost in the outage is queued by the
        // sweeper (run now rather than after its minute; again until the queue's own connection is back) and done.
        await waitFor(
          'the hand-off sweep',
          () =>
            service.service.services.production.sweep(0).then(
              () => true,
              () => false,
            ),
          20_000,
          100,
        );
        await waitFor(
          'the hand-off of the order placed during the outage',
          async () =>
            (
              await service.service.db
                .selectFrom('orders')
                .select('handed_off_at')
                .where('id', '=', placedId)
                .executeTakeFirstOrThrow()
            ).handed_off_at !== null,
          20_000,
          100,
        );
      });
    }
  });

  describe('two API processes', function () {
    let a: TestService | undefined;
    let b: TestService | undefined;
    let drop: (() => Promise<void>) | undefined;
    before(async function () {
      const created = await createTestPostgresDatabase();
      drop = created.drop;
      const prefix = `pa-test-${randomBytes(4).toString('hex')}`;
      a = await startTestService(
        this,
        'postgres+redis',
        { DATABASE_URL: created.url, REDIS_URL: redis!.url },
        { redisPrefix: prefix },
      );
      b = await startTestService(
        this,
        'postgres+redis',
        { DATABASE_URL: created.url, REDIS_URL: redis!.url },
        { redisPrefix: prefix },
      );
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await drop?.();
    });

    it('stops trusting cached keys within seconds of Redis hanging, so a revocation it cannot broadcast still holds everywhere', async () => {
      const { key, keyId } = await a!.reseller();
      // Cached on b (the cache is on: b refuses the key only when told, or when it stops trusting its cache).
      expect((await b!.api(key, 'GET', '/me')).status).to.equal(200);
      redis!.pause();
      try {
        expect(
          (await within(3000, 'DELETE /api-keys/{id}', () => a!.admin('DELETE', `/api-keys/${keyId}`))).status,
        ).to.equal(200);
        // Well before the cache entry's 30 s expire.
        await waitFor(
          'b to refuse the revoked key',
          async () => (await within(1500, 'GET /me on b', () => b!.api(key, 'GET', '/me'))).status === 401,
          10_000,
          100,
        );
      } finally {
        redis!.resume();
      }
      await waitFor('b ready again', async () => (await readyz(b!)).status === 200, 20_000, 100);
      expect((await b!.api(key, 'GET', '/me')).status).to.equal(401);
    });
  });
});
