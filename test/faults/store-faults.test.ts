import { expect } from 'chai';
import { waitFor, scaled } from '../../core/test/helpers/wait.ts';
import { ScenarioEnvironment } from './fault-environment.ts';
import { useFaultWorld } from './fault-suite.ts';
import { checkEventsDelivered, checkProcesses, checkWallets } from './guarantees.ts';
import { sleep } from './order-load.ts';
import type { PlatformFault } from './platform-faults.ts';
import {
  checkPushes,
  checkStoreEvents,
  checkStoreOrders,
  pushesOutstanding,
  receivedBetween,
  unplacedPaid,
  unprocessedSince,
} from './store-guarantees.ts';
import { StoreLoad } from './store-load.ts';
import { ResellerStores, STORE_SKU, StorePlatforms } from './store-platforms.ts';
import { StoreShipper } from './store-shipper.ts';

/**
 * Store orders under faults (`npm run test:faults -- --grep store`): two API processes and a
 * worker on the suite's PostgreSQL and Redis, each reseller with a TikTok Shop store (signed
 * notifications, orders fetched) and an Amazon store (polled through syncs) on simulated
 * platforms in this process. A steady load of store orders (paid, paid late, never paid;
 * notifications duplicated and out of order) runs while a facility ships half of the placed
 * ones through the back-office, and faults land on the processes, the dependencies or the
 * platforms. After settling: every paid order placed exactly once and no unpaid one, tracking
 * applied by the platform exactly once per shipped order, wallets equal to their ledgers,
 * each order's events once and delivered, every stored webhook processed, every process up.
 */

const PER_SECOND = 8;
const BEFORE_FAULT = 32;
const BETWEEN_FAULTS = 16;
const LATE_PAYMENT_MS = 2500;
/**
 * Amazon's order search allows a burst of 20 and one more every 3 minutes per seller: a sync every 10 s stays well
 * inside it.
 */
const SYNC_EVERY_MS = 10_000;
const ORDERS_DEADLINE_MS = 90_000;
const DRAIN_MS = 60_000;
/**
 * Generous: a push or an ingest that failed through a platform outage waits for its backoff (5 s doubling) or the
 * minute sweeps.
 */
const SETTLE_MS = 180_000;
const SERVE_DEADLINE_MS = 60_000;
const DELIVERY_DEADLINE_MS = 150_000;
const OUTAGE_MS = 4000;
const PLATFORM_FAULT_MS = 4000;
/**
 * Issue 32: what was stored while Redis was away (or queued and lost with it) is processed within this of its return.
 */
const REDIS_RECOVERY_MS = 10_000;

interface Run {
  env: ScenarioEnvironment;
  load: StoreLoad;
  shipper: StoreShipper;
  problems: string[];
  notes: string[];
}

