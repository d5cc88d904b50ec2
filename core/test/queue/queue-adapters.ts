import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { BullMqJobQueue } from '../../src/infra/queue/bullmq-queue.ts';
import { InProcessJobQueue } from '../../src/infra/queue/in-process-queue.ts';
import type { JobQueue } from '../../src/infra/queue/job-queue.ts';
import { silentLogger } from '../../src/infra/logger.ts';
import { migrateToLatest, openDatabase } from '../../src/infra/db/database.ts';
import { migrations } from '../../src/modules/migrations.ts';
import type { Db, Tables } from '../../src/modules/tables.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  createTestPostgresDatabase,
  migratedPgliteTemplate,
  needService,
  SETUP_TIMEOUT_MS,
  TEST_REDIS_URL,
} from '../helpers/services.ts';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every 10 ms until it holds; fails after `timeoutMs` (a busy machine: seconds between polls). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  await waitFor('the condition', check, timeoutMs, 10);
}

/** One adapter of the job queue port, over storage that outlives its instances. */
export interface QueueAdapter {
  name: string;
  /** Opens the storage (or skips the suite when its service is down). */
  setup(ctx: Mocha.Context): Promise<void>;
  /** A new adapter instance over the same storage: another process, or this one restarted. */
  make(): JobQueue;
  /** Drops the storage: the Redis keys of the suite's prefix, or the database. */
  teardown(): Promise<void>;
}

/** BullMQ on the test Redis, under a random key prefix so runs never collide. */
export function bullmqAdapter(): QueueAdapter {
  const prefix = `pa-qtest-${randomBytes(4).toString('hex')}`;
  let used = false;
  return {
    name: 'BullMQ on Redis',
    async setup(ctx) {
      await needService(ctx, 'redis');
      used = true;
    },
    make: () => new BullMqJobQueue({ connection: { url: TEST_REDIS_URL }, prefix, logger: silentLogger() }),
    async teardown() {
      if (!used) return;
      const redis = new Redis(TEST_REDIS_URL);
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
          cursor = next;
          if (keys.length) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** The in-process queue on a fresh PGlite (in memory) or PostgreSQL database. */
export function inProcessAdapter(
  kind: 'pglite' | 'postgres',
  options: { leaseMs?: number } = {},
): QueueAdapter & { db(): Db } {
  let db: Db | undefined;
  let close: (() => Promise<void>) | undefined;
  let drop: (() => Promise<void>) | undefined;
  return {
    name: `in-process on ${kind}`,
    async setup(ctx) {
      // A database to create and migrate: the setup budget, not a test's.
      ctx.timeout(SETUP_TIMEOUT_MS);
      let url: string | undefined;
      if (kind === 'postgres') {
        await needService(ctx, 'postgres');
        const created = await createTestPostgresDatabase();
        url = created.url;
        drop = created.drop;
      }
      const handle = await openDatabase<Tables>(
        url ? { url } : { dataDir: 'memory://', pgliteTemplate: await migratedPgliteTemplate() },
      );
      db = handle.db;
      close = handle.close;
      await migrateToLatest(db, migrations);
    },
    db: () => db!,
    make: () => new InProcessJobQueue({ db: db!, logger: silentLogger(), pollIntervalMs: 50, ...options }),
    async teardown() {
      await close?.();
      await drop?.();
    },
  };
}
