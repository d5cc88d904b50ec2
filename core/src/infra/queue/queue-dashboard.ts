import express from 'express';
import { BullMqJobQueue } from './bullmq-queue.ts';
import type { JobQueue } from './job-queue.ts';

/**
 * The queue dashboard at `/admin/v1/queues` (behind the back-office token): bull-board over
 * the BullMQ queues; with the in-process queue, the same counts as JSON.
 *
 * bull-board (with its UI server, lodash and valibot) is loaded on the dashboard's first
 * request, not at start-up: an API process restarted under load serves orders sooner.
 */
export function queueDashboard(queue: JobQueue, basePath: string): express.Router {
  const router = express.Router();
  if (queue instanceof BullMqJobQueue) {
    let board: Promise<express.Router> | undefined;
    router.use((req, res, next) => {
      board ??= bullBoard(queue, basePath);
      board.then((handle) => handle(req, res, next), next);
    });
    return router;
  }
  router.get('/', async (_req, res) => {
    const queues = await Promise.all(queue.queues().map(async (q) => ({ name: q.name, ...(await q.counts()) })));
    res.json({ data: { adapter: 'in-process', queues } });
  });
  return router;
}

async function bullBoard(queue: BullMqJobQueue, basePath: string): Promise<express.Router> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const adapter = new ExpressAdapter();
  adapter.setBasePath(basePath);
  createBullBoard({ queues: queue.bullQueues().map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  return adapter.getRouter() as express.Router;
}
