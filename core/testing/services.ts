import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { migrateToLatest, openDatabase, type DatabaseHandle, type DatabaseKind } from '../src/infra/db/database.ts';
import { migrations } from '../src/modules/migrations.ts';
import type { Tables, Db } from '../src/modules/tables.ts';
import { scaled } from './time-scale.ts';

/** Where the real services of this machine live (CI starts them; see .ci/run). */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * How long a suite's setup (a database, a service) may take: minutes' worth on a busy CI machine, not a test's 20 s
 * (grown by the run's time scale).
 */
export const SETUP_TIMEOUT_MS = scaled(120_000);
/** With REQUIRE_SERVICES=1 a missing PostgreSQL or Redis fails the run instead of skipping. */
export const REQUIRE_SERVICES = process.env.REQUIRE_SERVICES === '1';

let pgUp: Promise<boolean> | undefined;
let redisUp: Promise<boolean> | undefined;

/**
 * How long the probe of a service may take to connect. A service that is not there refuses at once
 * (nothing waits this long); a busy machine's PostgreSQL can take seconds to accept a connection,
 * and a probe that gave up then would fail a run under REQUIRE_SERVICES=1 for a service that is up.
 */
const PROBE_TIMEOUT_MS = scaled(30_000);

export function postgresAvailable(): Promise<boolean> {
  pgUp ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return pgUp;
}

export function redisAvailable(): Promise<boolean> {
  redisUp ??= (async () => {
    const redis = new Redis(TEST_REDIS_URL, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: PROBE_TIMEOUT_MS,
      retryStrategy: () => null,
    });
    try {
      await redis.connect();
      return (await redis.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      redis.disconnect();
    }
  })();
  return redisUp;
}

/** Skips the current suite when a service is down, or fails it under REQUIRE_SERVICES=1. */
export async function needService(ctx: Mocha.Context, name: 'postgres' | 'redis'): Promise<void> {
  const up = name === 'postgres' ? await postgresAvailable() : await redisAvailable();
  if (up) return;
  if (REQUIRE_SERVICES) throw new Error(`${name} is not reachable and REQUIRE_SERVICES=1`);
  ctx.skip();
}

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * An embedded database with every migration applied, as a data directory to start new ones
 * from: initialising PGlite takes seconds of WebAssembly, loading this about one. Made once per
 * test process; what it holds is exactly what `migrateToLatest` makes of an empty database.
 */
export function migratedPgliteTemplate(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGliteDialect } = await import('../src/infra/db/pglite-dialect.ts');
    const { Kysely } = await import('kysely');
    const pglite = await PGlite.create('memory://');
    const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
    await migrateToLatest(db, migrations);
    const dump = await pglite.dumpDataDir('none');
    await db.destroy();
    return dump;
  })();
  return pgliteTemplate;
}

/** A fresh, empty PostgreSQL database for one suite; dropped by the returned function. */
export async function createTestPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `pa_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestDatabase {
  kind: DatabaseKind;
  db: Db;
  /** PostgreSQL URL of this database (undefined on PGlite). */
  url: string | undefined;
  handle: DatabaseHandle<Tables>;
}

/**
 * Runs `body` once on embedded PGlite and once on a fresh PostgreSQL database, both migrated.
 * The `TestDatabase` is filled in before the suite's tests run.
 */
export function describeEachDatabase(title: string, body: (t: TestDatabase) => void): void {
  for (const kind of ['pglite', 'postgres'] as const) {
    describe(`${title} [${kind}]`, function () {
      const t = { kind } as TestDatabase;
      let drop: (() => Promise<void>) | undefined;
      before(async function () {
        // Creating and migrating a database takes seconds on a busy machine.
        this.timeout(SETUP_TIMEOUT_MS);
        if (kind === 'postgres') {
          await needService(this, 'postgres');
          const created = await createTestPostgresDatabase();
          drop = created.drop;
          t.url = created.url;
          t.handle = await openDatabase<Tables>({ url: created.url });
        } else {
          t.url = undefined;
          t.handle = await openDatabase<Tables>({
            dataDir: 'memory://',
            pgliteTemplate: await migratedPgliteTemplate(),
          });
        }
        t.db = t.handle.db;
        await migrateToLatest(t.db, migrations);
      });
      after(async () => {
        await t.handle?.close();
        await drop?.();
      });
      body(t);
    });
  }
}
