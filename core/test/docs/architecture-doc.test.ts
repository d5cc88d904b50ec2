import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../../src/infra/db/database.ts';
import { migrations } from '../../src/modules/migrations.ts';
import { migratedPgliteTemplate } from '../helpers/services.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const doc = () => readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');

/** The text of the section that starts at `heading` (a `## ` or `### ` line), up to the next heading of any level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/ARCHITECTURE.md has no heading "${heading}"`);
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(/\n#{2,3} /);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('docs/ARCHITECTURE.md cannot drift from the code', function () {
  // Starting an embedded database takes a second of WebAssembly, more on a busy machine.
  this.timeout(180_000);
  let handle: DatabaseHandle<any>;
  before(async () => {
    // The migrated template is what the migrations make of an empty database (core/testing/services.ts).
    handle = await openDatabase<any>({ dataDir: 'memory://', pgliteTemplate: await migratedPgliteTemplate() });
    await migrateToLatest(handle.db, migrations);
  });
  after(() => handle?.close());

  it('names every connector folder in its table of connectors', () => {
    const connectors = section(doc(), '## 8. Connectors');
    const folders = readdirSync(path.join(ROOT, 'connectors')).filter((name) =>
      statSync(path.join(ROOT, 'connectors', name)).isDirectory(),
    );
    expect(folders.length).to.be.greaterThan(0);
    const missing = folders.filter((name) => !new RegExp(`^\\| ${name} \\(\`[A-Z_]+\`\\)`, 'm').test(connectors));
    expect(missing, 'connector folders without a row in "## 8. Connectors"').to.deep.equal([]);
  });

  it('names every table the migrations create in its data model, with the module that owns it', async () => {
    const { rows } = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
      order by 1`.execute(handle.db);
    const tables = rows.map((r) => r.name);
    expect(tables).to.include.members(['orders', 'stores', 'credential_request_returns']);
    const model = section(doc(), '## 4. Data model');
    const rowsOfModel = model.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| tables'));
    const named = new Set(
      rowsOfModel.flatMap((line) =>
        line
          .split('|')[1]!
          .split(',')
          .map((t) => t.trim()),
      ),
    );
    const missing = tables.filter((t) => !named.has(t));
    expect(missing, 'tables missing from the first column of the data model table').to.deep.equal([]);
  });
});
