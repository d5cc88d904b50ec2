import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

const pgliteTemplates: Partial<Record<'empty' | 'migrated', Promise<Blob>>> = {};

/**
 * Settings of the tests' embedded databases that differ from a new one's. PGlite sets its shared memory up at start:
 * with PostgreSQL's 128 MB of shared buffers that is a third of an embedded database's start-up CPU (about 0.5 s of
 * 1.5 s on a 2-core machine), for a database that holds a few megabytes. Nothing a test checks depends on it.
 */
const TEST_PGLITE_SETTINGS = { shared_buffers: '16MB' };

/**
 * How the tests' embedded databases are initialised (initdb's options). Every new database copies its template's
 * files, and a new one's are mostly a 16 MB segment of write-ahead log, empty: in segments of 1 MB, and without the
 * template databases `template0` and `template1` (only CREATE DATABASE reads them, and no test makes one in PGlite),
 * the template is 15 MB, not 42, and a database starts in about half the CPU (0.45 s, not 1.1 s, measured over 8
 * starts each on a 2-core machine).
 */
const TEST_PGLITE_INITDB = ['--wal-segsize=1'];

/**
 * An embedded database with every migration applied, as a data directory to start new ones
 * from: initialising PGlite and migrating it takes seconds of WebAssembly, loading this well under
 * one. Made once per version of the migrations (its file name holds a hash of their code) and kept
 * in the machine's temporary directory, so that the run's parallel processes and the next runs
 * load it; written under a temporary name and renamed, so a reader never sees half of one. What it
 * holds is exactly what `migrateToLatest` makes of an empty database.
 */
export function migratedPgliteTemplate(): Promise<Blob> {
  return pgliteTemplate('migrated');
}

/**
 * A new embedded database, no migration applied, as a data directory to start new ones from (initdb takes seconds of
 * WebAssembly): what a migration's own test starts from. Kept as the migrated one is.
 */
export function emptyPgliteTemplate(): Promise<Blob> {
  return pgliteTemplate('empty');
}

function pgliteTemplate(kind: 'empty' | 'migrated'): Promise<Blob> {
  pgliteTemplates[kind] ??= (async () => {
    const file = path.join(tmpdir(), `print-api-pglite-${kind}-${digestOfMigrations().slice(0, 16)}.tar`);
    const kept = await readFile(file).catch(() => undefined);
    if (kept) return new TemplateBlob(kept);
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGliteDialect } = await import('../src/infra/db/pglite-dialect.ts');
    const { Kysely } = await import('kysely');
    const pglite = await PGlite.create('memory://', { initDbStartParams: TEST_PGLITE_INITDB });
    const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
    if (kind === 'migrated') await migrateToLatest(db, migrations);
    // Written to the template's postgresql.auto.conf: every database started from it reads them.
    for (const [name, value] of Object.entries(TEST_PGLITE_SETTINGS))
      await pglite.exec(`alter system set ${name} = '${value}'`);
    await pglite.exec(`alter database template0 with is_template false allow_connections true`);
    await pglite.exec('drop database template0');
    await pglite.exec('alter database template1 with is_template false');
    await pglite.exec('drop database template1');
    await pglite.exec('checkpoint');
    const dump = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
    await db.destroy();
    const writing = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(writing, dump);
    await rename(writing, file);
    await dropOldPgliteTemplates(file);
    return new TemplateBlob(dump);
  })();
  return pgliteTemplates[kind];
}

/**
 * The template as the Blob PGlite's `loadDataDir` takes, its bytes read once: PGlite only reads them (it untars them
 * and copies each file into its own file system), and a Blob's own `arrayBuffer()` copies its 42 MB anew each time,
 * about 0.27 s of CPU for each of the run's hundred-odd embedded databases.
 */
class TemplateBlob extends Blob {
  readonly #bytes: ArrayBuffer;

  constructor(bytes: Buffer) {
    const own = new Uint8Array(bytes).buffer;
    super([own]);
    this.#bytes = own;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes;
  }
}

/** Templates of other migrations not used for a day (each is tens of megabytes). */
async function dropOldPgliteTemplates(keep: string): Promise<void> {
  const dir = path.dirname(keep);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const file = path.join(dir, name);
    if (!name.startsWith('print-api-pglite-') || file === keep) continue;
    const info = await stat(file).catch(() => undefined);
    if (info && Date.now() - info.atimeMs > TEMPLATE_KEPT_MS) await rm(file, { force: true }).catch(() => undefined);
  }
}

let migrationsDigest: string | undefined;

