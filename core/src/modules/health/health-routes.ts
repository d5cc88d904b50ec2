import express, { type RequestHandler } from 'express';
import { definePage, mountPages, type PageRouter } from '../../web/page.ts';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../tables.ts';

/**
 * How long each readiness check may take: the checks run side by side, so `/readyz` answers
 * within about this, under a second, whatever a dependency does (a probe that hangs is worse
 * than one that says "not ready").
 */
export const READY_CHECK_DEADLINE_MS = 800;

/** 'ok', or why not: the check's error, or that it did not answer by the deadline. */
async function check(work: () => Promise<unknown>, deadlineMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${deadlineMs} ms`), deadlineMs);
  });
  const outcome = work().then(
    () => 'ok',
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  try {
    return await Promise.race([outcome, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `/healthz`: the process is up. `/readyz`: the database and (when configured) Redis answer, each within the deadline.
 */
export function healthRouter(deps: { db: Db; redis: Redis | undefined; deadlineMs?: number }): PageRouter {
  const router = express.Router();
  const deadlineMs = deps.deadlineMs ?? READY_CHECK_DEADLINE_MS;
  const probe = (path: string, handle: RequestHandler) =>
    definePage({ method: 'get', path, auth: 'public', csrf: 'none', handle });
  const pages = [
    probe('/healthz', (_req, res) => void res.json({ status: 'ok' })),
    probe('/readyz', async (_req, res) => {
      const redis = deps.redis;
      const [database, redisCheck] = await Promise.all([
        check(() => sql`select 1`.execute(deps.db), deadlineMs),
        redis
          ? // A client that is reconnecting is not asked (its commands would fail or wait): not ready.
            redis.status === 'ready'
            ? check(() => redis.ping(), deadlineMs)
            : Promise.resolve(`not connected (${redis.status})`)
          : undefined,
      ]);
      const checks: Record<string, 'ok' | string> = {
        database,
        ...(redisCheck === undefined ? {} : { redis: redisCheck }),
      };
      const ready = Object.values(checks).every((v) => v === 'ok');
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
    }),
  ];
  mountPages(router, pages);
  return { router, pages };
}
