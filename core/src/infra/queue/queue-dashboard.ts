import express from 'express';
import { definePage, mountPages, type PageRouter } from '../../http/page.ts';
import { BullMqJobQueue } from './bullmq-queue.ts';
import { InProcessJobQueue } from './in-process-queue.ts';
import type { JobQueue } from './job-queue.ts';

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
  // back-office's CSRF check): a third-party app mounted whole, not declared here.
  let board: Promise<express.Router> | undefined;
  router.use((req, res, next) => {
    selfContained(res);
    board ??= bullBoard(queue, basePath);
    board.then((handle) => handle(req, res, next), next);
  });
  return { router, pages: [counts] };
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
