import { expect } from 'chai';
import nock from 'nock';
import type { Overrides } from '../src/composition.ts';
import { RetryLaterError } from '../src/infra/queue/job-queue.ts';
import { startFileServer } from './file-server.ts';
import type { TestHttpsServer } from './https-server.ts';
import { CONNECTOR_SUITE_RATE_LIMIT, startTestService, type TestService } from './test-service.ts';
import { waitFor } from './wait.ts';

/** Waits until `probe` returns something truthy (the queues work asynchronously). */
export function eventually<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  return waitFor(what, probe, timeoutMs, 50) as Promise<T>;
}

/** The reseller product every connector suite sells: an A2 poster with its artwork. */
export const POSTER_SKU = 'POSTER-TULIPS';

/**
 * The set-up every connector's end-to-end suite shares, registered as the calling suite's hooks:
 * the platform behind nock (loopback still reachable), a print-file host, and the service on
 * PostgreSQL + Redis with that connector. Live orders wait for the back-office (so cancellation
 * can happen before production); sandbox (test-mode) orders run through the production
 * simulator every 50 ms. `ready` receives both once they run.
 */
export function connectorE2eService(
  publicUrl: string,
  overrides: Overrides,
  ready: (started: { t: TestService; files: TestHttpsServer }) => void,
  /** More environment (the connector's CONNECTOR_<PLATFORM>_* settings). */
  env: Record<string, string> = {},
): void {
  let t: TestService | undefined;
  let files: TestHttpsServer | undefined;
  before(async function () {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
    files = await startFileServer();
    t = await startTestService(
      this,
      'postgres+redis',
      {
        PUBLIC_URL: publicUrl,
        PRODUCTION_SIMULATOR: 'off',
        PRODUCTION_SIMULATOR_STEP_MS: '50',
        RATE_LIMIT_PER_MINUTE: CONNECTOR_SUITE_RATE_LIMIT,
        ...env,
      },
      { maintenanceIntervalMs: 200, ...overrides },
    );
    ready({ t, files });
  });
  after(async () => {
    await t?.close();
    await files?.close();
    nock.cleanAll();
    nock.enableNetConnect();
  });
}

/** An approved reseller selling the poster (POSTER_SKU), its wallet funded when live. */
export async function posterReseller(t: TestService, files: TestHttpsServer, mode: 'live' | 'test' = 'live') {
  const r = await t.reseller({ mode });
  if (mode === 'live') await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 1_000_000, mode });
  const product = await t.api(r.key, 'POST', '/reseller-products', {
    sku: POSTER_SKU,
    title: 'Tulip poster A2',
    productId: 'posters',
    fileUrl: `${files.url}/art/flyer.pdf`,
  });
  expect(product.status, JSON.stringify(product.body)).to.equal(201);
  return r;
}

/**
 * Polls a store now, the way its queue job would: when the store's platform budget is spent
 * (the connect flow has just made its calls), waits as long as the limiter says and tries again.
 */
export async function pollNow(t: TestService, storeId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await t.service.services.storesModule.poller.poll(storeId);
    } catch (err) {
      if (!(err instanceof RetryLaterError) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, err.retryAfterMs));
    }
  }
}

/** When the store's listings were last read from its platform (null before its first listings sync). */
export async function listingsSyncedAt(t: TestService, storeId: string): Promise<Date | null> {
  const store = await t.service.db
    .selectFrom('stores')
    .select('listings_synced_at')
    .where('id', '=', storeId)
    .executeTakeFirstOrThrow();
  return store.listings_synced_at;
}
