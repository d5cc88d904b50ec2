import { expect } from 'chai';
import { BaseAdapter } from '@bull-board/api/dist/queueAdapters/base.js';
import { inProcessBoardAdapter } from '../../src/modules/console/in-process-board-adapter.ts';
import { InProcessJobQueue } from '../../src/infra/queue/in-process-queue.ts';
import { PermanentJobError } from '../../src/infra/queue/job-queue.ts';
import { silentLogger } from '../../src/infra/logger.ts';
import { describeEachDatabase } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait.ts';

describeEachDatabase('the bull-board adapter of the in-process queue', (t) => {
  it('lists jobs by state with their errors, retries a failed job, promotes a delayed one and removes jobs that are not running', async () => {
    const queue = new InProcessJobQueue({ db: t.db, logger: silentLogger(), pollIntervalMs: 50 });
    let healthy = false;
    const ran: string[] = [];
    const q = queue.define<{ n: number }>(`board-${Date.now()}`, {
      attempts: 3,
      process: async (job) => {
        if (job.data.n === 1 && !healthy) throw new PermanentJobError('the shop refused our credentials (401)');
        ran.push(job.id);
      },
    });
    await queue.startWorkers();
    try {
      const inspector = queue.inspectors().find((i) => i.name === q.name)!;
      const board = inProcessBoardAdapter(BaseAdapter, inspector);
      expect(board.getName()).to.equal(q.name);
      await q.add({ n: 1 }, { jobId: 'failing' });
      await waitFor('the job to fail', async () => (await board.getJobCounts()).failed === 1);
      const [failed] = await board.getJobs(['failed']);
      expect(failed!.toJSON()).to.deep.include({
        id: 'failing',
        failedReason: 'the shop refused our credentials (401)',
        attemptsMade: 1,
      });
      expect(await failed!.getState()).to.equal('failed');
      expect((await board.getJob('failing'))!.toJSON().data).to.deep.equal({ n: 1 });

      healthy = true;
      await failed!.retry('failed');
      await waitFor('the retried job to run', () => ran.includes('failing'));
      // A finished job leaves the table.
      await waitFor('the retried job to complete', async () => (await board.getJob('failing')) === undefined);
      expect((await board.getJobCounts()).completed).to.equal(1);

      await q.add({ n: 2 }, { jobId: 'later', delayMs: 3_600_000 });
      const [delayed] = await board.getJobs(['delayed']);
      expect(await delayed!.getState()).to.equal('delayed');
      await delayed!.promote();
      await waitFor(
        'the promoted job to complete',
        async () => ran.includes('later') && (await board.getJob('later')) === undefined,
      );

      await q.add({ n: 3 }, { jobId: 'unwanted', delayMs: 3_600_000 });
      await (await board.getJob('unwanted'))!.remove();
      expect(await board.getJob('unwanted')).to.equal(undefined);
      expect(await board.getJobCounts()).to.deep.include({ waiting: 0, delayed: 0, failed: 0, active: 0 });
    } finally {
      await queue.close();
    }
  });
});
