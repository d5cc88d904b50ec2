import { expect } from 'chai';
import { waitFor, scaled } from '../../core/test/helpers/wait.ts';
import { ScenarioEnvironment } from './fault-environment.ts';
import { useFaultWorld } from './fault-suite.ts';
import { checkEventsDelivered, checkOrders, checkProcesses, checkWallets } from './guarantees.ts';
import { sleep, type OrderLoad } from './order-load.ts';

/**
 * Faults on real processes (`npm run test:faults`): two API processes and a worker on a
 * PostgreSQL and a Redis of the suite's own, under a bounded load of wallet-paid orders with
 * webhooks. Each scenario (its own `it`, runnable alone with --grep) starts a fresh service,
 * injects one fault under load, lets the load go on, and then checks every guarantee:
 * acknowledged orders exist exactly once, wallets equal their ledgers, every event is
 * delivered, every process is up and serving, and no process exited on its own.
 */

/** Orders acknowledged before the fault, and again after recovery, before the load stops. */
const BEFORE_FAULT = 15;
const AFTER_RECOVERY = 15;
/**
 * Generous: a busy 2-core machine, and a delivery claimed by a killed worker waits for its lease (40 s) and a sweep (15
 * s).
 */
const ACKS_DEADLINE_MS = 90_000;
const DRAIN_MS = 60_000;
const SERVE_DEADLINE_MS = 60_000;
const DELIVERY_DEADLINE_MS = 150_000;
/** How long a dependency stays down. */
const OUTAGE_MS = 4000;
/**
 * The slowest answer allowed while Redis is away: its waits are bounded well below this, the rest is a busy machine.
 */
const REDIS_OUTAGE_MAX_ANSWER_MS = 5000;

describe('faults on real processes (two API processes and a worker on PostgreSQL and Redis)', function () {
  this.timeout(scaled(420_000));
  let env: ScenarioEnvironment | undefined;
  const world = useFaultWorld(() => env?.supervisor);

  afterEach(async () => {
    await env?.stop();
    env = undefined;
  });

  /**
   * Starts a service and its load, waits for BEFORE_FAULT orders, runs `fault` (which returns
   * once the dependency or process is back), restarts crashed processes as a supervisor would,
   * lets AFTER_RECOVERY more orders through, stops the load, and checks every guarantee.
   */
  async function underFault(
    name: string,
    fault: (env: ScenarioEnvironment, load: OrderLoad) => Promise<void>,
    opts: { maxLatencyMs?: number } = {},
  ): Promise<void> {
    env = await ScenarioEnvironment.start(world(), name);
    const load = env.startLoad();
    const problems: string[] = [];
    await waitFor(
      `${BEFORE_FAULT} orders before the fault`,
      () => load.acknowledged() >= BEFORE_FAULT,
      ACKS_DEADLINE_MS,
      100,
    );
    // The fault lands while requests are under way (a closed loop has short gaps).
    await waitFor('a request in flight', () => load.inFlight() > 0, 30_000, 2);
    await fault(env, load);
    // A process that died meanwhile is started again (the crash is reported below), so the load can go on.
    const revived = await env.supervisor.reviveCrashed().catch((err: Error) => {
      problems.push(`a crashed process could not be started again: ${err.message}`);
      return [];
    });
    const target = load.acknowledged() + AFTER_RECOVERY;
    await waitFor(
      `${AFTER_RECOVERY} orders after recovery`,
      () => load.acknowledged() >= target,
      ACKS_DEADLINE_MS,
      100,
    ).catch(() =>
      problems.push(
        `only ${AFTER_RECOVERY - (target - load.acknowledged())} of ${AFTER_RECOVERY} orders were acknowledged within ${ACKS_DEADLINE_MS} ms after recovery`,
      ),
    );
    await load.stop(DRAIN_MS);

    problems.push(
      ...(await checkProcesses(
        env.supervisor,
        (api) => load.probe(api, env!.resellers[0]!, SERVE_DEADLINE_MS),
        SERVE_DEADLINE_MS,
      )),
    );
    problems.push(...(await checkOrders(env.databaseUrl, load.keys, env.resellers)));
    problems.push(...(await checkWallets(env.databaseUrl, env.resellers)));
    problems.push(
      ...(await checkEventsDelivered(
        env.databaseUrl,
        env.resellers,
        load.keys,
        world().receiver,
        DELIVERY_DEADLINE_MS,
      )),
    );
    const { byOutcome, maxLatencyMs } = load.summary();
    // A dependency outage is answered 503 with Retry-After, quickly: never a 500, never a hang.
    const internalErrors = byOutcome['500'] ?? 0;
    if (internalErrors > 0) problems.push(`${internalErrors} request(s) answered 500 (an outage must answer 503)`);
    if (opts.maxLatencyMs !== undefined && maxLatencyMs > opts.maxLatencyMs)
      problems.push(`the slowest answer took ${maxLatencyMs} ms (at most ${opts.maxLatencyMs} ms)`);
    const summary = `${load.keys.length} keys, ${load.acknowledged()} acknowledged; attempts by outcome ${JSON.stringify(byOutcome)}; slowest answer ${maxLatencyMs} ms${revived.length > 0 ? `; restarted after crashing: ${revived.join(', ')}` : ''}`;
    // One line per scenario in the run's output: what the load met, pass or fail.
    process.stdout.write(`      ${name}: ${summary}; ${problems.length} broken guarantee(s)\n`);
    expect(problems, `broken guarantees after "${name}" (${summary})`).to.deep.equal([]);
  }

  it('worker SIGKILL mid-delivery, restarted by its supervisor: nothing lost, doubled or left undelivered', async () => {
    await underFault('worker_kill', async (e) => {
      // Deliveries reach the receiver but get no answer: the worker dies in the middle of its attempts.
      const release = world().receiver.holdDeliveries();
      try {
        await waitFor('a webhook delivery in flight', () => world().receiver.held() > 0, 30_000, 10);
        await e.supervisor.kill('worker', 'SIGKILL');
      } finally {
        release();
      }
      // Events pile up while no worker runs.
      await sleep(1000);
      await e.supervisor.start('worker', 'worker');
    });
  });

  it('API SIGKILL mid-request, restarted: retried keys place their order once', async () => {
    await underFault('api_kill', async (e, load) => {
      const api = e.supervisor.url('api-1');
      await waitFor('an order request in flight to api-1', () => load.inFlight(api) > 0, 30_000, 2);
      await e.supervisor.kill('api-1', 'SIGKILL');
      // The load goes on against api-2 alone meanwhile.
      await sleep(1000);
      // Restarted while the other processes serve the load: how long until it listens is reported.
      const startMs = await e.supervisor.start('api-1', 'api');
      process.stdout.write(`      api_kill: api-1 listened again ${startMs} ms after it was started\n`);
    });
  });

  it('PostgreSQL restart (pg_ctl stop -m fast, then start): every process survives and serves again', async () => {
    await underFault('postgres_restart', async () => {
      await world().postgres.stop('fast');
      await sleep(OUTAGE_MS);
      await world().postgres.start();
    });
  });

  it('Redis restart (every key lost): every process survives and serves again, queued work is recovered', async () => {
    await underFault(
      'redis_restart',
      async () => {
        await world().redis.stop();
        await sleep(OUTAGE_MS);
        await world().redis.start();
        // Every Redis wait on the request path is bounded (half a second a command, two for an enqueue).
      },
      { maxLatencyMs: REDIS_OUTAGE_MAX_ANSWER_MS },
    );
  });
});
