import type { Transaction, Updateable } from 'kysely';
import type { Outbox, OutboxEvent } from '../events/outbox.ts';
import type { Tables } from '../tables.ts';
import { applyTransition, type TransitionName } from './order-transitions.ts';
import { loadLines, toOrderView, type OrderLineRow, type OrderRow } from './order-views.ts';
import type { OrdersTable } from './orders-tables.ts';

type Trx = Transaction<Tables>;

/**
 * Moves a locked order along one transition, with any other column changes, and writes the
 * transition's event to the outbox, all in the caller's transaction. `lines`, when the caller
 * has them as they stand in this transaction, spare reading them again for the event.
 */
export async function writeTransition(
  trx: Trx,
  outbox: Outbox,
  order: Omit<OrderRow, 'state'> & { state: OrderRow['state'] | 'NEW' },
  transition: TransitionName,
  patch: Updateable<OrdersTable> = {},
  at: Date = new Date(),
  lines?: OrderLineRow[],
): Promise<OrderRow> {
  const next = applyTransition({ state: order.state, status: order.status }, transition);
  const updated = await trx
    .updateTable('orders')
    .set({ ...patch, state: next.state, status: next.status, updated_at: at })
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (next.event) await writeOrderEvent(trx, outbox, updated, lines ?? (await loadLines(trx, updated.id)), next.event, at);
  return updated;
}

/**
 * Writes `type` for an order with the order as it now stands in this transaction (plus tracking
 * on order.shipped): `order` and `lines` are its rows as written, not read again.
 */
export async function writeOrderEvent(trx: Trx, outbox: Outbox, order: OrderRow, lines: OrderLineRow[], type: string, at: Date = new Date()): Promise<void> {
  await outbox.write(trx, orderEvent(order, lines, type, at));
}

/** The event `type` of an order as `order` and `lines` stand (see writeOrderEvent), to write with others. */
export function orderEvent(order: OrderRow, lines: OrderLineRow[], type: string, at: Date = new Date()): OutboxEvent {
  const view = toOrderView(order, lines);
  const data: Record<string, unknown> = { order: view };
  if (type === 'order.shipped') data.tracking = view.tracking;
  return { resellerId: order.reseller_id, mode: order.mode, type, orderId: order.id, data, at };
}
