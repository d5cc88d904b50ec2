import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { InProcessJobQueue } from '../../src/infra/queue/in-process-queue.ts';
import type { JobQueue } from '../../src/infra/queue/job-queue.ts';
import { silentLogger } from '../../src/infra/logger.ts';
import { describeEachDatabase } from '../helpers/services.ts';
import { sleep, until } from './queue-adapters.ts';

/** What only the in-process adapter has: leases on claimed rows and an injectable clock. */
describeEachDatabase('in-process job queue', (t) => {
  const open: JobQueue[] = [];
  const make = (opts: { leaseMs?: number; clock?: () => number } = {}) => {
    const q = new InProcessJobQueue({ db: t.db, logger: silentLogger(), pollIntervalMs: 20, ...opts });
    open.push(q);
    return q;
  };
  const name = () => `q-${randomBytes(4).toString('hex')}`;
  afterEach(async () => {
    await Promise.all(open.splice(0).map((q) => q.close()));
  });

  it('runs again the job of a dead worker once its lease ran out, without spending an attempt', async () => {
    const queueName = name();
    const seen: number[] = [];
    // The injected clock: the lease runs out when the test says, not when a busy machine gets round to it.
    let now = Date.parse('2030-01-01T00:00:00Z');
    const jq = make({ clock: () => now });
    const q = jq.define<null>(queueName, { attempts: 1, process: async (job) => void seen.push(job.attempt) });
    await q.add(null, { jobId: 'orphan' });
    // As a worker that claimed the job and then died would have left it.
    const leaseEnd = now + 150;
    await t.db
      .updateTable('queue_jobs')
      .set({ state: 'active', run_at: new Date(leaseEnd) })
      .where('queue', '=', queueName)
      .execute();
    await jq.startWorkers();
    now = leaseEnd - 1;
    await sleep(80); // several polls (every 20 ms) while the lease still holds
    expect(seen).to.deep.equal([]);
    now = leaseEnd;
    await until(() => seen.length === 1);
    expect(seen).to.deep.equal([1]);
  });

  it('renews the lease of a long job so that no other worker takes it', async () => {
    // The lease is counted on the injected clock, which only the running job moves: each step
    // stays within one lease of the last renewal, and the job waits for the next renewal before
    // the next step. Without renewals the lease lapses on the second step and the other worker,
    // polling every 20 ms, runs the job again. A stalled event loop changes nothing here.
    const queueName = name();
    const leaseMs = 300;
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = () => now;
    const runAt = async () =>
      (
        await t.db.selectFrom('queue_jobs').select('run_at').where('queue', '=', queueName).executeTakeFirstOrThrow()
      ).run_at.getTime();
    let runs = 0;
    const workers = [make({ leaseMs, clock }), make({ leaseMs, clock })];
    const queues = workers.map((w) =>
      w.define<null>(queueName, {
        process: async () => {
          runs++;
          for (let step = 0; step < 5; step++) {
            const leasedUntil = await runAt();
            now += (leaseMs * 2) / 3;
            await until(async () => (await runAt()) > leasedUntil);
          }
        },
      }),
    );
    await Promise.all(workers.map((w) => w.startWorkers()));
    await queues[0]!.add(null);
    await until(async () => (await queues[0]!.counts()).completed + (await queues[1]!.counts()).completed === 1);
    expect(now - Date.parse('2030-01-01T00:00:00Z'), 'the job outlived its first lease three times over').to.be.above(
      3 * leaseMs,
    );
    expect(runs).to.equal(1);
  });

  it('reads due times from the injected clock', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const q = make({ clock: () => now }).define<null>(name(), { process: async () => undefined });
    await q.add(null, { delayMs: 60_000 });
    expect(await q.counts()).to.include({ waiting: 0, delayed: 1 });
    now += 60_000;
    expect(await q.counts()).to.include({ waiting: 1, delayed: 0 });
  });
});
