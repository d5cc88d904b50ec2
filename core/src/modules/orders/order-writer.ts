import type { Transaction, Updateable } from 'kysely';
import type { Outbox } from '../events/outbox.ts';
import type { Tables } from '../tables.ts';
import { applyTransition, type TransitionName } from './order-transitions.ts';
import { loadOrder, toOrderView, type OrderRow } from './order-views.ts';
import type { OrdersTable } from './orders-tables.ts';

type Trx = Transaction<Tables>;

/**
 * Moves a locked order along one transition, with any other column changes, and writes the
 * transition's event to the outbox, all in the caller's transaction.
 */
export async function writeTransition(
  trx: Trx,
  outbox: Outbox,
  order: Omit<OrderRow, 'state'> & { state: OrderRow['state'] | 'NEW' },
  transition: TransitionName,
  patch: Updateable<OrdersTable> = {},
  at: Date = new Date(),
): Promise<OrderRow> {
  const next = applyTransition({ state: order.state, status: order.status }, transition);
  const updated = await trx
    .updateTable('orders')
    .set({ ...patch, state: next.state, status: next.status, updated_at: at })
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (next.event) await writeOrderEvent(trx, outbox, updated.id, next.event, at);
  return updated;
}

/** Writes `type` for an order with the order as it now stands (plus tracking on order.shipped). */
export async function writeOrderEvent(trx: Trx, outbox: Outbox, orderId: string, type: string, at: Date = new Date()): Promise<void> {
  const loaded = await loadOrder(trx, orderId);
  if (!loaded) throw new Error(`order ${orderId} vanished inside its own transaction`);
  const order = toOrderView(loaded.order, loaded.lines);
  const data: Record<string, unknown> = { order };
  if (type === 'order.shipped') data.tracking = order.tracking;
  await outbox.write(trx, { resellerId: loaded.order.reseller_id, mode: loaded.order.mode, type, orderId, data, at });
}
