import type { BaseAdapter } from '@bull-board/api/dist/queueAdapters/base.js';
import type { JobCounts, JobStatus, QueueJob, QueueJobJson, Status } from '@bull-board/api/dist/types.js';
import type { InProcessQueueInspector } from '../../infra/queue/in-process-queue.ts';
import type { InspectedJob } from '../../infra/queue/queue-job-store.ts';

type DashboardState = 'waiting' | 'delayed' | 'active' | 'failed' | 'completed';
const LISTED: DashboardState[] = ['active', 'waiting', 'delayed', 'failed', 'completed'];

/**
 * A bull-board queue adapter over the in-process queue (`queue_jobs`), so the embedded default
 * (`npm start`) shows the same dashboard as a Redis deployment: counts, waiting, delayed,
 * running and failed jobs with their errors; retry, promote and remove. Completed jobs leave the
 * table, so only their count (since start) is shown; there is no pausing, no logs, no metrics.
 *
 * Built from bull-board's BaseAdapter, which is only loaded with the dashboard.
 */
export function inProcessBoardAdapter(Base: typeof BaseAdapter, queue: InProcessQueueInspector): BaseAdapter {
  class InProcessBoardAdapter extends (Base as unknown as new (
    type: 'bullmq',
    options: { allowRetries: boolean; allowCompletedRetries: boolean; description: string },
  ) => BaseAdapter) {
    getName(): string {
      return queue.name;
    }
    getStatuses(): Status[] {
      return ['latest', ...LISTED];
    }
    getJobStatuses(): JobStatus[] {
      return LISTED;
    }
    async getJobCounts(): Promise<JobCounts> {
      const c = await queue.counts();
      return {
        active: c.active,
        waiting: c.waiting,
        delayed: c.delayed,
        failed: c.failed,
        completed: c.completed,
        paused: 0,
        prioritized: 0,
        'waiting-children': 0,
      };
    }
    async getJobs(statuses: JobStatus[], start = 0, end = 19): Promise<QueueJob[]> {
      const jobs: QueueJob[] = [];
      for (const status of statuses) {
        if (status === 'completed' || !LISTED.includes(status as DashboardState)) continue;
        for (const row of await queue.list(
          status as 'waiting' | 'delayed' | 'active' | 'failed',
          start,
          end - start + 1,
        ))
          jobs.push(this.#job(row));
      }
      return jobs;
    }
    async getJob(id: string): Promise<QueueJob | undefined> {
      const row = await queue.get(id);
      return row ? this.#job(row) : undefined;
    }
    async getJobLogs(): Promise<string[]> {
      return [];
    }
    async getMetrics(): Promise<never> {
      return { meta: { count: 0, prevTS: 0, prevCount: 0 }, data: [], count: 0 } as never;
    }
    async getRedisInfo(): Promise<string | null> {
      return null;
    }
    async isPaused(): Promise<boolean> {
      return false;
    }
    async pause(): Promise<void> {
      throw new Error('The in-process queue cannot be paused.');
    }
    async resume(): Promise<void> {}
    async empty(): Promise<void> {
      await queue.clean('waiting', 0);
    }
    async obliterate(): Promise<void> {
      throw new Error('The in-process queue cannot be obliterated.');
    }
    async clean(status: string, graceTimeMs: number): Promise<void> {
      if (status === 'failed' || status === 'wait')
        await queue.clean(status === 'wait' ? 'waiting' : 'failed', graceTimeMs);
    }
    async addJob(): Promise<never> {
      throw new Error('Jobs are added by the service, not from the dashboard.');
    }
    async promoteAll(): Promise<void> {
      for (const row of await queue.list('delayed', 0, 1000)) await queue.promote(row.jobId);
    }
    async removeJobScheduler(): Promise<boolean> {
      return false;
    }
    async getJobSchedulers(): Promise<[]> {
      return [];
    }
    async getJobSchedulersCount(): Promise<number> {
      return 0;
    }
    async updateJobScheduler(): Promise<'not-found'> {
      return 'not-found';
    }
    async runJobSchedulerNow(): Promise<'not-found'> {
      return 'not-found';
    }
    async getGlobalConcurrency(): Promise<number | null> {
      return null;
    }
    async setGlobalConcurrency(): Promise<void> {}

    #job(row: InspectedJob): QueueJob {
      const now = queue.now().getTime();
      const state = row.state === 'waiting' && row.runAt.getTime() > now ? 'delayed' : row.state;
      const json: QueueJobJson = {
        id: row.jobId,
        name: queue.name,
        progress: 0,
        attemptsMade: row.attempt,
        timestamp: row.createdAt.getTime(),
        processedOn: row.state === 'active' ? now : null,
        // A dead job's run_at is when it failed.
        finishedOn: row.state === 'failed' ? row.runAt.getTime() : null,
        ...(state === 'delayed' ? { delay: row.runAt.getTime() - row.createdAt.getTime() } : {}),
        // A waiting job keeps the error of its last attempt: shown as the reason it waits again.
        failedReason: row.lastError ?? '',
        stacktrace: row.lastError ? [row.lastError] : [],
        data: row.data,
        returnvalue: null,
        opts: {
          attempts: row.maxAttempts,
          ...(state === 'delayed' ? { delay: row.runAt.getTime() - row.createdAt.getTime() } : {}),
        },
      };
      return {
        opts: json.opts,
        toJSON: () => json,
        getState: async () => state,
        promote: () => queue.promote(row.jobId),
        retry: async () => {
          if (!(await queue.retry(row.jobId))) throw new Error(`Job ${row.jobId} is not failed: nothing to retry.`);
        },
        remove: async () => {
          if (!(await queue.remove(row.jobId)))
            throw new Error(`Job ${row.jobId} is running or gone: it cannot be removed.`);
        },
      };
    }
  }
  return new InProcessBoardAdapter('bullmq', {
    allowRetries: true,
    allowCompletedRetries: false,
    description: 'in-process queue (queue_jobs table)',
  });
}
