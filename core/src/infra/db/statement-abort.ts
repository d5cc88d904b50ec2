import { sql, type Kysely, type RawBuilder } from 'kysely';

/** Marks the messages of errors raised by `abortStatement` (nobody else's error starts so). */
const PREFIX = 'print-api abort: ';

/**
 * `print_api_abort(reason)`: raises an error, so one statement that wrote several tables in
 * autocommit (no BEGIN, no COMMIT round trips) can undo all of it when a condition it checked
 * at the end fails. Volatile, so it only runs when the CASE that calls it gets there.
 */
export const statementAbortMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`
      create or replace function print_api_abort(reason text) returns text language plpgsql volatile as $$
      begin
        raise exception using errcode = 'P0001', message = ${sql.lit(PREFIX)} || reason;
      end
      $$`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await sql`drop function if exists print_api_abort(text)`.execute(db);
  },
};

/** An SQL expression that aborts the whole statement with `reason`. */
export function abortStatement(reason: string): RawBuilder<string> {
  return sql<string>`print_api_abort(${reason}::text)`;
}

/** The reason of an error raised by `abortStatement`, or undefined for any other error. */
export function abortReason(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : undefined;
  return message?.startsWith(PREFIX) ? message.slice(PREFIX.length) : undefined;
}
