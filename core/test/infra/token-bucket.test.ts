import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createTokenBucket } from '../../src/infra/token-bucket.ts';
import { needService, TEST_REDIS_URL } from '../helpers/services.ts';

describe('token buckets (a platform budget of burst calls, one more every refillMs)', () => {
  it('allows the burst, then says when the next call is allowed, and refills [memory]', async () => {
    // A fake clock: on a busy machine a real 200 ms can pass between two calls and refill a token.
    let now = 1_000_000;
    const bucket = createTokenBucket({ burst: 3, refillMs: 200, keyPrefix: 't', name: 't', clock: () => now });
    for (let i = 0; i < 3; i++) expect((await bucket.take('s1')).allowed).to.equal(true);
    const refused = await bucket.take('s1');
    expect(refused.allowed).to.equal(false);
    expect(refused.msBeforeNext).to.equal(200);
    now += 50;
    expect(await bucket.wait('s1')).to.equal(150);
    // Another key has its own bucket; waiting takes nothing.
    expect(await bucket.wait('s2')).to.equal(0);
    expect((await bucket.take('s2')).allowed).to.equal(true);
    now += 150;
    expect(await bucket.wait('s1')).to.equal(0);
    expect((await bucket.take('s1')).allowed).to.equal(true);
    expect((await bucket.take('s1')).allowed).to.equal(false);
  });

  describe('on Redis', () => {
    let redis: Redis;
    before(async function () {
      await needService(this, 'redis');
      redis = new Redis(TEST_REDIS_URL);
      await new Promise<void>((resolve) =>
        redis.status === 'ready' ? resolve() : redis.once('ready', () => resolve()),
      );
    });
    after(() => redis?.disconnect());

    it("shares one budget between two processes' buckets (the same prefix), refusing the call past the burst in either", async () => {
      const keyPrefix = `pa-test-${randomBytes(4).toString('hex')}:bucket`;
      const a = createTokenBucket({ burst: 4, refillMs: 60_000, redis, keyPrefix, name: 'a' });
      const b = createTokenBucket({ burst: 4, refillMs: 60_000, redis, keyPrefix, name: 'b' });
      const taken = [await a.take('store'), await b.take('store'), await a.take('store'), await b.take('store')];
      expect(taken.every((d) => d.allowed)).to.equal(true);
      const refused = await b.take('store');
      expect(refused.allowed).to.equal(false);
      expect(refused.msBeforeNext).to.be.within(55_000, 60_000);
      expect(await a.wait('store')).to.be.within(55_000, 60_000);
      expect((await a.take('other')).allowed).to.equal(true);
      await redis.del(`${keyPrefix}:store`, `${keyPrefix}:other`);
    });

    it('counts in the process while Redis cannot be reached, and says so', async () => {
      const down = new Redis('redis://127.0.0.1:1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      const fallbacks: string[] = [];
      const bucket = createTokenBucket({
        burst: 1,
        refillMs: 60_000,
        redis: down,
        keyPrefix: 'x',
        name: 'poll-budget:X',
        onFallback: (n) => fallbacks.push(n),
      });
      expect((await bucket.take('s')).allowed).to.equal(true);
      expect((await bucket.take('s')).allowed).to.equal(false);
      expect(fallbacks).to.deep.equal(['poll-budget:X', 'poll-budget:X']);
      down.disconnect();
    });
  });
});