/**
 * A hash of every migration's code, of every source file that speaks of migrations (the helpers a
 * migration calls live beside it), of PGlite's version (its data directory's format) and of the test
 * settings and initdb options: a template made from other migrations, by another PGlite or with other settings, is
 * another template.
 */
function digestOfMigrations(): string {
  if (migrationsDigest) return migrationsDigest;
  const digest = createHash('sha256');
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  digest.update(readFileSync(path.join(path.dirname(pgliteEntry), '..', 'package.json')));
  digest.update(JSON.stringify([TEST_PGLITE_SETTINGS, TEST_PGLITE_INITDB]));
  for (const [name, m] of Object.entries(migrations)) digest.update(`${name}\n${m.up}\n${m.down ?? ''}\n`);
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(path.join(src, file), 'utf8');
    if (text.includes('Migration')) digest.update(`${file}\n${text}\n`);
  }
  migrationsDigest = digest.digest('hex');
  return migrationsDigest;
}

/**
 * A fresh PostgreSQL database for one suite, dropped by the returned function: empty, or with
 * every migration applied (`migrated`), copied from a migrated template database (a file copy in
 * PostgreSQL, where migrating takes seconds of statements on a busy machine).
 */
export async function createTestPostgresDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `pa_test_${randomBytes(6).toString('hex')}`;
  const template = options.migrated ? await migratedPostgresTemplate() : undefined;
  await withAdmin(async (admin) => {
    if (!template) {
      await admin.query(`create database ${name}`);
      return;
    }
    // PostgreSQL refuses to copy a template while a session is in it (the one making it, a moment
    // ago): asked again shortly, as long as the set-up budget lasts.
    const deadline = Date.now() + SETUP_TIMEOUT_MS;
    for (;;) {
      try {
        await admin.query(`create database ${name} template ${template}`);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== OBJECT_IN_USE || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  return {
    url: databaseUrl(name),
    drop: () => withAdmin((c) => c.query(`drop database if exists ${name} with (force)`).then(() => undefined)),
  };
}

/** PostgreSQL's "source database is being accessed by other users". */
const OBJECT_IN_USE = '55006';
/** Migrated templates no run has made for this long are dropped (each version of the migrations makes its own). */
const TEMPLATE_KEPT_MS = 24 * 60 * 60_000;

let postgresTemplate: Promise<string> | undefined;

/**
 * The name of a PostgreSQL database with every migration applied, made once by the first test
 * process that needs it and shared by every run of the same migrations (its name holds a hash of
 * their code), under an advisory lock so that parallel processes make it once. Made under a
 * temporary name and renamed when complete: a crash leaves no half-migrated template.
 */
function migratedPostgresTemplate(): Promise<string> {
  postgresTemplate ??= (async () => {
    const hex = digestOfMigrations();
    const name = `pa_tpl_${hex.slice(0, 16)}`;
    const lock = Number.parseInt(hex.slice(0, 12), 16);
    return withAdmin(async (admin) => {
      await admin.query('select pg_advisory_lock($1)', [lock]);
      try {
        const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
        if (found.rowCount) return name;
        const making = `pa_tplnew_${randomBytes(6).toString('hex')}`;
        await admin.query(`create database ${making}`);
        const handle = await openDatabase<Tables>({ url: databaseUrl(making) });
        try {
          await migrateToLatest(handle.db, migrations);
        } finally {
          await handle.close();
        }
        await admin.query(`alter database ${making} rename to ${name}`);
        await admin.query(`comment on database ${name} is '${new Date().toISOString()}'`);
        await dropOldTemplates(admin, name);
        return name;
      } finally {
        await admin.query('select pg_advisory_unlock($1)', [lock]);
      }
    });
  })();
  return postgresTemplate;
}

/** Templates of earlier migrations not made within the day, and half-made ones left by a crash a day ago. */
async function dropOldTemplates(admin: pg.Client, keep: string): Promise<void> {
  const old = await admin.query<{ datname: string }>(
    `select datname from pg_database
      where (datname like 'pa\\_tpl\\_%' or datname like 'pa\\_tplnew\\_%') and datname <> $1
        and coalesce(shobj_description(oid, 'pg_database'), '') < $2`,
    [keep, new Date(Date.now() - TEMPLATE_KEPT_MS).toISOString()],
  );
  for (const { datname } of old.rows)
    await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
}

/** Runs `body` with a session on the machine's test database (to create and drop others). */
async function withAdmin<T>(body: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    return await body(admin);
  } finally {
    await admin.end();
  }
}

/** The URL of database `name` on the test server. */
function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
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
          const created = await createTestPostgresDatabase({ migrated: true });
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
