import { sql, type RawBuilder } from 'kysely';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** Column lists by the keys of the rows (one list per table and row shape, built once). */
const columnLists = new Map<string, RawBuilder<unknown>>();

function columnList(table: string, row: object): RawBuilder<unknown> {
  const key = `${table}:${Object.keys(row).join(',')}`;
  let list = columnLists.get(key);
  if (list === undefined) {
    const names = [table, ...Object.keys(row)];
    // Names of our own tables and row types, never input: checked anyway, as they go in as SQL.
    for (const name of names) if (!IDENTIFIER.test(name)) throw new Error(`Not a plain SQL identifier: ${name}`);
    list = sql.raw(Object.keys(row).join(', '));
    columnLists.set(key, list);
  }
  return list;
}

/**
 * `insert into <table> (<the rows' keys>) …` with every row as ONE jsonb parameter that
 * PostgreSQL turns into the table's row type (jsonb_populate_recordset): a wide row is not
 * thirty values for the query builder to wrap, freeze and compile on every run, and the
 * statement's text is the same whatever the number of rows (one prepared statement). Columns
 * not in the rows keep their defaults. The rows must read back through JSON as the columns
 * expect: Dates become ISO instants (timestamptz), objects jsonb, numbers and strings as they are.
 * All rows have the keys of the first. Not run: a part of a statement (a CTE).
 */
export function insertFromJson(table: string, rows: readonly object[]): RawBuilder<unknown> {
  const columns = columnList(table, rows[0]!);
  return sql`insert into ${sql.raw(table)} (${columns}) select ${columns} from jsonb_populate_recordset(null::${sql.raw(table)}, ${JSON.stringify(rows)}::jsonb)`;
}
