import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Tables } from '../tables.ts';

/**
 * The events table as other modules' statements need it, handed to them as fragments (as the
 * wallet hands `debitCtes` to orders): the webhooks module fans events out and reads their
 * payloads in statements of its own, without naming this module's table or columns.
 */

/**
 * An UPDATE that claims up to `limit` undispatched events, oldest first, and marks them
 * dispatched at `now` (SKIP LOCKED: several processes claim side by side, each other events);
 * it returns `id, reseller_id, mode, type, created_at`. For a CTE of a larger statement.
 */
export function claimUndispatchedEvents(now: Date, limit: number): RawBuilder<unknown> {
  return sql`update events set dispatched_at = ${now}::timestamptz
    where id in (select id from events where dispatched_at is null order by created_at limit ${limit} for update skip locked)
    returning id, reseller_id, mode, type, created_at`;
}

/** The payload of the event `eventId` (a column or a value of the caller's statement), as JSON text. */
export function eventPayloadText(eventId: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`(select payload::text from events where id = ${eventId})`;
}

/** Marks an event dispatched in the caller's transaction (an event sent to one endpoint only, never fanned out). */
export async function markEventDispatched(trx: Transaction<Tables>, eventId: string, at: Date): Promise<void> {
  await trx.updateTable('events').set({ dispatched_at: at }).where('id', '=', eventId).execute();
}
