import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BullMqJobQueue } from '../../src/infra/queue/bullmq-queue.ts';
import { silentLogger } from '../../src/infra/logger.ts';
import { PrivateRedis } from '../helpers/private-redis.ts';
import { waitFor, scaled } from '../helpers/wait.ts';

describe('the BullMQ queue tells when Redis is back [a private redis-server]', function () {
  this.timeout(scaled(60_000));
  let redis: PrivateRedis | undefined;
  let queue: BullMqJobQueue | undefined;

  before(async function () {
    redis = await PrivateRedis.start(this);
  });
  after(async () => {
    await queue?.close();
    await redis?.kill();
  });

  it('calls onReconnected each time its connection is ready again after a loss, never for the first connection', async () => {
    queue = new BullMqJobQueue({
      connection: { url: redis!.url },
      prefix: `pa-test-${randomBytes(4).toString('hex')}`,
      logger: silentLogger(),
    });
    let calls = 0;
    queue.onReconnected(() => void calls++);
    const jobs = queue.define<{ n: number }>('reconnect-probe', { process: async () => undefined });
    // Connected (an add went through): no return yet.
    await waitFor(
      'a first add',
      () =>
        jobs.add({ n: 1 }).then(
          () => true,
          () => false,
        ),
      10_000,
      100,
    );
    expect(calls).to.equal(0);

    for (let outage = 1; outage <= 2; outage++) {
      await redis!.kill();
      await redis!.restart();
      await waitFor(`the return after outage ${outage}`, () => calls === outage, 10_000, 25);
    }
    // An add goes through again (on an empty Redis).
    await waitFor(
      'an add after the outages',
      () =>
        jobs.add({ n: 2 }).then(
          () => true,
          () => false,
        ),
      10_000,
      100,
    );
    expect(calls).to.equal(2);
  });
});
