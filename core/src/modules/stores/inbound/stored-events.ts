import { sql } from 'kysely';
import type { Db } from '../../tables.ts';

/** A stored delivery's body once erased. */
export const ERASED_BODY = Buffer.alloc(0);

/**
 * Marks a stored webhook processed. A privacy request that came while it was still waiting
 * (store-redactor.ts) left it `erase_when_processed`: its body and headers are erased by this
 * same statement, so no delivery outlives a redaction by being in flight during it.
 */
export function markProcessed(db: Db, eventId: string) {
  return db
    .updateTable('store_webhook_events')
    .set({
      processed_at: new Date(),
      raw_body: sql<Buffer>`case when erase_when_processed then ''::bytea else raw_body end`,
      headers: sql<string>`case when erase_when_processed then '{}'::jsonb else headers end`,
    })
    .where('id', '=', eventId);
}
