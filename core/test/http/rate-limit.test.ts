import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import winston from 'winston';
import { createRateLimiter, rateLimitFallbackReporter } from '../../src/infra/rate-limit.ts';
import { createTestPostgresDatabase, SETUP_TIMEOUT_MS } from '../helpers/services.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

async function burst(t: TestService, key: string, n: number) {
  return Promise.all(Array.from({ length: n }, () => t.api(key, 'GET', '/me')));
}

describe('rate limits', function () {
  // Each test starts its own services (a budget is per process or per Redis), and sends 121 requests.
  this.timeout(SETUP_TIMEOUT_MS);
  it('answers the 121st request in a minute with 429 and Retry-After [pglite, memory limiter]', async function () {
    const t = await startTestService(this, 'pglite');
    try {
      const { id, key } = await t.reseller();
      const first = await t.api(key, 'GET', '/me');
      expect(first.headers.get('ratelimit-limit')).to.equal('120');
      expect(first.headers.get('ratelimit-remaining')).to.equal('119');
      expect(Number(first.headers.get('ratelimit-reset'))).to.be.within(1, 60);
      const rest = await burst(t, key, 119);
      expect(rest.every((r) => r.status === 200)).to.equal(true);
      const over = await t.api(key, 'GET', '/me');
      expect(over.status).to.equal(429);
      expect(over.body.error.code).to.equal('rate_limited');
      expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
      expect(over.headers.get('ratelimit-remaining')).to.equal('0');
      // Another key of the same reseller has its own budget.
      const other = await t.admin('POST', `/resellers/${id}/api-keys`, { mode: 'live' });
      expect((await t.api(other.body.data.key, 'GET', '/me')).status).to.equal(200);
    } finally {
      await t.close();
    }
  });

  it('shares the budget across two app instances on one Redis [postgres+redis]', async function () {
    const { url, drop } = await createTestPostgresDatabase().catch(() => ({ url: '', drop: async () => undefined }));
    const prefix = `pa-test-${randomBytes(4).toString('hex')}`;
    const env = { DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '120' };
    const a = await startTestService(this, 'postgres+redis', env, { redisPrefix: prefix });
    const b = await startTestService(this, 'postgres+redis', env, { redisPrefix: prefix });
    try {
      const { key } = await a.reseller();
      const results = [...(await burst(a, key, 60)), ...(await burst(b, key, 60))];
      expect(results.every((r) => r.status === 200)).to.equal(true);
      const overA = await a.api(key, 'GET', '/me');
      const overB = await b.api(key, 'GET', '/me');
      expect(overA.status).to.equal(429);
      expect(overB.status).to.equal(429);
      expect(overB.headers.get('retry-after')).to.match(/^\d+$/);
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });

  it('counts in this process while Redis is unreachable, with a metric per request and one warning per interval', async () => {
    // Never connected: the limiter does not wait for it, it goes straight to its insurance.
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    const lines: string[] = [];
    const logger = winston.createLogger({
      transports: [
        new winston.transports.Stream({
          stream: new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) }),
        }),
      ],
    });
    const counted: string[] = [];
    const onFallback = rateLimitFallbackReporter({ logger, count: (name) => counted.push(name), logEveryMs: 60_000 });
    const limiter = createRateLimiter({
      perMinute: 3,
      redis,
      keyPrefix: `rl-test-${randomBytes(4).toString('hex')}`,
      onFallback,
    });
    try {
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('key_1'));
      // The limit still holds, per process.
      expect(decisions.map((d) => d.allowed)).to.deep.equal([true, true, true, false]);
      expect(decisions.map((d) => d.remaining)).to.deep.equal([2, 1, 0, 0]);
      expect(counted).to.deep.equal(['api', 'api', 'api', 'api']);
      expect(lines).to.have.length(1);
      expect(JSON.parse(lines[0]!)).to.include({ level: 'warn', limiter: 'api' });
    } finally {
      redis.disconnect();
    }
  });
});
