import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
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

/** Reads an order with its lines (inside a transaction when given one), in one round trip. */
export async function loadOrder(
  db: Kysely<Tables> | Transaction<Tables>,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<{ order: OrderRow; lines: OrderLineRow[] } | undefined> {
  if (opts.forUpdate) {
    const order = await db.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    return order ? { order, lines: await loadLines(db, id) } : undefined;
  }
  const row = await withLines(db).where('id', '=', id).executeTakeFirst();
  return row ? splitLines(row) : undefined;
}

/** Several orders with their lines, in one query (in no particular order; unknown ids are left out). */
export async function loadOrders(
  db: Kysely<Tables> | Transaction<Tables>,
  ids: string[],
): Promise<Array<{ order: OrderRow; lines: OrderLineRow[] }>> {
  if (ids.length === 0) return [];
  // One array parameter, not one per id: the same statement text (and prepared statement) whatever the batch's size.
  return (await withLines(db).where(sql<boolean>`orders.id = any(${ids}::text[])`).execute()).map(splitLines);
}

/** Orders, each with its lines (by line number) as one JSON column. */
function withLines(db: Kysely<Tables> | Transaction<Tables>) {
  return db
    .selectFrom('orders')
    .selectAll('orders')
    .select((eb) =>
      jsonArrayFrom(
        eb.selectFrom('order_lines').selectAll().whereRef('order_lines.order_id', '=', 'orders.id').orderBy('line'),
      ).as('lines_json'),
    );
}

function splitLines<R extends OrderRow & { lines_json: unknown[] }>({
  lines_json: lines,
  ...order
}: R): { order: OrderRow; lines: OrderLineRow[] } {
  for (const l of lines as OrderLineRow[]) for (const c of INT8_LINE_COLUMNS) checkSafe(l[c]);
  return { order, lines: lines as OrderLineRow[] };
}

/** The lines of an order, by line number. */
export async function loadLines(db: Kysely<Tables> | Transaction<Tables>, orderId: string): Promise<OrderLineRow[]> {
  return db.selectFrom('order_lines').selectAll().where('order_id', '=', orderId).orderBy('line').execute();
}

/**
 * bigint columns of a line: through JSON they arrive as plain numbers, so the int8 parser's range check is repeated
 * here.
 */
const INT8_LINE_COLUMNS = [
  'unit_price_cents',
  'public_net_cents',
  'discount_cents',
  'net_cents',
  'vat_cents',
  'total_cents',
] as const;

function checkSafe(value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new RangeError(`int8 value ${String(value)} is outside the safe integer range`);
}

/**
 * `value` as a jsonb column gives it back: through JSON (undefined members dropped), with the
 * keys of every object in jsonb's order (shorter first, then bytewise). A row built in memory
 * from what was just written then answers exactly as the row read back would.
 */
export function asStoredJson<T>(value: T): T {
  return normalize(JSON.parse(JSON.stringify(value))) as T;
}

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort(jsonbKeyOrder);
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = normalize((value as Record<string, unknown>)[k]);
  return out;
}

function jsonbKeyOrder(a: string, b: string): number {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length - bb.length || Buffer.compare(ba, bb);
}
