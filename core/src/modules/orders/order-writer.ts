import { sql, type Transaction, type Updateable } from 'kysely';
import type { EventEnvelope, Outbox, OutboxEvent } from '../events/outbox.ts';
import type { Tables } from '../tables.ts';
import type { EventType } from './order-states.ts';
import { applyTransition, type TransitionName } from './order-transitions.ts';
import { loadLines, toOrderView, type OrderLineRow, type OrderRow } from './order-views.ts';
import type { OrdersTable } from './orders-tables.ts';

type Trx = Transaction<Tables>;

/**
 * Moves a locked order along one transition, with any other column changes, and writes the
 * transition's event to the outbox, all in the caller's transaction. `lines`, when the caller
 * has them as they stand in this transaction, spare reading them again for the event. The event
 * carries the order as the transaction commits it, so nothing may change the order after it.
 */
export async function writeTransition(...args: Parameters<typeof writeTransitionTold>): Promise<OrderRow> {
  return (await writeTransitionTold(...args)).row;
}

/**
 * `writeTransition`, also giving the event it wrote (for `Outbox.notify` after the commit); null when the transition
 * has none.
 */
export async function writeTransitionTold(
  trx: Trx,
  outbox: Outbox,
  order: Omit<OrderRow, 'state'> & { state: OrderRow['state'] | 'NEW' },
  transition: TransitionName,
  patch: Updateable<OrdersTable> = {},
  at: Date = new Date(),
  lines?: OrderLineRow[],
): Promise<{ row: OrderRow; envelope: EventEnvelope | null }> {
  const { row, event } = await moveOrder(trx, order, transition, patch, at);
  const envelope = event
    ? await writeOrderEvent(trx, outbox, row, lines ?? (await loadLines(trx, row.id)), event, at)
    : null;
  return { row, envelope };
}

/**
 * The change of `writeTransition` without its event: the order's row as updated, and the
 * transition's event type (null when it has none), for a caller that writes the event itself
 * once nothing else about the order changes in its transaction.
 */
export async function moveOrder(
  trx: Trx,
  order: Pick<OrderRow, 'id' | 'status'> & { state: OrderRow['state'] | 'NEW' },
  transition: TransitionName,
  patch: Updateable<OrdersTable> = {},
  at: Date = new Date(),
): Promise<{ row: OrderRow; event: EventType | null }> {
  const next = applyTransition({ state: order.state, status: order.status }, transition);
  // Each move of an order gets a later updatedAt than the one before, also within a millisecond
  // (a card charged at once) or after a process whose clock runs ahead: of an order's events,
  // delivered in no particular order, the one with the latest updatedAt is the current one.
  const updatedAt = sql<Date>`greatest(${at}::timestamptz, updated_at + interval '1 millisecond')`;
  const row = await trx
    .updateTable('orders')
    .set({ ...patch, state: next.state, status: next.status, updated_at: updatedAt })
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, event: next.event };
}

/**
 * Writes `type` for an order with the order as it now stands in this transaction (plus tracking
 * on order.shipped): `order` and `lines` are its rows as written, not read again.
 */
export async function writeOrderEvent(
  trx: Trx,
  outbox: Outbox,
  order: OrderRow,
  lines: OrderLineRow[],
  type: string,
  at: Date = new Date(),
): Promise<EventEnvelope> {
  return outbox.write(trx, orderEvent(order, lines, type, at));
}

/** The event `type` of an order as `order` and `lines` stand (see writeOrderEvent), to write with others. */
export function orderEvent(order: OrderRow, lines: OrderLineRow[], type: string, at: Date = new Date()): OutboxEvent {
  const view = toOrderView(order, lines);
  const data: Record<string, unknown> = { order: view };
  if (type === 'order.shipped') data.tracking = view.tracking;
  return { resellerId: order.reseller_id, mode: order.mode, type, orderId: order.id, data, at };
}
