import { Decimal } from 'decimal.js';
import { Refusal, wrongState, notFound, rejected, type ErrorDetail } from '../refusal.ts';
import { listEnvelope, resolvePage, type CursorCodec, type ListEnvelope } from '../../http/pagination.ts';
import { canonicalJson } from '../../infra/canonical-json.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { Mode } from '../accounts/accounts-tables.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { Outbox, OutboxEvent } from '../events/outbox.ts';
import type { PrintFileCheck } from '../print-files/print-file-checker.ts';
import type { QuotesService } from '../quotes/quotes-service.ts';
import type { KnownSkus } from '../quotes/sku-resolver.ts';
import { sql, type Transaction } from 'kysely';
import { abortReason, abortStatement } from '../../infra/db/statement-abort.ts';
import { insertFromJson } from '../../infra/db/json-insert.ts';
import type { Db, Tables } from '../tables.ts';
import type { Posting, WalletService } from '../wallet/wallet-service.ts';
import type { EventType, OrderSource, OrderState, OrderStatus } from './order-states.ts';
import { applyTransition, isCancellable, IllegalTransitionError, PRODUCTION_TRANSITIONS, type TransitionName } from './order-transitions.ts';
import { moveOrder, orderEvent, writeTransition, writeTransitionTold } from './order-writer.ts';
import { OrderUpkeep } from './order-upkeep.ts';
import type { OrderPayments, PaymentDecision } from './order-payments.ts';
import { asStoredJson, loadOrder, loadOrders, toOrderView, type OrderLineRow, type OrderRow } from './order-views.ts';
import type { OrderView, PlaceOrderInput } from './orders-schemas.ts';
import { WalletLanes } from './wallet-lanes.ts';
import type { CarrierContact, FileStatus, Tracking } from './orders-tables.ts';

export interface Tenant {
  resellerId: string;
  mode: Mode;
}

/** Checks print files by URL; identical URLs are fetched once. */
export interface FileChecker {
  checkMany(urls: string[], opts?: { sandbox?: boolean }): Promise<Map<string, PrintFileCheck>>;
}

class IdempotencyRace extends Error {}

/** The optimistic wallet debit of a placement found the balance short: that transaction is rolled back. */
class WalletShort extends Error {}

const IDEMPOTENCY_RETENTION_DAYS = 30;

type Trx = Transaction<Tables>;

/** An order priced and with its files checked, ready to be written. */
type Prepared = Awaited<ReturnType<QuotesService['price']>> & { fileStatus: Array<{ status: FileStatus; type: string | null }> };

/**
 * Orders: placement (idempotent, priced like quotes, files checked, paid in the same
 * transaction as it is written), reading, cancelling, files supplied later, and the
 * production reports. Every change goes through the transition table and writes its event.
 */
export class OrdersService {
  readonly #db: Db;
  readonly #quotes: QuotesService;
  readonly #files: FileChecker;
  readonly #accounts: AccountsService;
  readonly #wallet: WalletService;
  readonly #payments: OrderPayments;
  readonly #outbox: Outbox;
  readonly #cursors: CursorCodec;
  readonly #lanes: WalletLanes;
  /** Internal reads and purges for other modules and the maintenance loop (shipped store orders, expired idempotency keys). */
  readonly upkeep: OrderUpkeep;

  constructor(deps: {
    db: Db;
    quotes: QuotesService;
    files: FileChecker;
    accounts: AccountsService;
    wallet: WalletService;
    payments: OrderPayments;
    outbox: Outbox;
    cursors: CursorCodec;
  }) {
    this.#db = deps.db;
    this.upkeep = new OrderUpkeep(deps.db);
    this.#quotes = deps.quotes;
    this.#files = deps.files;
    this.#accounts = deps.accounts;
    this.#wallet = deps.wallet;
    this.#payments = deps.payments;
    this.#outbox = deps.outbox;
    this.#cursors = deps.cursors;
    this.#lanes = new WalletLanes(deps.db);
  }

  get payments(): OrderPayments {
    return this.#payments;
  }

