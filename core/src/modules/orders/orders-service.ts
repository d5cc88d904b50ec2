import type { AuditHook } from '../audit/audit-log.ts';
import { Refusal, wrongState, notFound, rejected } from '../../kernel/refusal.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../kernel/pagination.ts';
import type { Mode, Tenant } from '../../kernel/tenant.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { Outbox } from '../events/outbox.ts';
import type { PrintFileCheck } from '../print-files/print-file-checker.ts';
import type { QuotesService } from '../quotes/quotes-service.ts';
import { sql } from 'kysely';
import type { Db } from '../tables.ts';
import type { WalletService } from '../wallet/wallet-service.ts';
import type { OrderSource, OrderState, OrderStatus } from './order-states.ts';
import { isCancellable, IllegalTransitionError, PRODUCTION_TRANSITIONS } from './order-transitions.ts';
import { writeTransition, writeTransitionTold } from './order-writer.ts';
import { OrderUpkeep } from './order-upkeep.ts';
import type { OrderPayments, PaymentDecision } from './order-payments.ts';
import { OrderPlacement } from './order-placement.ts';
import { loadOrder, loadOrders, toOrderView } from './order-views.ts';
import type { OrderView } from './orders-schemas.ts';
import { WalletLanes } from './wallet-lanes.ts';
import type { FileStatus, Tracking } from './orders-tables.ts';

/** What the orders service is built from (the composition root gives it). */
export interface OrdersDeps {
  db: Db;
  quotes: QuotesService;
  files: FileChecker;
  accounts: AccountsService;
  wallet: WalletService;
  payments: OrderPayments;
  outbox: Outbox;
  cursors: CursorCodec;
}

/** Checks print files by URL; identical URLs are fetched once. */
export interface FileChecker {
  checkMany(urls: string[], opts?: { sandbox?: boolean }): Promise<Map<string, PrintFileCheck>>;
}

/**
 * Orders: placement (idempotent, priced like quotes, files checked, paid in the same
 * transaction as it is written), reading, cancelling, files supplied later, and the
 * production reports. Every change goes through the transition table and writes its event.
 */
export class OrdersService {
  readonly #db: Db;
  readonly #files: FileChecker;
  readonly #wallet: WalletService;
  readonly #payments: OrderPayments;
  readonly #outbox: Outbox;
  readonly #cursors: CursorCodec;
  readonly #placement: OrderPlacement;
  /**
   * Internal reads and purges for other modules and the maintenance loop (shipped store orders, expired idempotency
   * keys).
   */
  readonly upkeep: OrderUpkeep;

