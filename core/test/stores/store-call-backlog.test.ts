import { expect } from 'chai';
import type { ConnectorContext } from '@print-api/connector-kit';
import { referenceConnector } from '../../../test/reference-connector/src/index.ts';
import { RetryLaterError } from '../../src/infra/queue/job-queue.ts';
import { createRateLimiter } from '../../src/infra/rate-limit.ts';
import { ConnectorRegistry } from '../../src/modules/stores/connector-registry.ts';
import { StoreCalls } from '../../src/modules/stores/outbound/store-calls.ts';
import type { StoreRow } from '../../src/modules/stores/stores-service.ts';

/**
 * A backlog of jobs for one store (thin webhooks, each fetching its order) is turned away in
 * turn: each waits for the window its place falls in, so a budget's worth comes back per
 * window instead of the whole backlog every window.
 */
describe('store call budget: a backlog waits in turn', () => {
  it('has the n-th job turned away in a window wait n / limit windows more', async () => {
    const calls = new StoreCalls({
      connections: {} as never,
      credentials: {} as never,
      connectors: new ConnectorRegistry([referenceConnector]),
      context: () => ({}) as ConnectorContext,
      callLimiter: () => createRateLimiter({ points: 2, durationMs: 10_000, keyPrefix: `test-backlog-${Date.now()}` }),
    });
    const store = { id: 'sto_backlog', platform: referenceConnector.manifest.platform } as StoreRow;
    const waits: Array<number | null> = [];
    for (let i = 0; i < 7; i++) {
      try {
        await calls.slot(store);
        waits.push(null);
      } catch (err) {
        expect(err).to.be.instanceOf(RetryLaterError);
        waits.push((err as RetryLaterError).retryAfterMs);
      }
    }
    expect(waits.slice(0, 2)).to.deep.equal([null, null]);
    // A wait of (k, k+1] windows is k windows more than the current one's rest (a full 10,000 ms
    // when the refusal comes in the millisecond the window opened).
    const windows = waits.slice(2).map((ms) => Math.ceil(ms! / 10_000) - 1);
    // Refusals 1-2 wait for the next window, 3-4 for the one after, 5 for the third.
    expect(windows).to.deep.equal([0, 0, 1, 1, 2]);
  });
});
