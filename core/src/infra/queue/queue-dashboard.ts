import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express from 'express';
import { BullMqJobQueue } from './bullmq-queue.ts';
import type { JobQueue } from './job-queue.ts';

/**
 * The queue dashboard at `/admin/v1/queues` (behind the back-office token): bull-board over
 * the BullMQ queues; with the in-process queue, the same counts as JSON.
 */
export function queueDashboard(queue: JobQueue, basePath: string): express.Router {
  if (queue instanceof BullMqJobQueue) {
    const adapter = new ExpressAdapter();
    adapter.setBasePath(basePath);
    createBullBoard({ queues: queue.bullQueues().map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
    return adapter.getRouter() as express.Router;
  }
  const router = express.Router();
  router.get('/', async (_req, res) => {
    const queues = await Promise.all(queue.queues().map(async (q) => ({ name: q.name, ...(await q.counts()) })));
    res.json({ data: { adapter: 'in-process', queues } });
  });
  return router;
}
