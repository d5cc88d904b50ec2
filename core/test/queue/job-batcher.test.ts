import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { JobBatcher } from '../../src/infra/queue/job-batcher.ts';
import type { JobQueue } from '../../src/infra/queue/job-queue.ts';
import { bullmqAdapter, inProcessAdapter, sleep, until } from './queue-adapters.ts';

for (const adapter of [inProcessAdapter('pglite'), bullmqAdapter()]) {
  describe(`job batcher [${adapter.name}]`, function () {
    let jq: JobQueue;
    before(async function () {
      await adapter.setup(this);
    });
    afterEach(async () => jq?.close());
    after(async () => adapter.teardown());

    const start = async (opts: { windowMs: number; max: number }) => {
      jq = adapter.make();
      const jobs: Array<{ id: string; items: number[] }> = [];
      const q = jq.define<{ items: number[] }>(`b-${randomBytes(4).toString('hex')}`, {
        process: async (job) => void jobs.push({ id: job.id, items: job.data.items }),
      });
      await jq.startWorkers();
      const errors: number[][] = [];
      const batcher = new JobBatcher<number, { items: number[] }>(q, {
        ...opts,
        toJob: (items) => ({ data: { items }, options: { jobId: `batch-${items[0]}` } }),
        onError: (_err, items) => void errors.push(items),
      });
      return { jobs, errors, batcher };
    };

    it('queues items added within the window as one job, and a later item as the next', async () => {
      const { jobs, batcher } = await start({ windowMs: 30, max: 100 });
      for (let i = 1; i <= 5; i++) batcher.add(i);
      await until(() => jobs.length === 1);
      batcher.add(6);
      await until(() => jobs.length === 2);
      expect(jobs).to.deep.equal([
        { id: 'batch-1', items: [1, 2, 3, 4, 5] },
        { id: 'batch-6', items: [6] },
      ]);
    });

    it('queues a full batch at once, without waiting for the window', async () => {
      const { jobs, batcher } = await start({ windowMs: 60_000, max: 3 });
      for (let i = 1; i <= 7; i++) batcher.add(i);
      await until(() => jobs.length === 2);
      expect(jobs.map((j) => j.items)).to.deep.equal([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      await batcher.flush();
      await until(() => jobs.length === 3);
      expect(jobs[2]!.items).to.deep.equal([7]);
    });

    // (The in-process queue takes jobs even when closed: they are rows, run at the next start.)
    if (adapter.name.startsWith('BullMQ'))
      it('hands a batch the closed queue refused to onError', async () => {
        const { jobs, errors, batcher } = await start({ windowMs: 10, max: 100 });
        batcher.add(1);
        await until(() => jobs.length === 1);
        await jq.close();
        batcher.add(2);
        await batcher.flush();
        await until(() => errors.length > 0);
        expect(errors).to.deep.equal([[2]]);
      });
  });
}
