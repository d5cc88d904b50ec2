import express from 'express';
import { definePage, mountPages, type MountedRoute, type PageRouter } from '../../web/page.ts';
import { BullMqJobQueue } from '../../infra/queue/bullmq-queue.ts';
import { InProcessJobQueue } from '../../infra/queue/in-process-queue.ts';
import type { JobQueue } from '../../infra/queue/job-queue.ts';

/**
 * bull-board's own routes below the dashboard's path (its pages, its JSON API with the retry,
 * clean, pause and other actions, and its static files), as @bull-board/api declares them
 * (`appRoutes`; a test holds this list to the installed package). The app mounts bull-board
 * whole; this list puts its routes in the table of entry points, each behind the back-office's
 * operator check and, for a change, its CSRF check.
 */
const BULL_BOARD_ROUTES: ReadonlyArray<readonly [MountedRoute['method'], string]> = [
  ['get', '/metrics-history'],
  ['get', '/job-schedulers'],
  ['get', '/queue/{queueName}'],
  ['get', '/queue/{queueName}/{jobId}'],
  ['get', '/api/redis/stats'],
  ['get', '/api/queues'],
  ['get', '/api/job-schedulers'],
  ['get', '/api/queues/{queueName}/metrics'],
  ['get', '/api/queues/{queueName}/default-job-options'],
  ['get', '/api/queues/{queueName}/workers'],
  ['get', '/api/queues/{queueName}/rate-limit'],
  ['get', '/api/queues/{queueName}/job-data-schema'],
  ['put', '/api/queues/pause'],
  ['put', '/api/queues/resume'],
  ['get', '/api/queues/{queueName}/{jobId}/logs'],
  ['get', '/api/queues/{queueName}/{jobId}/flow'],
  ['get', '/api/queues/{queueName}/{jobId}'],
  ['post', '/api/queues/{queueName}/add'],
  ['put', '/api/queues/{queueName}/retry/{queueStatus}'],
  ['put', '/api/queues/{queueName}/promote'],
  ['put', '/api/queues/{queueName}/clean/{queueStatus}'],
  ['put', '/api/queues/{queueName}/pause'],
  ['put', '/api/queues/{queueName}/resume'],
  ['put', '/api/queues/{queueName}/concurrency'],
  ['put', '/api/queues/{queueName}/rate-limit'],
  ['put', '/api/queues/{queueName}/rate-limit/release'],
  ['put', '/api/queues/{queueName}/empty'],
  ['put', '/api/queues/{queueName}/obliterate'],
  ['put', '/api/queues/{queueName}/job-schedulers/{schedulerId}/remove'],
  ['patch', '/api/queues/{queueName}/job-schedulers/{schedulerId}'],
  ['put', '/api/queues/{queueName}/job-schedulers/{schedulerId}/run'],
  ['put', '/api/queues/{queueName}/{jobId}/retry'],
  ['put', '/api/queues/{queueName}/{jobId}/clean'],
  ['put', '/api/queues/{queueName}/{jobId}/promote'],
  ['patch', '/api/queues/{queueName}/{jobId}/update-data'],
  ['patch', '/api/queues/{queueName}/{jobId}/delay'],
  ['patch', '/api/queues/{queueName}/{jobId}/priority'],
  ['put', '/api/queues/{queueName}/{jobId}/remove-unprocessed-children'],
  ['get', '/static/{asset}'],
];

/** The queue dashboard's bull-board routes, for the table of entry points. */
export const QUEUE_BOARD_ROUTES: readonly MountedRoute[] = BULL_BOARD_ROUTES.map(([method, path]) => ({
  method,
  path,
  auth: 'operator',
  csrf: method === 'get' ? 'none' : 'token',
}));

/**
 * The queue dashboard at `/admin/v1/queues` (behind the back-office token or an operator's
 * session): bull-board, over the BullMQ queues on Redis, or over the in-process queue through
 * its own adapter (`in-process-board-adapter.ts`): the same dashboard on every deployment.
 * On the in-process queue, a client that does not prefer HTML (a script: no Accept, `*\/*`
 * or `application/json`) gets the counts as JSON on the dashboard's root, as before; browsers
 * get the dashboard.
 *
 * bull-board (with its UI server, lodash and valibot) is loaded on the dashboard's first
 * request, not at start-up: an API process restarted under load serves orders sooner.
 */
