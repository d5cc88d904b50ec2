import { expect } from 'chai';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { createEndpoint, deliveries, Receiver, waitFor, writeEvents } from './webhook-test-helpers.ts';
import { scaled } from '../helpers/wait.ts';

// The contract's own 10 s timeout, not a shortened one: a receiver that sleeps 11 s is retried.
describe('webhook delivery with the real 10 s timeout [postgres+redis]', function () {
  this.timeout(scaled(30_000));
  let t: TestService;
  let receiver: Receiver;
  before(async function () {
    // Only the retry wait is shortened; the timeout is the default.
    t = await startTestService(
      this,
      'postgres+redis',
      {},
      { webhooks: { retryScheduleMs: [200], jitterRatio: 0 }, maintenanceIntervalMs: 1000 },
    );
    receiver = await Receiver.start();
  });
  after(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('gives up on a receiver that does not answer within 10 s and delivers the same event on the retry', async () => {
    expect(t.service.services.webhooks.options.timeoutMs).to.equal(10_000);
    const { id: resellerId, key } = await t.reseller();
    const endpoint = await createEndpoint(
      t,
      key,
      // Never answered: only the 10 s timeout ends the first attempt, however late a busy machine fires it.
      receiver.hook('/sleepy', (n) => (n === 1 ? 'hang' : 200)),
    );
    const [eventId] = await writeEvents(t, { resellerId });
    const [delivery] = await waitFor(
      'delivered on the retry',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.status === 'delivered') &&
        deliveries(t, key, endpoint.id),
      20_000,
      200,
    );
    expect(delivery.attempts[0].error).to.equal('timeout: no answer within 10000 ms');
    expect(delivery.attempts[0].latencyMs).to.be.at.least(9_900);
    expect(delivery.attempts[1]).to.include({ statusCode: 200, succeeded: true });
    expect(receiver.requests('/sleepy').map((r) => r.event.id)).to.deep.equal([eventId, eventId]);
  });
});
