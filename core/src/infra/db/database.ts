import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface DatabaseHandle<T> {
  db: Kysely<T>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

const INT8 = 20;
/** int8 columns hold cents and counters: numbers in JS, refused when past 2^53. */
function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} is outside the safe integer range`);
  return n;
}

/**
 * Opens PostgreSQL when a URL is given, else embedded PGlite in `dataDir` (`memory://` for an
 * in-memory database). The same migrations and queries run on both.
 */
export async function openDatabase<T>(opts: {
  url?: string | undefined;
  dataDir?: string;
  poolSize?: number;
  /** Errors of idle pooled connections (a database restart): reported, never a crash. */
  onIdleError?: (err: Error) => void;
}): Promise<DatabaseHandle<T>> {
  if (opts.url) {
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8 ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // Without a listener, an idle connection that dies (database restart, failover) would crash the process.
    pool.on('error', (err) => opts.onIdleError?.(err));
    const db = new Kysely<T>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const dataDir = opts.dataDir ?? 'memory://';
  let location = dataDir;
  if (!dataDir.startsWith('memory://')) {
    location = path.resolve(dataDir, 'pglite');
    mkdirSync(location, { recursive: true });
  }
  const pglite = await PGlite.create(location, { parsers: { [INT8]: parseInt8 } });
  const db = new Kysely<T>({ dialect: new PGliteDialect(pglite) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}

/** Applies every pending migration (idempotent, safe when several processes start at once). */
export async function migrateToLatest(db: Kysely<any>, migrations: Record<string, Migration>): Promise<string[]> {
  // Modules add migrations independently; one written later with a lower number must still apply.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