export function queueDashboard(queue: JobQueue, basePath: string): PageRouter {
  const router = express.Router();
  const counts = definePage({
    method: 'get',
    path: '/',
    auth: 'operator',
    csrf: 'none',
    handle: async (req, res, next) => {
      if (queue instanceof BullMqJobQueue || req.accepts(['json', 'html']) !== 'json') return next();
      try {
        const queues = await Promise.all(queue.queues().map(async (q) => ({ name: q.name, ...(await q.counts()) })));
        res.json({ data: { adapter: 'in-process', queues } });
      } catch (err) {
        next(err);
      }
    },
  });
  mountPages(router, [counts]);
  // bull-board's own routes (its pages, assets and the retry and remove actions, behind the
  // back-office's CSRF check): a third-party app mounted whole, its routes listed in QUEUE_BOARD_ROUTES.
  let board: Promise<express.Router> | undefined;
  router.use((req, res, next) => {
    selfContained(res);
    board ??= bullBoard(queue, basePath);
    board.then((handle) => handle(req, res, next), next);
  });
  return { router, pages: [counts], mounted: QUEUE_BOARD_ROUTES };
}

/**
 * bull-board's page loads its fonts from fonts.googleapis.com. The console must work offline
 * and load nothing from a third party (an operator's browser tells Google who looks at the
 * queues otherwise), so the page goes out without that stylesheet: its CSS names the fonts
 * with a system fallback, which is what shows.
 */
const THIRD_PARTY_STYLESHEET = /<link\b[^>]*\bhref="https:\/\/fonts\.(googleapis|gstatic)\.com[^"]*"[^>]*>\s*/g;

/**
 * The way back to the console from bull-board's page (its own menu hides its links): a plain link
 * pinned to the page's corner, above its app, so it works whatever the app renders.
 */
const BACK_TO_CONSOLE =
  '<nav aria-label="Console" style="position:fixed;right:12px;bottom:12px;z-index:2147483647;padding:6px 12px;font:14px system-ui,sans-serif;background:#fff;border:1px solid #bbb;border-radius:6px;box-shadow:0 1px 4px rgba(0,0,0,.2)"><a href="/admin">← Operations console</a></nav>';

function selfContained(res: express.Response): void {
  const send = res.send.bind(res);
  res.send = (body?: unknown) =>
    send(
      typeof body === 'string'
        ? /^\s*<!doctype html/i.test(body)
          ? body.replace(THIRD_PARTY_STYLESHEET, '').replace(/<body([^>]*)>/, `<body$1>${BACK_TO_CONSOLE}`)
          : body.replace(THIRD_PARTY_STYLESHEET, '')
        : body,
    );
}

async function bullBoard(queue: JobQueue, basePath: string): Promise<express.Router> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }, { BaseAdapter }, { inProcessBoardAdapter }] =
    await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
      import('@bull-board/express'),
      import('@bull-board/api/dist/queueAdapters/base.js'),
      import('./in-process-board-adapter.ts'),
    ]);
  const adapter = new ExpressAdapter();
  adapter.setBasePath(basePath);
  const inProcess = queue instanceof InProcessJobQueue;
  const queues =
    queue instanceof BullMqJobQueue
      ? queue.bullQueues().map((q) => new BullMQAdapter(q))
      : inProcess
        ? queue.inspectors().map((q) => inProcessBoardAdapter(BaseAdapter, q))
        : [];
  createBullBoard({
    queues,
    serverAdapter: adapter,
    options: {
      uiConfig: {
        boardTitle: 'Print API queues',
        hideDocsLink: true,
        ...(inProcess ? { hideRedisDetails: true, showWorkers: false, showMetrics: false } : {}),
        miscLinks: [{ text: 'Operations', url: '/admin' }],
      },
    },
  });
  return adapter.getRouter() as express.Router;
}
