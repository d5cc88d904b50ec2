import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { BullMqJobQueue } from '../../src/infra/queue/bullmq-queue.ts';
import { InProcessJobQueue } from '../../src/infra/queue/in-process-queue.ts';
import { PermanentJobError, RetryLaterError, type Job, type JobQueue } from '../../src/infra/queue/job-queue.ts';
import { silentLogger } from '../../src/infra/logger.ts';
import { migrateToLatest, openDatabase } from '../../src/infra/db/database.ts';
import { migrations } from '../../src/modules/migrations.ts';
import type { Db, Tables } from '../../src/modules/tables.ts';
import { createTestPostgresDatabase, needService, TEST_REDIS_URL } from '../helpers/services.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

interface Adapter {
  name: string;
  setup(ctx: Mocha.Context): Promise<void>;
  /** A fresh adapter over the same storage (a restarted process). */
  make(): JobQueue;
  teardown(): Promise<void>;
}

function bullmqAdapter(): Adapter {
  const prefix = `pa-qtest-${randomBytes(4).toString('hex')}`;
  return {
    name: 'BullMQ on Redis',
    async setup(ctx) {
      await needService(ctx, 'redis');
    },
    make: () => new BullMqJobQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: silentLogger() }),
    async teardown() {
      const redis = new Redis(TEST_REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

function inProcessAdapter(kind: 'pglite' | 'postgres'): Adapter {
  let db: Db;
  let close: () => Promise<void>;
  let drop: (() => Promise<void>) | undefined;
  return {
    name: `in-process on ${kind}`,
    async setup(ctx) {
      let url: string | undefined;
      if (kind === 'postgres') {
        await needService(ctx, 'postgres');
        const created = await createTestPostgresDatabase();
        url = created.url;
        drop = created.drop;
      }
      const handle = await openDatabase<Tables>(url ? { url } : { dataDir: 'memory://' });
      db = handle.db;
      close = handle.close;
      await migrateToLatest(db, migrations);
    },
    make: () => new InProcessJobQueue({ db, logger: silentLogger(), pollIntervalMs: 50 }),
    async teardown() {
      await close?.();
      await drop?.();
    },
  };
}

for (const adapter of [inProcessAdapter('pglite'), inProcessAdapter('postgres'), bullmqAdapter()]) {
  describe(`job queue contract [${adapter.name}]`, function () {
    const open: JobQueue[] = [];
    const fresh = () => {
      const q = adapter.make();
      open.push(q);
      return q;
    };
    let n = 0;
    const name = () => `q${++n}-${randomBytes(3).toString('hex')}`;

    before(async function () {
      await adapter.setup(this);
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((q) => q.close()));
    });
    after(async () => adapter.teardown());

    it('runs a job with its data', async () => {
      const seen: unknown[] = [];
      const jq = fresh();
      const q = jq.define<{ x: number }>(name(), { process: async (job) => void seen.push(job.data) });
      await jq.startWorkers();
      await q.add({ x: 1 });
      await until(() => seen.length === 1);
      expect(seen).to.deep.equal([{ x: 1 }]);
    });

    it('runs a delayed job not before its delay', async () => {
      const ran: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => void ran.push(Date.now()) });
      await jq.startWorkers();
      const added = Date.now();
      await q.add(null, { delayMs: 300 });
      await until(() => ran.length === 1);
      expect(ran[0]! - added).to.be.at.least(290);
    });

    it('retries with backoff until success, counting attempts', async () => {
      const attempts: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        attempts: 5,
        backoff: { type: 'schedule', delaysMs: [20, 40] },
        process: async (job: Job<null>) => {
          attempts.push(job.attempt);
          if (job.attempt < 3) throw new Error('not yet');
        },
      });
      await jq.startWorkers();
      await q.add(null);
      await until(() => attempts.length === 3);
      await sleep(100);
      expect(attempts).to.deep.equal([1, 2, 3]);
    });

    it('counts a job as failed once its attempts are spent', async () => {
      let runs = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), { attempts: 2, backoff: { type: 'fixed', delayMs: 10 }, process: async () => void (runs++, (() => { throw new Error('always'); })()) });
      await jq.startWorkers();
      await q.add(null);
      await until(async () => (await q.counts()).failed === 1);
      expect(runs).to.equal(2);
    });

    it('does not retry a PermanentJobError', async () => {
      let runs = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), {
        attempts: 5,
        process: async () => {
          runs++;
          throw new PermanentJobError('never');
        },
      });
      await jq.startWorkers();
      await q.add(null);
      await until(async () => (await q.counts()).failed === 1);
      await sleep(100);
      expect(runs).to.equal(1);
    });

    it('retries a RetryLaterError after the wait without spending an attempt', async () => {
      const attempts: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        attempts: 1,
        process: async (job) => {
          attempts.push(job.attempt);
          if (attempts.length === 1) throw new RetryLaterError('throttled', 150);
        },
      });
      await jq.startWorkers();
      const started = Date.now();
      await q.add(null);
      await until(() => attempts.length === 2);
      expect(Date.now() - started).to.be.at.least(140);
      expect(attempts).to.deep.equal([1, 1]);
    });

    it('adds a job id once while it waits', async () => {
      let runs = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => void runs++ });
      await q.add(null, { jobId: 'same:id', delayMs: 100 });
      await q.add(null, { jobId: 'same:id', delayMs: 100 });
      await jq.startWorkers();
      await until(() => runs >= 1);
      await sleep(200);
      expect(runs).to.equal(1);
    });

    it('never runs more jobs at once than its concurrency', async () => {
      let running = 0;
      let peak = 0;
      let done = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), {
        concurrency: 3,
        process: async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(30);
          running--;
          done++;
        },
      });
      await jq.startWorkers();
      await Promise.all(Array.from({ length: 12 }, () => q.add(null)));
      await until(() => done === 12);
      expect(peak).to.equal(3);
    });

    it('starts at most `max` jobs per window with a limiter', async () => {
      const starts: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), { concurrency: 10, limiter: { max: 2, durationMs: 200 }, process: async () => void starts.push(Date.now()) });
      await jq.startWorkers();
      await Promise.all(Array.from({ length: 6 }, () => q.add(null)));
      await until(() => starts.length === 6, 5000);
      expect(starts[5]! - starts[0]!).to.be.at.least(380);
    });

    it('removes a delayed job', async () => {
      let runs = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => void runs++ });
      await jq.startWorkers();
      await q.add(null, { jobId: 'gone', delayMs: 150 });
      await q.remove('gone');
      await sleep(300);
      expect(runs).to.equal(0);
    });

    it('reports delayed jobs in its counts', async () => {
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => undefined });
      await q.add(null, { delayMs: 60_000 });
      const counts = await q.counts();
      expect(counts.delayed).to.equal(1);
      expect(counts.active).to.equal(0);
    });

    it('keeps a job across a worker restart', async () => {
      const queueName = name();
      const first = fresh();
      const q1 = first.define<{ id: string }>(queueName, { process: async () => undefined });
      await first.startWorkers();
      await q1.add({ id: 'survivor' }, { delayMs: 300 });
      await first.close();
      open.splice(open.indexOf(first), 1);

      const seen: string[] = [];
      const second = fresh();
      second.define<{ id: string }>(queueName, { process: async (job) => void seen.push(job.data.id) });
      await second.startWorkers();
      await until(() => seen.length === 1);
      expect(seen).to.deep.equal(['survivor']);
    });
  });
}
