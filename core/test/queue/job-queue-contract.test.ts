import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { PermanentJobError, RetryLaterError, type Job, type JobQueue } from '../../src/infra/queue/job-queue.ts';
import { bullmqAdapter, inProcessAdapter, sleep, until } from './queue-adapters.ts';

/**
 * One contract, every adapter: BullMQ on real Redis, the in-process queue on PGlite and on
 * PostgreSQL. Delays are tens of milliseconds so the whole suite stays fast.
 */
for (const adapter of [inProcessAdapter('pglite'), inProcessAdapter('postgres'), bullmqAdapter()]) {
  describe(`job queue contract [${adapter.name}]`, function () {
    const open: JobQueue[] = [];
    /** A new adapter instance over the same storage: another process, or this one restarted. */
    const fresh = () => {
      const q = adapter.make();
      open.push(q);
      return q;
    };
    const name = () => `q-${randomBytes(4).toString('hex')}`;

    before(async function () {
      await adapter.setup(this);
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((q) => q.close()));
    });
    after(async () => adapter.teardown());

    it('runs a job with its data and the id it was given', async () => {
      const seen: Array<{ id: string; data: unknown; attempt: number; maxAttempts: number; name: string }> = [];
      const jq = fresh();
      const queueName = name();
      const q = jq.define<{ x: number }>(queueName, {
        attempts: 3,
        process: async (job) => void seen.push({ ...job }),
      });
      await jq.startWorkers();
      // Ids BullMQ refuses as such (':' and integers) still come back unchanged.
      for (const [x, jobId] of [
        [1, 'order:42'],
        [2, '42'],
        [3, 'a%3Ab'],
      ] as const)
        await q.add({ x }, { jobId });
      await q.add({ x: 4 });
      await until(() => seen.length === 4);
      const byX = new Map(seen.map((s) => [(s.data as { x: number }).x, s]));
      expect([1, 2, 3].map((x) => byX.get(x)!.id)).to.deep.equal(['order:42', '42', 'a%3Ab']);
      expect(byX.get(4)!.id).to.be.a('string').that.is.not.empty;
      expect(byX.get(1)).to.include({ name: queueName, attempt: 1, maxAttempts: 3 });
    });

    it('runs a delayed job not before its delay', async () => {
      const ran: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => void ran.push(Date.now()) });
      await jq.startWorkers();
      const added = Date.now();
      await q.add(null, { delayMs: 150 });
      await until(() => ran.length === 1);
      expect(ran[0]! - added).to.be.at.least(145);
    });

    it('does not let a far-off delayed job hold back a sooner one', async () => {
      const ran: string[] = [];
      const jq = fresh();
      const q = jq.define<string>(name(), { process: async (job) => void ran.push(job.data) });
      await jq.startWorkers();
      await q.add('soon', { delayMs: 50 });
      await q.add('later', { delayMs: 60_000 });
      await until(() => ran.length === 1, 1000);
      expect(ran).to.deep.equal(['soon']);
    });

    it('retries with a schedule backoff until success, counting attempts', async () => {
      const runs: Array<{ attempt: number; at: number }> = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        attempts: 5,
        backoff: { type: 'schedule', delaysMs: [40, 120] },
        process: async (job: Job<null>) => {
          runs.push({ attempt: job.attempt, at: Date.now() });
          if (job.attempt < 3) throw new Error('not yet');
        },
      });
      await jq.startWorkers();
      await q.add(null);
      await until(() => runs.length === 3);
      await sleep(50);
      expect(runs.map((r) => r.attempt)).to.deep.equal([1, 2, 3]);
      expect(runs[1]!.at - runs[0]!.at).to.be.at.least(35);
      expect(runs[2]!.at - runs[1]!.at).to.be.at.least(110);
      await until(async () => (await q.counts()).completed === 1);
    });

    it('counts a job as failed once its attempts are spent', async () => {
      const attempts: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        attempts: 2,
        backoff: { type: 'fixed', delayMs: 10 },
        process: async (job) => {
          attempts.push(job.attempt);
          throw new Error('always');
        },
      });
      await jq.startWorkers();
      await q.add(null);
      await until(async () => (await q.counts()).failed === 1);
      expect(attempts).to.deep.equal([1, 2]);
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
      await sleep(50);
      expect(runs).to.equal(1);
    });

    it('tells when its dead jobs failed, newest first, back to a time and bounded', async () => {
      const jq = fresh();
      const q = jq.define<number>(name(), {
        attempts: 3,
        process: async (job) => {
          throw new PermanentJobError(`dead ${job.data}`);
        },
      });
      // A job that fails once and then succeeds: a retried failure is no dead job.
      const q2 = jq.define<number>(name(), {
        attempts: 2,
        backoff: { type: 'fixed', delayMs: 10 },
        process: async (job) => {
          if (job.attempt === 1) throw new Error('once');
        },
      });
      const before = new Date(Date.now() - 1000);
      expect(await q.failedSince(before, 10)).to.deep.equal([]);
      await jq.startWorkers();
      await Promise.all([1, 2, 3].map((n) => q.add(n)));
      await q2.add(0);
      await until(async () => (await q.counts()).failed === 3);
      await until(async () => (await q2.counts()).completed === 1);
      const after = new Date(Date.now() + 1000);
      const times = await q.failedSince(before, 10);
      expect(times).to.have.length(3);
      expect(times.every((t) => t >= before && t <= after)).to.equal(true);
      expect(times.map((t) => t.getTime())).to.deep.equal([...times.map((t) => t.getTime())].sort((a, b) => b - a));
      expect(await q.failedSince(before, 2)).to.deep.equal(times.slice(0, 2));
      expect(await q.failedSince(after, 10)).to.deep.equal([]);
      expect(await q2.failedSince(before, 10)).to.deep.equal([]);
    });

    it('retries a RetryLaterError after the wait without spending an attempt', async () => {
      const runs: Array<{ attempt: number; at: number }> = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        attempts: 1,
        process: async (job) => {
          runs.push({ attempt: job.attempt, at: Date.now() });
          if (runs.length <= 2) throw new RetryLaterError('throttled', 60);
        },
      });
      await jq.startWorkers();
      await q.add(null);
      await until(() => runs.length === 3);
      expect(runs.map((r) => r.attempt)).to.deep.equal([1, 1, 1]);
      expect(runs[1]!.at - runs[0]!.at).to.be.at.least(55);
      await until(async () => (await q.counts()).completed === 1);
      expect((await q.counts()).failed).to.equal(0);
    });

    it('adds a job id once while it waits', async () => {
      let runs = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => void runs++ });
      await q.add(null, { jobId: 'same', delayMs: 50 });
      await q.add(null, { jobId: 'same', delayMs: 50 });
      // One job, delayed or (on a busy machine, its 50 ms already past) waiting: never two.
      const counts = await q.counts();
      expect(counts.delayed + counts.waiting).to.equal(1);
      await jq.startWorkers();
      await until(() => runs >= 1);
      await sleep(100);
      expect(runs).to.equal(1);
    });

    it('adds a job id again once its job completed or failed', async () => {
      const seen: string[] = [];
      const jq = fresh();
      const q = jq.define<string>(name(), {
        process: async (job) => {
          seen.push(job.data);
          if (job.data === 'fail') throw new PermanentJobError('no');
        },
      });
      await jq.startWorkers();
      await q.add('fail', { jobId: 'failing' });
      await until(async () => (await q.counts()).failed === 1);
      await q.add('again', { jobId: 'failing' });
      await q.add('first', { jobId: 'done' });
      await until(async () => (await q.counts()).completed === 2);
      await q.add('second', { jobId: 'done' });
      await until(() => seen.length === 4);
      expect(seen.sort()).to.deep.equal(['again', 'fail', 'first', 'second']);
      expect((await q.counts()).failed).to.equal(0);
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
      await Promise.all(Array.from({ length: 12 }, () => q.add(null)));
      await jq.startWorkers();
      await until(() => done === 12);
      expect(peak).to.equal(3);
    });

    it('starts at most `max` jobs per window with a limiter', async () => {
      const starts: number[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        concurrency: 10,
        limiter: { max: 2, durationMs: 150 },
        process: async () => void starts.push(Date.now()),
      });
      await jq.startWorkers();
      await Promise.all(Array.from({ length: 6 }, () => q.add(null)));
      await until(() => starts.length === 6);
      // Six jobs at two per window need three windows: the last starts two windows after the first.
      expect(starts[5]! - starts[0]!).to.be.at.least(280);
    });

    it('removes a delayed job, and leaves unknown ids alone', async () => {
      let runs = 0;
      const jq = fresh();
      const q = jq.define<null>(name(), { process: async () => void runs++ });
      await jq.startWorkers();
      // Due long after the test: removing it can never race its start (beside other work, 80 ms once passed between
      // the add and the remove, and the job ran).
      await q.add(null, { jobId: 'gone', delayMs: 10 * 60_000 });
      expect((await q.counts()).delayed).to.equal(1);
      await q.remove('gone');
      await q.remove('never-added');
      expect(runs).to.equal(0);
      expect(await q.counts()).to.deep.equal({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 });
    });

    it('does not remove a running job', async () => {
      let release!: () => void;
      const finished: string[] = [];
      const jq = fresh();
      const q = jq.define<null>(name(), {
        process: async (job) => {
          await new Promise<void>((r) => (release = r));
          finished.push(job.id);
        },
      });
      await jq.startWorkers();
      await q.add(null, { jobId: 'busy' });
      await until(async () => (await q.counts()).active === 1);
      await q.remove('busy');
      release();
      await until(() => finished.length === 1);
      await until(async () => (await q.counts()).completed === 1);
    });

    it('reports waiting, delayed, active and failed jobs in its counts', async () => {
      const jq = fresh();
      const q = jq.define<string>(name(), {
        process: async (job) => {
          if (job.data === 'bad') throw new Error('bad');
          if (job.data === 'slow') await sleep(150);
        },
      });
      await q.add('ok');
      await q.add('later', { delayMs: 60_000 });
      expect(await q.counts()).to.deep.equal({ waiting: 1, active: 0, delayed: 1, failed: 0, completed: 0 });
      await q.add('bad');
      await q.add('slow');
      await jq.startWorkers();
      await until(async () => (await q.counts()).active === 1);
      await until(async () => (await q.counts()).completed === 2);
      expect(await q.counts()).to.deep.equal({ waiting: 0, active: 0, delayed: 1, failed: 1, completed: 2 });
    });

    it('starts a queue defined after the workers started', async () => {
      const seen: number[] = [];
      const jq = fresh();
      await jq.startWorkers();
      const q = jq.define<number>(name(), { process: async (job) => void seen.push(job.data) });
      await q.add(7);
      await until(() => seen.length === 1);
      expect(jq.queues().map((x) => x.name)).to.deep.equal([q.name]);
    });

    it('waits for running jobs on close', async () => {
      const finished: number[] = [];
      const jq = fresh();
      const q = jq.define<number>(name(), {
        process: async (job) => {
          await sleep(100);
          finished.push(job.data);
        },
      });
      await jq.startWorkers();
      await q.add(1);
      await until(async () => (await q.counts()).active === 1);
      await jq.close();
      expect(finished).to.deep.equal([1]);
    });

    it('keeps a job across a worker restart', async () => {
      const queueName = name();
      const first = fresh();
      const q1 = first.define<{ id: string }>(queueName, { process: async () => undefined });
      await first.startWorkers();
      await q1.add({ id: 'delayed' }, { delayMs: 150 });
      await first.close();
      // Added while no worker runs anywhere (an API-only process).
      const producer = fresh();
      await producer.define<{ id: string }>(queueName, { process: async () => undefined }).add({ id: 'queued' });

      const seen: string[] = [];
      const second = fresh();
      second.define<{ id: string }>(queueName, { process: async (job) => void seen.push(job.data.id) });
      await second.startWorkers();
      await until(() => seen.length === 2);
      expect(seen).to.have.members(['queued', 'delayed']);
    });

    it('runs a job once when two workers share the storage', async () => {
      const queueName = name();
      const runs = new Map<number, number>();
      const workers = [fresh(), fresh()];
      const queues = workers.map((w) =>
        w.define<number>(queueName, {
          concurrency: 4,
          process: async (job) => {
            runs.set(job.data, (runs.get(job.data) ?? 0) + 1);
            await sleep(5);
          },
        }),
      );
      await Promise.all(workers.map((w) => w.startWorkers()));
      await Promise.all(Array.from({ length: 30 }, (_, i) => queues[i % 2]!.add(i)));
      await until(() => runs.size === 30);
      await sleep(100);
      expect([...runs.values()].every((n) => n === 1)).to.equal(true);
    });
  });
}