  /**
   * Places an order once per Idempotency-Key: a repeat (also a concurrent one, from any
   * process) gets the first order back with `duplicate: true`; the same key with another body
   * is refused.
   */
  async place(
    tenant: Tenant,
    input: PlaceOrderInput,
    opts: { idempotencyKey: string; source: OrderSource; storeId?: string | null; knownSkus?: KnownSkus },
  ): Promise<{ order: OrderView; duplicate: boolean }> {
    const requestHash = sha256Hex(canonicalJson({ source: opts.source, storeId: opts.storeId ?? null, input }));
    // A new key is claimed inside the transaction; a repeat is recognised there (or, when this
    // copy of the request fails before it, right here) and answered with its first order.
    let prepared: Prepared;
    try {
      prepared = await this.#prepare(tenant, input, opts.knownSkus);
    } catch (err) {
      const earlier = await this.#replay(tenant, opts.idempotencyKey, requestHash);
      if (earlier) return earlier;
      throw err;
    }
    const { quote, lines, fileStatus } = prepared;

    const { recipient } = input;
    const carrierContact: CarrierContact = {
      emailSource: recipient.email ? 'recipient' : 'reseller',
      phoneSource: recipient.phone ? 'recipient' : 'reseller',
    };
    const now = new Date();
    const orderId = newId('ord', now.getTime());
    const totals = quote.totals;
    // The rows exactly as they are written (and as a read would give them back): events and the
    // answer are built from these, never read again.
    const created: OrderRow = {
      id: orderId,
      reseller_id: tenant.resellerId,
      mode: tenant.mode,
      source: opts.source,
      external_order_id: input.externalOrderId ?? null,
      store_id: opts.storeId ?? null,
      state: 'AWAITING_FUNDS',
      status: 'PENDING',
      country: input.recipient.country,
      recipient: asStoredJson(recipient),
      carrier_contact: asStoredJson(carrierContact),
      public_net_cents: totals.publicNetCents,
      discount_cents: totals.discountCents,
      net_cents: totals.netCents,
      shipping_cents: totals.shippingCents,
      vat_cents: totals.vatCents,
      total_cents: totals.totalCents,
      shipping: asStoredJson(quote.shipping),
      payment_method: null,
      payment_status: 'none',
      payment_reference: null,
      payment_error: null,
      tracking: null,
      production_partner: null,
      production_reference: null,
      handed_off_at: null,
      created_at: now,
      updated_at: now,
      paid_at: null,
      cancelled_at: null,
    };
    const orderLines: OrderLineRow[] = quote.lines.map((q, i) => ({
      order_id: orderId,
      line: q.line,
      product_id: q.productId,
      reseller_sku: lines[i]!.resellerSku,
      quantity: q.quantity,
      options: asStoredJson(q.options),
      derived_options: asStoredJson(q.derivedOptions),
      unit_price: q.unitNetPrice,
      unit_price_cents: roundHalfUpCents(q.unitNetPrice),
      public_net_cents: q.publicNetCents,
      discount_cents: q.discountCents,
      net_cents: q.netCents,
      vat_rate: q.vatRate,
      vat_cents: q.vatCents,
      total_cents: q.totalCents,
      weight_grams: q.weightGrams,
      file_url: lines[i]!.fileUrl,
      file_type: fileStatus[i]!.type,
      file_status: fileStatus[i]!.status,
    }));

    // Where the order ends up when nothing is left to chance: it waits for a file, or it is a
    // sandbox (or free) order, never charged. A live order is first written as paid from the
    // wallet, the debit in the same single statement (`#writeOrder`); when the balance is short
    // that statement is undone and the order placed again the careful way (`decide`).
    const fresh = { ...created, state: 'NEW' as const };
    let plan: { transition: TransitionName; patch: Partial<Pick<OrderRow, 'payment_method' | 'payment_status' | 'payment_reference' | 'paid_at'>>; debitId?: string };
    if (fileStatus.some((f) => f.status !== 'ok')) plan = { transition: 'await_file', patch: {} };
    else if (this.#payments.neverCharged(created)) plan = { transition: 'submit', patch: this.#payments.notChargedPatch(now) };
    else {
      const debitId = this.#wallet.newEntryId(now);
      plan = { transition: 'submit', patch: { payment_method: 'wallet', payment_status: 'paid', payment_reference: debitId, paid_at: now }, debitId };
    }

    let decision: PaymentDecision | undefined;
    let final: OrderRow | undefined;
    try {
      try {
        const moved = applyTransition(fresh, plan.transition);
        const row: OrderRow = { ...created, ...plan.patch, state: moved.state, status: moved.status };
        // order.created, then where it moved (order.submitted…), and the debit: all one statement.
        // Both events carry the order as that statement commits it: a receiver never sees it in a
        // state it was never in (order.created is not "AWAITING_FUNDS" for an order paid at once).
        const events = committedEvents(row, orderLines, moved.event, now);
        const debit = plan.debitId ? this.#payments.orderDebit(row, plan.debitId) : undefined;
        const write = (db: Db | Trx) => this.#writeOrder(db, tenant, opts.idempotencyKey, requestHash, row, orderLines, events, debit);
        // A debit takes its wallet's turn: one reseller's placements side by side commit together (WalletLanes).
        if (debit) await this.#lanes.run(`${tenant.resellerId}:${tenant.mode}`, write);
        else await write(this.#db);
        final = row;
        if (plan.transition === 'submit') decision = { transition: 'submit', patch: plan.patch, chargeCard: false };
      } catch (err) {
        if (!(err instanceof WalletShort)) throw err;
        final = undefined;
        await this.#db.transaction().execute(async (trx) => {
          // The key first, then the wallet (as in the one statement above); the events last, with
          // the order as this transaction commits it (paid, charging a card, or waiting for funds).
          await this.#writeOrder(trx, tenant, opts.idempotencyKey, requestHash, created, orderLines, [], undefined);
          const d = await this.#payments.decide(trx, fresh, now);
          decision = d;
          const { row, event } = d.transition
            ? await moveOrder(trx, fresh, d.transition, d.patch, now)
            : { row: await trx.updateTable('orders').set(d.patch).where('id', '=', orderId).returningAll().executeTakeFirstOrThrow(), event: null };
          await this.#outbox.writeMany(trx, committedEvents(row, orderLines, event, now));
        });
      }
    } catch (err) {
      if (err instanceof IdempotencyRace) {
        const winner = await this.#replay(tenant, opts.idempotencyKey, requestHash);
        if (winner) return winner;
      }
      throw err;
    }
    await this.#payments.afterCommit(orderId, decision);
    // A card charge ran after the commit and changed the order: only then is it read again.
    return { order: final ? toOrderView(final, orderLines) : await this.get(tenant, orderId), duplicate: false };
  }