describe('store orders under faults (TikTok Shop notifications and polled Amazon stores, two API processes and a worker)', function () {
  this.timeout(scaled(600_000));
  let run: Run | undefined;
  const world = useFaultWorld(() => run?.env.supervisor);
  let platforms: StorePlatforms | undefined;

  before(async () => {
    platforms = await StorePlatforms.start();
  });

  afterEach(async () => {
    if (!run) return;
    platforms?.clear();
    await run.load.stop(1000).catch(() => undefined);
    await run.load.stopSyncing().catch(() => undefined);
    await run.shipper.stop().catch(() => undefined);
    await run.env.stop();
    run = undefined;
  });

  after(async () => {
    await platforms?.close();
  });

  /** Waits until `n` more store orders were created (the load goes on meanwhile). */
  async function moreOrders(r: Run, n: number, what: string): Promise<void> {
    const target = r.load.created() + n;
    await waitFor(`${n} store orders ${what}`, () => r.load.created() >= target, ORDERS_DEADLINE_MS, 100);
  }

  /**
   * Starts a service with the store platforms, its stores and its load, waits for BEFORE_FAULT
   * orders, runs `faults`, restarts crashed processes, lets the load go on, stops it, settles
   * (every paid order placed, every chosen one shipped and its tracking applied) and checks
   * every guarantee.
   */
  async function underStoreFaults(name: string, faults: (r: Run) => Promise<void>): Promise<void> {
    const env = await ScenarioEnvironment.start(world(), name, platforms!.env());
    const stores: ResellerStores[] = [];
    const keyOf = new Map<ResellerStores, string>();
    for (const reseller of env.resellers) {
      await env.api(reseller.key, 'POST', '/reseller-products', {
        sku: STORE_SKU,
        title: 'Tulip poster A2',
        productId: 'posters',
        fileUrl: world().receiver.printFileUrl,
      });
      const s = new ResellerStores(platforms!);
      await s.seed(env.databaseUrl, env.encryptionKey, reseller.id);
      stores.push(s);
      keyOf.set(s, reseller.key);
    }
    const storeIds = stores.flatMap((s) => [s.tiktokStoreId, s.amazonStoreId]);
    const load = new StoreLoad({
      stores,
      apis: () => env.supervisor.apiUrls(),
      perSecond: PER_SECOND,
      latePaymentMs: LATE_PAYMENT_MS,
      syncEveryMs: SYNC_EVERY_MS,
      // A sync already running answers 409: the next one comes anyway.
      sync: (s) => env.api(keyOf.get(s)!, 'POST', `/stores/${s.amazonStoreId}/sync`),
    });
    const shipper = new StoreShipper({
      databaseUrl: env.databaseUrl,
      storeIds: () => storeIds,
      admin: (m, p, b) => env.admin(m, p, b),
    });
    const r: Run = { env, load, shipper, problems: [], notes: [] };
    run = r;
    load.start();
    shipper.start();
    await moreOrders(r, BEFORE_FAULT, 'before the faults');
    await faults(r);
    const revived = await env.supervisor.reviveCrashed().catch((err: Error) => {
      r.problems.push(`a crashed process could not be started again: ${err.message}`);
      return [];
    });
    await moreOrders(r, BETWEEN_FAULTS, 'after recovery').catch((err: Error) => r.problems.push(err.message));
    await load.stop(DRAIN_MS);
    const settleStarted = Date.now();
    await waitFor(
      'every paid store order placed',
      async () => (await unplacedPaid(env.databaseUrl, load.orders, storeIds)).length === 0,
      SETTLE_MS,
      1000,
    ).catch(() => undefined);
    await load.stopSyncing();
    const ticks = shipper.ticks();
    await waitFor(
      'every chosen order shipped and its tracking applied',
      () => shipper.ticks() >= ticks + 2 && pushesOutstanding([...shipper.chosen.values()], load.orders) === 0,
      SETTLE_MS,
      500,
    ).catch(() => undefined);
    await shipper.stop();
    const settledMs = Date.now() - settleStarted;

    const { problems } = r;
    const chosen = [...shipper.chosen.values()];
    const unacknowledged = load.unacknowledged();
    if (unacknowledged.length > 0)
      problems.push(`notifications never acknowledged: ${unacknowledged.slice(0, 5).join('; ')}`);
    problems.push(
      ...(await checkProcesses(
        env.supervisor,
        (api) => env.prober().probe(api, env.resellers[0]!, SERVE_DEADLINE_MS),
        SERVE_DEADLINE_MS,
      )),
    );
    problems.push(...(await checkStoreOrders(env.databaseUrl, load.orders, storeIds)));
    problems.push(...(await checkPushes(env.databaseUrl, chosen, load.orders)));
    problems.push(...(await checkWallets(env.databaseUrl, env.resellers)));
    problems.push(...(await checkStoreEvents(env.databaseUrl, storeIds, chosen)));
    problems.push(
      ...(await checkEventsDelivered(env.databaseUrl, env.resellers, [], world().receiver, DELIVERY_DEADLINE_MS)),
    );
    const { deliveries, byOutcome } = load.summary();
    const internalErrors = byOutcome['500'] ?? 0;
    if (internalErrors > 0) problems.push(`${internalErrors} notification(s) answered 500 (an outage must answer 503)`);
    const fates = { paid: 0, late: 0, never: 0 };
    for (const o of load.orders) fates[o.fate]++;
    const byPlatform = { TIKTOK_SHOP: 0, AMAZON: 0 };
    for (const o of load.orders) byPlatform[o.order.platform]++;
    const summary = [
      `${load.orders.length} store orders (TikTok Shop ${byPlatform.TIKTOK_SHOP}, Amazon ${byPlatform.AMAZON}; paid ${fates.paid}, paid late ${fates.late}, never paid ${fates.never})`,
      `${deliveries} notifications, attempts by outcome ${JSON.stringify(byOutcome)}`,
      `${chosen.length} shipped`,
      `settled in ${settledMs} ms`,
      ...r.notes,
      ...(revived.length > 0 ? [`restarted after crashing: ${revived.join(', ')}`] : []),
    ].join('; ');
    process.stdout.write(`      ${name}: ${summary}; ${problems.length} broken guarantee(s)\n`);
    expect(problems, `broken guarantees after "${name}" (${summary})`).to.deep.equal([]);
  }

  it('store orders through worker and API SIGKILLs (pushes applied but unanswered when the worker dies), Redis restarted empty (stored webhooks processed within 10 s of its return) and PostgreSQL restarted', async () => {
    await underStoreFaults('store_processes', async (r) => {
      const { supervisor } = r.env;
      // The platforms apply pushes but do not answer: the worker dies after they took effect.
      const releases = [platforms!.tiktokFront.holdPushAnswers(), platforms!.amazonFront.holdPushAnswers()];
      try {
        await waitFor(
          'a shipment push applied and unanswered',
          () => platforms!.tiktokFront.heldPushes() + platforms!.amazonFront.heldPushes() > 0,
          60_000,
          10,
        );
        r.notes.push(
          `worker killed with ${platforms!.tiktokFront.heldPushes() + platforms!.amazonFront.heldPushes()} applied push(es) unanswered`,
        );
        await supervisor.kill('worker', 'SIGKILL');
      } finally {
        for (const release of releases) release();
      }
      await sleep(1000);
      await supervisor.start('worker', 'worker');
      await moreOrders(r, BETWEEN_FAULTS, 'after the worker kill');

      // An API process dies, with notifications in flight if the load has any at that moment.
      const api = supervisor.url('api-1');
      const caught = await waitFor('a notification in flight to api-1', () => r.load.inFlight(api) > 0, 10_000, 2).then(
        () => true,
        () => false,
      );
      await supervisor.kill('api-1', 'SIGKILL');
      r.notes.push(`api-1 killed ${caught ? 'with' : 'without'} a notification in flight`);
      await sleep(1000);
      await supervisor.start('api-1', 'api');
      await moreOrders(r, BETWEEN_FAULTS, 'after the API kill');

      // Redis goes away and comes back empty: webhooks stored meanwhile and jobs it held are queued again at once.
      const down = new Date();
      await world().redis.stop();
      await sleep(OUTAGE_MS);
      await world().redis.start();
      const back = new Date();
      const stored = await receivedBetween(r.env.databaseUrl, down, back);
      // Watched for three times the bound (the load goes on meanwhile), so a miss is reported with its size.
      const recovered = await waitFor(
        'every webhook stored before Redis came back processed',
        async () => (await unprocessedSince(r.env.databaseUrl, back)) === 0,
        3 * REDIS_RECOVERY_MS,
        100,
      ).then(
        () => Date.now() - back.getTime(),
        () => undefined,
      );
      r.notes.push(
        `Redis restart: ${stored} webhooks stored while it was away, all stored before its return processed ${recovered ?? `not within ${3 * REDIS_RECOVERY_MS}`} ms after it`,
      );
      if (recovered === undefined || recovered > REDIS_RECOVERY_MS)
        r.problems.push(
          `webhooks stored before Redis came back were processed ${recovered ?? `more than ${3 * REDIS_RECOVERY_MS}`} ms after it (at most ${REDIS_RECOVERY_MS} ms)`,
        );
      await moreOrders(r, BETWEEN_FAULTS, 'after the Redis restart');

      await world().postgres.stop('fast');
      await sleep(OUTAGE_MS);
      await world().postgres.start();
    });
  });

  it('store orders while the platforms answer 500, then 429 with Retry-After, then hang, then reset connections, a few seconds each', async () => {
    await underStoreFaults('store_platform_outage', async (r) => {
      const faults: PlatformFault[] = ['500', '429', 'hang', 'reset'];
      try {
        for (const fault of faults) {
          // Each fault lasts a while, and until the service has met it at least once.
          const met = platforms!.injected()[fault] ?? 0;
          platforms!.inject(fault);
          await sleep(PLATFORM_FAULT_MS);
          await waitFor(
            `a platform request answered with ${fault}`,
            () => (platforms!.injected()[fault] ?? 0) > met,
            30_000,
            50,
          );
        }
      } finally {
        platforms!.clear();
      }
      r.notes.push(`platform requests answered with a fault: ${JSON.stringify(platforms!.injected())}`);
    });
  });
});
