import express from 'express';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../tables.ts';

/** `/healthz`: the process is up. `/readyz`: the database and (when configured) Redis answer. */
export function healthRouter(deps: { db: Db; redis: Redis | undefined }): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    const checks: Record<string, 'ok' | string> = {};
    try {
      await sql`select 1`.execute(deps.db);
      checks.database = 'ok';
    } catch (err) {
      checks.database = (err as Error).message;
    }
    if (deps.redis) {
      try {
        await deps.redis.ping();
        checks.redis = 'ok';
      } catch (err) {
        checks.redis = (err as Error).message;
      }
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  return router;
}