  /** Prices the lines on the reseller's terms and checks their print files (422 for any problem). */
  async #prepare(tenant: Tenant, input: PlaceOrderInput, knownSkus: KnownSkus | undefined): Promise<Prepared> {
    const reseller = await this.#accounts.resellerRow(tenant.resellerId);
    const { quote, lines } = await this.#quotes.price(tenant, {
      lines: input.lines,
      country: input.recipient.country,
      discountBps: reseller.discount_bps,
      knownSkus,
    });
    const checks = await this.#files.checkMany([...new Set(lines.flatMap((l) => (l.fileUrl ? [l.fileUrl] : [])))], { sandbox: tenant.mode === 'test' });
    const fileProblems: ErrorDetail[] = [];
    const fileStatus = lines.map((l): { status: FileStatus; type: string | null } => {
      if (!l.fileUrl) return { status: 'missing', type: null };
      const check = checks.get(l.fileUrl)!;
      if (!check.ok) {
        fileProblems.push({ line: l.line, field: 'fileUrl', code: 'invalid_file_url', message: check.reason });
        return { status: 'missing', type: null };
      }
      return { status: check.needsConversion ? 'needs_conversion' : 'ok', type: check.fileType };
    });
    if (fileProblems.length > 0) {
      const first = fileProblems[0]!;
      throw rejected('invalid_file_url', `Line ${first.line}: ${first.message}`, fileProblems);
    }
    return { quote, lines, fileStatus };
  }

  /**
   * The placement in ONE statement: the key claimed, the order, its lines, its events (none when
   * the caller writes them later in its transaction) and, when `debit` is given, the wallet debit. Run on `db` (autocommit: no BEGIN or
   * COMMIT), the wallet row is locked only while the database runs the statement and commits
   * it, never across a round trip, so one reseller's orders do not queue on their wallet for
   * network time; run in a transaction, it is that transaction's first write. Undone as a whole
   * by aborting: IdempotencyRace when another request holds the key (the debit is only tried
   * once the key is claimed, so the key is always locked before the wallet), WalletShort when
   * the balance does not cover the total.
   */
  async #writeOrder(db: Db | Trx, tenant: Tenant, key: string, requestHash: string, row: OrderRow, lines: OrderLineRow[], events: OutboxEvent[], debit: Posting | undefined): Promise<void> {
    const inserts = this.#orderInserts(db, tenant, key, requestHash, row, lines);
    const eventRows = events.length > 0 ? sql`, event_rows as (${this.#outbox.insertOf(db, events).insert})` : sql``;
    const debitCtes = debit ? this.#wallet.debitCtes(debit, sql`exists (select 1 from claimed)`) : undefined;
    try {
      await sql`
        with claimed as (${inserts.claim}), order_row as (${inserts.order}), line_rows as (${inserts.lines})${eventRows}${debitCtes ? sql`, ${debitCtes}` : sql``}
        select case
          when not exists (select 1 from claimed) then ${abortStatement('idempotency_race')}
          ${debitCtes ? sql`when not exists (select 1 from debit_entry) then ${abortStatement('wallet_short')}` : sql``}
        end as outcome`.execute(db);
    } catch (err) {
      const reason = abortReason(err);
      if (reason === 'idempotency_race') throw new IdempotencyRace();
      if (reason === 'wallet_short') throw new WalletShort();
      throw err;
    }
  }

  /** The inserts of a placement, not run: the key's claim (returning the order id when this request got the key), the order, its lines. */
  #orderInserts(db: Pick<Db, 'insertInto'>, tenant: Tenant, key: string, requestHash: string, row: OrderRow, lines: OrderLineRow[]) {
    return {
      claim: db
        .insertInto('idempotency_keys')
        .values({ reseller_id: tenant.resellerId, mode: tenant.mode, key, request_hash: requestHash, order_id: row.id, created_at: row.created_at })
        .onConflict((oc) => oc.columns(['reseller_id', 'mode', 'key']).doNothing())
        .returning('order_id'),
      // Two parameters, not thirty values a row (the builder's share of a placement's CPU).
      order: insertFromJson('orders', [{ ...row, tracking: null }]),
      lines: insertFromJson('order_lines', lines),
    };
  }

  async #replay(tenant: Tenant, key: string, requestHash: string): Promise<{ order: OrderView; duplicate: true } | undefined> {
    const row = await this.#db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('reseller_id', '=', tenant.resellerId)
      .where('mode', '=', tenant.mode)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.request_hash !== requestHash) {
      throw rejected(
        'idempotency_key_reused',
        `The Idempotency-Key '${key}' was already used for a different request (order ${row.order_id}). Use a new key for a new order.`,
      );
    }
    return { order: await this.get(tenant, row.order_id), duplicate: true };
  }

  async get(tenant: Tenant, id: string): Promise<OrderView> {
    const loaded = await loadOrder(this.#db, id);
    if (!loaded || loaded.order.reseller_id !== tenant.resellerId || loaded.order.mode !== tenant.mode) throw notFound('order', id);
    return toOrderView(loaded.order, loaded.lines);
  }

  /** Any account's order (the back-office), with its owner and mode. */
  async getById(id: string): Promise<OrderView & { resellerId: string; mode: Mode }> {
    const loaded = await loadOrder(this.#db, id);
    if (!loaded) throw notFound('order', id);
    return { ...toOrderView(loaded.order, loaded.lines), resellerId: loaded.order.reseller_id, mode: loaded.order.mode };
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
    let q = this.#db.selectFrom('orders').selectAll().where('reseller_id', '=', tenant.resellerId).where('mode', '=', tenant.mode);
    if (query.state) q = q.where('state', '=', query.state);
    if (query.status) q = q.where('status', '=', query.status);
    if (query.source) q = q.where('source', '=', query.source);
    if (query.externalOrderId) q = q.where('external_order_id', '=', query.externalOrderId);
    if (query.storeId) q = q.where('store_id', '=', query.storeId);
    if (query.createdFrom) q = q.where('created_at', '>=', new Date(query.createdFrom));
    if (query.createdTo) q = q.where('created_at', '<=', new Date(query.createdTo));
    if (page.after) {
      const [createdAt, id] = page.after;
      q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(new Date(String(createdAt)), String(id))));
    }
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
    const ids = rows.slice(0, page.limit).map((r) => r.id);
    const lines = ids.length ? await this.#db.selectFrom('order_lines').selectAll().where('order_id', 'in', ids).execute() : [];
    return listEnvelope(this.#cursors, 'orders', page, rows, (r) => [r.created_at.toISOString(), r.id], (r) =>
      toOrderView(r, lines.filter((l) => l.order_id === r.id)),
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
        throw wrongState('order_not_cancellable', `Order ${id} cannot be cancelled: it is ${order.state === 'CANCELLED' ? 'already cancelled' : `in production (status ${order.status})`}.`);
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
      await writeTransition(trx, this.#outbox, order, 'cancel_paid', { cancelled_at: at, ...(charged ? { payment_status: 'refunded' as const } : {}) }, at);
    });
    this.#outbox.notify();
    return this.get(tenant, id);
  }

  /** Supplies a missing or replacement file for a line while the order waits for files. */
  async replaceLineFile(tenant: Tenant, id: string, line: number, fileUrl: string): Promise<OrderView> {
    const current = await this.get(tenant, id);
    if (current.state !== 'AWAITING_FILE') {
      throw wrongState('order_not_awaiting_file', `Order ${id} is ${current.state}; files can be replaced only while it is AWAITING_FILE.`);
    }
    if (!current.lines.some((l) => l.line === line)) throw notFound('order line', `${id}/${line}`);
    const check = (await this.#files.checkMany([fileUrl], { sandbox: tenant.mode === 'test' })).get(fileUrl)!;
    if (!check.ok) {
      throw rejected('invalid_file_url', `Line ${line}: ${check.reason}`, [{ line, field: 'fileUrl', code: 'invalid_file_url', message: check.reason }]);
    }
    await this.#updateLineFile(id, line, { file_url: fileUrl, file_type: check.fileType, file_status: check.needsConversion ? 'needs_conversion' : 'ok' });
    return this.get(tenant, id);
  }

  /** Back-office: a line's EPS/AI/PS/SVG conversion is done (optionally with the converted file's URL). */
  async confirmConversion(id: string, line: number, convertedUrl?: string): Promise<OrderView> {
    const loaded = await loadOrder(this.#db, id);
    const target = loaded?.lines.find((l) => l.line === line);
    if (!loaded || !target) throw notFound('order line', `${id}/${line}`);
    if (target.file_status !== 'needs_conversion') {
      throw wrongState('line_not_awaiting_conversion', `Line ${line} of order ${id} does not wait for a conversion (file status ${target.file_status}).`);
    }
    await this.#updateLineFile(id, line, { file_url: convertedUrl ?? target.file_url, file_type: 'pdf', file_status: 'ok' });
    return this.get({ resellerId: loaded.order.reseller_id, mode: loaded.order.mode }, id);
  }

  async #updateLineFile(id: string, line: number, patch: { file_url: string | null; file_type: string | null; file_status: FileStatus }): Promise<void> {
    let decision: PaymentDecision | undefined;
    await this.#db.transaction().execute(async (trx) => {
      const order = await trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
      if (order.state !== 'AWAITING_FILE') throw wrongState('order_not_awaiting_file', `Order ${id} is ${order.state}; files can be replaced only while it is AWAITING_FILE.`);
      await trx.updateTable('order_lines').set(patch).where('order_id', '=', id).where('line', '=', line).execute();
      const waiting = await trx.selectFrom('order_lines').select('line').where('order_id', '=', id).where('file_status', '!=', 'ok').execute();
      if (waiting.length > 0) return;
      const at = new Date();
      decision = await this.#payments.decide(trx, order, at);
      if (decision.transition) await writeTransition(trx, this.#outbox, order, decision.transition, decision.patch, at);
      else await trx.updateTable('orders').set({ ...decision.patch, updated_at: at }).where('id', '=', id).execute();
    });
    await this.#payments.afterCommit(id, decision);
  }

  /** The print facility (or the simulator, or the back-office) reports progress. Illegal moves: 409. */
  async reportProduction(id: string, status: OrderStatus, tracking?: Tracking): Promise<OrderView> {
    const transition = PRODUCTION_TRANSITIONS[status];
    if (!transition) throw new Refusal('invalid_production_status', `Production can report PROCESSING, PRINTING, SHIPPED or DELIVERED, not ${status}.`);
    const { tenant, told } = await this.#db.transaction().execute(async (trx) => {
      const order = await trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!order) throw notFound('order', id);
      try {
        const at = new Date();
        const { envelope } = await writeTransitionTold(trx, this.#outbox, order, transition, status === 'SHIPPED' && tracking ? { tracking: JSON.stringify(tracking) } : {}, at);
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

  /** Records the partner and its reference of each order handed off, in one statement (an order handed off already keeps its first). */
  async markHandedOff(handoffs: Array<{ id: string; partner: string; reference: string }>): Promise<void> {
    if (handoffs.length === 0) return;
    await sql`
      update orders set production_partner = h.partner, production_reference = h.reference, handed_off_at = ${new Date()}::timestamptz
      from unnest(${handoffs.map((h) => h.id)}::text[], ${handoffs.map((h) => h.partner)}::text[], ${handoffs.map((h) => h.reference)}::text[]) as h(id, partner, reference)
      where orders.id = h.id and orders.handed_off_at is null`.execute(this.#db);
  }
}

/**
 * The events of a placement, written with the order in one commit: order.created, then the event
 * of where the order moved in that commit (none when it only waits for a card charge), both
 * carrying the order as committed.
 */
function committedEvents(row: OrderRow, lines: OrderLineRow[], moved: EventType | null, at: Date): OutboxEvent[] {
  return [orderEvent(row, lines, 'order.created', at), ...(moved ? [orderEvent(row, lines, moved, at)] : [])];
}

/** Whole cents of an exact decimal cent amount, half up. */
export function roundHalfUpCents(decimalCents: string): number {
  return new Decimal(decimalCents).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}
