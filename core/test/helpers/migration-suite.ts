import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../../src/infra/db/database.ts';
import { migrations } from '../../src/modules/migrations.ts';
import { createTestPostgresDatabase, emptyPgliteTemplate, needService } from './services.ts';
import { scaled } from './wait.ts';

/**
 * A migration's test on each backend (PGlite, PostgreSQL): `body` gets a fresh database migrated
 * to just before `migration` (`migrateBefore`), writes the rows as they were, then applies the
 * rest (`migrateRest`, which answers the migrations it applied) and checks how they became.
 */
export function describeMigration(
  title: string,
  migration: string,
  body: (m: {
    db: () => Kysely<any>;
    migrateBefore: () => Promise<void>;
    migrateRest: () => Promise<string[]>;
  }) => void,
): void {
  if (!(migration in migrations)) throw new Error(`No migration ${migration}`);
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < migration));
  for (const kind of ['pglite', 'postgres'] as const) {
    describe(`${title}: the migration [${kind}]`, function () {
      // Opening an embedded database and migrating it twice takes seconds, more on a busy machine.
      this.timeout(scaled(120_000));
      let handle: DatabaseHandle<any> | undefined;
      let drop: (() => Promise<void>) | undefined;
      before(async function () {
        if (kind === 'postgres') {
          await needService(this, 'postgres');
          const created = await createTestPostgresDatabase();
          drop = created.drop;
          handle = await openDatabase<any>({ url: created.url });
        } else {
          handle = await openDatabase<any>({ dataDir: 'memory://', pgliteTemplate: await emptyPgliteTemplate() });
        }
      });
      after(async () => {
        await handle?.close();
        await drop?.();
      });
      const db = () => handle!.db;
      body({
        db,
        migrateBefore: async () => void (await migrateToLatest(db(), earlier)),
        migrateRest: () => migrateToLatest(db(), migrations),
      });
    });
  }
}
