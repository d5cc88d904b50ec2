import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import pg from 'pg';

export type DatabaseKind = 'postgres' | 'pglite';

export interface DatabaseHandle<T> {
  db: Kysely<T>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

const INT8 = 20;
const BYTEA = 17;
/** int8 columns hold cents and counters: numbers in JS, refused when past 2^53. */
function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} is outside the safe integer range`);
  return n;
}

/** Distinct statement texts that get a prepared statement on each connection; others are parsed and planned per run. */
const MAX_PREPARED = 256;
const preparedNames = new Map<string, string>();

/**
 * Statements with parameters run as named prepared statements on `client`: PostgreSQL parses
 * (and, once it settles on a generic plan, plans) each text once per connection instead of on
 * every run, which on the hot paths (an order's one statement, the hand-off, the webhook claims)
 * is a good part of the database's work. Texts are named by their hash, so every connection and
 * process names a text the same way; only the first MAX_PREPARED distinct texts are named (one
 * built with a different number of rows is another text), so a connection's memory stays bounded.
 */
function prepareRepeatedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0)
      return query(config, values, callback);
    let name = preparedNames.get(config);
    if (name === undefined && preparedNames.size < MAX_PREPARED) {
      name = `pa_${createHash('sha1').update(config).digest('hex').slice(0, 24)}`;
      preparedNames.set(config, name);
    }
    if (name === undefined || callback !== undefined) return query(config, values, callback);
    // A migration run by a newer process can change a table under a statement prepared here
    // ("cached plan must not change result type"): that run goes again, unprepared.
    return (query({ name, text: config, values }) as Promise<unknown>).catch((err: { code?: string }) => {
      if (err.code === '0A000') return query(config, values);
      throw err;
    });
  };
}

/**
 * How long getting a connection may take: connecting (refused at once while PostgreSQL is down,
 * but a host that does not answer would hold a request for minutes) or waiting for a turn at a
 * full pool (seconds of waiting means the database is overwhelmed: better a quick 503).
 */
export const CONNECT_TIMEOUT_MS = 5000;

/**
 * A connection that dies (a database restart, a failover, pg_terminate_backend) makes its client
 * emit 'error', and an 'error' nobody listens to crashes the process. pg-pool listens only while
 * a client is idle in the pool and removes its listener on checkout, so a client held by a
 * transaction, by `db.connection()` or by the webhook lane would have none. Hence a listener of
 * our own on every client from its first moment, never removed. What ran on the client fails
 * with the connection's error, its next statement with "not queryable", and on release the pool
 * drops it and connects afresh for the next checkout.
 */
function survivesItsConnection(client: pg.PoolClient, report: (err: Error) => void): void {
  let reported = false;
  client.on('error', (err) => {
    // A dying connection can emit twice (the server's 57P01, then the socket's end): one report.
    if (reported) return;
    reported = true;
    report(err);
  });
}

/**
 * Opens PostgreSQL when a URL is given, else embedded PGlite in `dataDir` (`memory://` for an
 * in-memory database). The same migrations and queries run on both.
 */
export async function openDatabase<T>(opts: {
  url?: string | undefined;
  dataDir?: string;
  poolSize?: number;
  /** PostgreSQL: run repeated statements as named prepared statements (default true). */
  preparedStatements?: boolean;
  /**
   * PostgreSQL: how long getting a connection may take (a new one, or a turn at a full pool); default
   * CONNECT_TIMEOUT_MS.
   */
  connectTimeoutMs?: number;
  /** A connection that died (a database restart, a failover): reported once per connection, never a crash. */
  onConnectionError?: (err: Error) => void;
  /**
   * PGlite: a data directory (PGlite's `dumpDataDir`) that a new database starts from instead of
   * being initialised, which takes seconds of WebAssembly each time (the tests start hundreds of
   * databases from one migrated template). Ignored where the directory already holds a database.
   */
  pgliteTemplate?: Blob | undefined;
}): Promise<DatabaseHandle<T>> {
  if (opts.url) {
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      // While PostgreSQL is unreachable, a query fails after this long (and a request answers 503) instead of waiting
      // for ever.
      connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8 ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    pool.on('connect', (client) => {
      survivesItsConnection(client, (err) => opts.onConnectionError?.(err));
      if (opts.preparedStatements !== false) prepareRepeatedStatements(client);
    });
    // pg-pool passes on the error of a connection that died idle in the pool (after dropping it):
    // survivesItsConnection reported it already. Without a listener the pool would throw it.
    pool.on('error', () => undefined);
    const db = new Kysely<T>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const dataDir = opts.dataDir ?? 'memory://';
  let location = dataDir;
  let isNew = true;
  if (!dataDir.startsWith('memory://')) {
    location = path.resolve(dataDir, 'pglite');
    mkdirSync(location, { recursive: true });
    isNew = readdirSync(location).length === 0;
  }
  // Loaded only here: a process on PostgreSQL never compiles the embedded database's code.
  const [{ PGlite }, { PGliteDialect }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('./pglite-dialect.ts'),
  ]);
  const loadDataDir = isNew ? opts.pgliteTemplate : undefined;
  // bytea as Buffers, as pg gives and takes them (PGlite's own: Uint8Arrays, built a byte at a time).
  const pglite = await PGlite.create(location, {
    parsers: { [INT8]: parseInt8, [BYTEA]: (hex: string) => Buffer.from(hex.slice(2), 'hex') },
    serializers: {
      [BYTEA]: (bytes: Uint8Array) =>
        `\\x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`,
    },
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  const db = new Kysely<T>({ dialect: new PGliteDialect(pglite) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}

/** Applies every pending migration (idempotent, safe when several processes start at once). */
export async function migrateToLatest(db: Kysely<any>, migrations: Record<string, Migration>): Promise<string[]> {
  // Modules add migrations independently; one written later with a lower number must still apply.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