  constructor(deps: OrdersDeps) {
    this.#db = deps.db;
    this.upkeep = new OrderUpkeep(deps.db);
    this.#files = deps.files;
    this.#wallet = deps.wallet;
    this.#payments = deps.payments;
    this.#outbox = deps.outbox;
    this.#cursors = deps.cursors;
    this.#placement = new OrderPlacement({
      ...deps,
      lanes: new WalletLanes(deps.db),
      view: (tenant, id) => this.get(tenant, id),
    });
  }

  get payments(): OrderPayments {
    return this.#payments;
  }

  /**
   * Places an order once per Idempotency-Key (see OrderPlacement): a repeat gets the first order
   * back with `duplicate: true`; the same key with another body is refused.
   */
  place(...args: Parameters<OrderPlacement['place']>): ReturnType<OrderPlacement['place']> {
    return this.#placement.place(...args);
  }

  async get(tenant: Tenant, id: string): Promise<OrderView> {
    const loaded = await loadOrder(this.#db, id);
    if (!loaded || loaded.order.reseller_id !== tenant.resellerId || loaded.order.mode !== tenant.mode)
      throw notFound('order', id);
    return toOrderView(loaded.order, loaded.lines);
  }

  /** Any account's order (the back-office), with its owner and mode. */
  async getById(id: string): Promise<OrderView & { resellerId: string; mode: Mode }> {
    const loaded = await loadOrder(this.#db, id);
    if (!loaded) throw notFound('order', id);
    return {
      ...toOrderView(loaded.order, loaded.lines),
      resellerId: loaded.order.reseller_id,
      mode: loaded.order.mode,
    };
  }

  /** Newest first, keyset-paginated on (created_at, id). */
  async list(
    tenant: Tenant,
    query: {
      state?: OrderState | undefined;
      status?: OrderStatus | undefined;
      source?: OrderSource | undefined;
      externalOrderId?: string | undefined;
      storeId?: string | undefined;
      createdFrom?: string | undefined;
      createdTo?: string | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
    },
  ): Promise<ListEnvelope<OrderView>> {
    const page = resolvePage(this.#cursors, 'orders', query);
    let q = this.#db
      .selectFrom('orders')
      .selectAll()
      .where('reseller_id', '=', tenant.resellerId)
      .where('mode', '=', tenant.mode);
    if (query.state) q = q.where('state', '=', query.state);
    if (query.status) q = q.where('status', '=', query.status);
    if (query.source) q = q.where('source', '=', query.source);
    if (query.externalOrderId) q = q.where('external_order_id', '=', query.externalOrderId);
    if (query.storeId) q = q.where('store_id', '=', query.storeId);
    if (query.createdFrom) q = q.where('created_at', '>=', new Date(query.createdFrom));
    if (query.createdTo) q = q.where('created_at', '<=', new Date(query.createdTo));
    const rows = await newestFirst(q, page);
    const ids = rows.slice(0, page.limit).map((r) => r.id);
    const lines = ids.length
      ? await this.#db.selectFrom('order_lines').selectAll().where('order_id', 'in', ids).execute()
      : [];
    return listEnvelope(
      this.#cursors,
      'orders',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      (r) =>
        toOrderView(
          r,
          lines.filter((l) => l.order_id === r.id),
        ),
    );
  }

  /** Cancels while production has not started; a paid order's money goes back to the wallet. */
  async cancel(tenant: Tenant, id: string): Promise<OrderView> {
    await this.#db.transaction().execute(async (trx) => {
      const order = await trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!order || order.reseller_id !== tenant.resellerId || order.mode !== tenant.mode) throw notFound('order', id);
      if (order.payment_status === 'charging') {
        throw wrongState('payment_in_progress', `Order ${id} is being charged right now; try again in a few seconds.`);
      }
      if (!isCancellable(order)) {
        throw wrongState(
          'order_not_cancellable',
          `Order ${id} cannot be cancelled: it is ${order.state === 'CANCELLED' ? 'already cancelled' : `in production (status ${order.status})`}.`,
        );
      }
      const at = new Date();
      if (order.status === 'PENDING') {
        await writeTransition(trx, this.#outbox, order, 'cancel_unpaid', { cancelled_at: at }, at);
        return;
      }
      const charged = order.payment_status === 'paid';
      if (charged) {
        await this.#wallet.post(trx, {
          resellerId: order.reseller_id,
          mode: order.mode,
          kind: 'order_refund',
          amountCents: order.total_cents,
          orderId: order.id,
          reference: `Refund of cancelled order ${order.id}`,
        });
      }
      await writeTransition(
        trx,
        this.#outbox,
        order,
        'cancel_paid',
        { cancelled_at: at, ...(charged ? { payment_status: 'refunded' as const } : {}) },
        at,
      );
    });
    this.#outbox.notify();
    return this.get(tenant, id);
  }

  /** Supplies a missing or replacement file for a line while the order waits for files. */
  async replaceLineFile(tenant: Tenant, id: string, line: number, fileUrl: string): Promise<OrderView> {
    const current = await this.get(tenant, id);
    if (current.state !== 'AWAITING_FILE') {
      throw wrongState(
        'order_not_awaiting_file',
        `Order ${id} is ${current.state}; files can be replaced only while it is AWAITING_FILE.`,
      );
    }
    if (!current.lines.some((l) => l.line === line)) throw notFound('order line', `${id}/${line}`);
    const check = (await this.#files.checkMany([fileUrl], { sandbox: tenant.mode === 'test' })).get(fileUrl)!;
    if (!check.ok) {
      throw rejected('invalid_file_url', `Line ${line}: ${check.reason}`, [
        { line, field: 'fileUrl', code: 'invalid_file_url', message: check.reason },
      ]);
    }
    await this.#updateLineFile(id, line, {
      file_url: fileUrl,
      file_type: check.fileType,
      file_status: check.needsConversion ? 'needs_conversion' : 'ok',
    });
    return this.get(tenant, id);
  }

  /** Back-office: a line's EPS/AI/PS/SVG conversion is done (optionally with the converted file's URL). */
  async confirmConversion(
    id: string,
    line: number,
    convertedUrl?: string,
    audit?: AuditHook<{ orderId: string; resellerId: string }>,
  ): Promise<OrderView> {
    const loaded = await loadOrder(this.#db, id);
    const target = loaded?.lines.find((l) => l.line === line);
    if (!loaded || !target) throw notFound('order line', `${id}/${line}`);
    if (target.file_status !== 'needs_conversion') {
      throw wrongState(
        'line_not_awaiting_conversion',
        `Line ${line} of order ${id} does not wait for a conversion (file status ${target.file_status}).`,
      );
    }
    await this.#updateLineFile(
      id,
      line,
      {
        file_url: convertedUrl ?? target.file_url,
        file_type: 'pdf',
        file_status: 'ok',
      },
      audit,
    );
    return this.get({ resellerId: loaded.order.reseller_id, mode: loaded.order.mode }, id);
  }

  async #updateLineFile(
    id: string,
    line: number,
    patch: { file_url: string | null; file_type: string | null; file_status: FileStatus },
    audit?: AuditHook<{ orderId: string; resellerId: string }>,
  ): Promise<void> {
    let decision: PaymentDecision | undefined;
    await this.#db.transaction().execute(async (trx) => {
      const order = await trx
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (order.state !== 'AWAITING_FILE')
        throw wrongState(
          'order_not_awaiting_file',
          `Order ${id} is ${order.state}; files can be replaced only while it is AWAITING_FILE.`,
        );
      await trx.updateTable('order_lines').set(patch).where('order_id', '=', id).where('line', '=', line).execute();
      await audit?.(trx, { orderId: id, resellerId: order.reseller_id });
      const waiting = await trx
        .selectFrom('order_lines')
        .select('line')
        .where('order_id', '=', id)
        .where('file_status', '!=', 'ok')
        .execute();
      if (waiting.length > 0) return;
      const at = new Date();
      decision = await this.#payments.decide(trx, order, at);
      if (decision.transition) await writeTransition(trx, this.#outbox, order, decision.transition, decision.patch, at);
      else
        await trx
          .updateTable('orders')
          .set({ ...decision.patch, updated_at: at })
          .where('id', '=', id)
          .execute();
    });
    await this.#payments.afterCommit(id, decision);
  }

  /** The print facility (or the simulator, or the back-office) reports progress. Illegal moves: 409. */
  async reportProduction(
    id: string,
    status: OrderStatus,
    tracking?: Tracking,
    audit?: AuditHook<{ orderId: string; resellerId: string }>,
  ): Promise<OrderView> {
    const transition = PRODUCTION_TRANSITIONS[status];
    if (!transition)
      throw new Refusal(
        'invalid_production_status',
        `Production can report PROCESSING, PRINTING, SHIPPED or DELIVERED, not ${status}.`,
      );
    const { tenant, told } = await this.#db.transaction().execute(async (trx) => {
      const order = await trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!order) throw notFound('order', id);
      try {
        const at = new Date();
        const { envelope } = await writeTransitionTold(
          trx,
          this.#outbox,
          order,
          transition,
          status === 'SHIPPED' && tracking ? { tracking: JSON.stringify(tracking) } : {},
          at,
        );
        await audit?.(trx, { orderId: id, resellerId: order.reseller_id });
        return { tenant: { resellerId: order.reseller_id, mode: order.mode }, told: envelope ? [envelope] : [] };
      } catch (err) {
        if (err instanceof IllegalTransitionError) throw wrongState('illegal_transition', err.message);
        throw err;
      }
    });
    // The committed event goes to its subscribers (order.shipped: the stores' tracking push).
    this.#outbox.notify(told);
    return this.get(tenant, id);
  }

  /** Paid orders not yet handed to production (the hand-off sweeper's work list). */
  async ordersAwaitingHandoff(olderThanMs: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('orders')
      .select('id')
      .where('status', '=', 'PAID')
      .where('handed_off_at', 'is', null)
      .where('updated_at', '<', new Date(Date.now() - olderThanMs))
      .limit(500)
      .execute();
    return rows.map((r) => r.id);
  }

  /** The order as the hand-off needs it (internal: no tenant check). */
  async loadForHandoff(id: string) {
    return loadOrder(this.#db, id);
  }

  /** Several orders as the hand-off needs them, in one query (internal: no tenant check). */
  async loadManyForHandoff(ids: string[]) {
    return loadOrders(this.#db, ids);
  }

  /**
   * Records the partner and its reference of each order handed off, in one statement (an order handed off already keeps
   * its first).
   */
  async markHandedOff(handoffs: Array<{ id: string; partner: string; reference: string }>): Promise<void> {
    if (handoffs.length === 0) return;
    await sql`
      update orders set production_partner = h.partner, production_reference = h.reference, handed_off_at = ${new Date()}::timestamptz
      from unnest(${handoffs.map((h) => h.id)}::text[], ${handoffs.map((h) => h.partner)}::text[], ${handoffs.map((h) => h.reference)}::text[]) as h(id, partner, reference)
      where orders.id = h.id and orders.handed_off_at is null`.execute(this.#db);
  }
}
