import type { Db } from '../tables.ts';

/** Marks a stored webhook processed. */
export function markProcessed(db: Db, eventId: string) {
  return db
    .updateTable('store_webhook_events')
    .set({ processed_at: new Date() })
    .where('id', '=', eventId);
}
