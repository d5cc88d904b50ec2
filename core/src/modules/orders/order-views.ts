import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Tables } from '../tables.ts';
import type { OrderView } from './orders-schemas.ts';
import type { OrderLinesTable, OrdersTable } from './orders-tables.ts';

export type OrderRow = Selectable<OrdersTable>;
export type OrderLineRow = Selectable<OrderLinesTable>;

/** The order as GET /orders/{id} shows it (and as events carry it). */
export function toOrderView(order: OrderRow, lines: OrderLineRow[]): OrderView {
  return {
    id: order.id,
    state: order.state,
    status: order.status,
    source: order.source,
    externalOrderId: order.external_order_id,
    testMode: order.mode === 'test',
    storeId: order.store_id,
    recipient: order.recipient,
    carrierContact: order.carrier_contact,
    lines: lines
      .sort((a, b) => a.line - b.line)
      .map((l) => ({
        line: l.line,
        productId: l.product_id,
        resellerSku: l.reseller_sku,
        quantity: l.quantity,
        options: l.options,
        derivedOptions: l.derived_options,
        unitPrice: l.unit_price,
        unitPriceCents: l.unit_price_cents,
        publicNetCents: l.public_net_cents,
        discountCents: l.discount_cents,
        netCents: l.net_cents,
        vatRate: l.vat_rate,
        vatCents: l.vat_cents,
        totalCents: l.total_cents,
        fileUrl: l.file_url,
        fileStatus: l.file_status,
      })),
    shipping: order.shipping,
    totals: {
      currency: 'EUR',
      publicNetCents: order.public_net_cents,
      discountCents: order.discount_cents,
      netCents: order.net_cents,
      shippingCents: order.shipping_cents,
      vatCents: order.vat_cents,
      totalCents: order.total_cents,
    },
    payment: {
      method: order.payment_method,
      status: order.payment_status,
      error: order.payment_error,
      paidAt: order.paid_at?.toISOString() ?? null,
    },
    tracking: order.tracking,
    createdAt: order.created_at.toISOString(),
    updatedAt: order.updated_at.toISOString(),
    cancelledAt: order.cancelled_at?.toISOString() ?? null,
  };
}

/** Reads an order with its lines (inside a transaction when given one). */
export async function loadOrder(db: Kysely<Tables> | Transaction<Tables>, id: string, opts: { forUpdate?: boolean } = {}): Promise<{ order: OrderRow; lines: OrderLineRow[] } | undefined> {
  let q = db.selectFrom('orders').selectAll().where('id', '=', id);
  if (opts.forUpdate) q = q.forUpdate();
  const order = await q.executeTakeFirst();
  if (!order) return undefined;
  const lines = await db.selectFrom('order_lines').selectAll().where('order_id', '=', id).orderBy('line').execute();
  return { order, lines };
}
