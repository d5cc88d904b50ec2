import type { Mode } from '../../kernel/tenant.ts';
import type { Db } from '../tables.ts';

/** An event as it was written: its id, type, time and envelope (`payload`). */
export interface LoggedEvent {
  id: string;
  type: string;
  createdAt: Date;
  payload: Record<string, unknown>;
}

/**
 * Reads of the outbox for other modules (the dashboard's order history): they reach the events table only through this.
 */
export class EventLog {
  readonly #db: Db;

  constructor(deps: { db: Db }) {
    this.#db = deps.db;
  }

  /** One order's events within a reseller and mode, oldest first, at most `limit`. */
  async orderEvents(
    tenant: { resellerId: string; mode: Mode },
    orderId: string,
    limit: number,
  ): Promise<LoggedEvent[]> {
    const rows = await this.#db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'payload'])
      .where('order_id', '=', orderId)
      .where('reseller_id', '=', tenant.resellerId)
      .where('mode', '=', tenant.mode)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, type: r.type, createdAt: r.created_at, payload: r.payload }));
  }
}
