import { Decimal } from 'decimal.js';
import { sql, type Transaction } from 'kysely';
import { rejected, type ErrorDetail } from '../../kernel/refusal.ts';
import { canonicalJson } from '../../infra/canonical-json.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import { abortReason, abortStatement } from '../../infra/db/statement-abort.ts';
import { insertFromJson } from '../../infra/db/json-insert.ts';
import type { OutboxEvent } from '../events/outbox.ts';
import type { QuotesService } from '../quotes/quotes-service.ts';
import type { KnownSkus } from '../quotes/sku-resolver.ts';
import type { Db, Tables } from '../tables.ts';
import type { Posting } from '../wallet/wallet-service.ts';
import type { EventType, OrderSource } from './order-states.ts';
import { applyTransition, type TransitionName } from './order-transitions.ts';
import { moveOrder, orderEvent } from './order-writer.ts';
import type { PaymentDecision } from './order-payments.ts';
import { asStoredJson, toOrderView, type OrderLineRow, type OrderRow } from './order-views.ts';
import type { OrdersDeps } from './orders-service.ts';
import type { Tenant } from '../../kernel/tenant.ts';
import type { OrderView, PlaceOrderInput } from './orders-schemas.ts';
import type { WalletLanes } from './wallet-lanes.ts';
import type { CarrierContact, FileStatus } from './orders-tables.ts';

class IdempotencyRace extends Error {}

/** The optimistic wallet debit of a placement found the balance short: that transaction is rolled back. */
class WalletShort extends Error {}

type Trx = Transaction<Tables>;

/** An order priced and with its files checked, ready to be written. */
type Prepared = Awaited<ReturnType<QuotesService['price']>> & {
  fileStatus: Array<{ status: FileStatus; type: string | null }>;
};

/**
 * Placing an order: idempotent per key, priced like a quote, its files checked, and paid in the
 * same transaction as it is written. The orders service's `place` is this.
 */
/** The orders service's dependencies, the wallet's lanes and the service's view of an order. */
export interface PlacementDeps extends Omit<OrdersDeps, 'cursors'> {
  lanes: WalletLanes;
  /** The order as its reseller reads it (the orders service's `get`). */
  view: (tenant: Tenant, id: string) => Promise<OrderView>;
}

export class OrderPlacement {
  readonly #deps: PlacementDeps;

  constructor(deps: PlacementDeps) {
    this.#deps = deps;
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
    let plan: {
      transition: TransitionName;
      patch: Partial<Pick<OrderRow, 'payment_method' | 'payment_status' | 'payment_reference' | 'paid_at'>>;
      debitId?: string;
    };
    if (fileStatus.some((f) => f.status !== 'ok')) plan = { transition: 'await_file', patch: {} };
    else if (this.#deps.payments.neverCharged(created))
      plan = { transition: 'submit', patch: this.#deps.payments.notChargedPatch(now) };
    else {
      const debitId = this.#deps.wallet.newEntryId(now);
      plan = {
        transition: 'submit',
        patch: { payment_method: 'wallet', payment_status: 'paid', payment_reference: debitId, paid_at: now },
        debitId,
      };
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
        const debit = plan.debitId ? this.#deps.payments.orderDebit(row, plan.debitId) : undefined;
        const write = (db: Db | Trx) =>
          this.#writeOrder(db, tenant, opts.idempotencyKey, requestHash, row, orderLines, events, debit);
        // A debit takes its wallet's turn: one reseller's placements side by side commit together (WalletLanes).
        if (debit) await this.#deps.lanes.run(`${tenant.resellerId}:${tenant.mode}`, write);
        else await write(this.#deps.db);
        final = row;
        if (plan.transition === 'submit') decision = { transition: 'submit', patch: plan.patch, chargeCard: false };
      } catch (err) {
        if (!(err instanceof WalletShort)) throw err;
        final = undefined;
        await this.#deps.db.transaction().execute(async (trx) => {
          // The key first, then the wallet (as in the one statement above); the events last, with
          // the order as this transaction commits it (paid, charging a card, or waiting for funds).
          await this.#writeOrder(trx, tenant, opts.idempotencyKey, requestHash, created, orderLines, [], undefined);
          const d = await this.#deps.payments.decide(trx, fresh, now);
          decision = d;
          const { row, event } = d.transition
            ? await moveOrder(trx, fresh, d.transition, d.patch, now)
            : {
                row: await trx
                  .updateTable('orders')
                  .set(d.patch)
                  .where('id', '=', orderId)
                  .returningAll()
                  .executeTakeFirstOrThrow(),
                event: null,
              };
          await this.#deps.outbox.writeMany(trx, committedEvents(row, orderLines, event, now));
        });
      }
    } catch (err) {
      if (err instanceof IdempotencyRace) {
        const winner = await this.#replay(tenant, opts.idempotencyKey, requestHash);
        if (winner) return winner;
      }
      throw err;
    }
    await this.#deps.payments.afterCommit(orderId, decision);
    // A card charge ran after the commit and changed the order: only then is it read again.
    return { order: final ? toOrderView(final, orderLines) : await this.#deps.view(tenant, orderId), duplicate: false };
  }

  /** Prices the lines on the reseller's terms and checks their print files (422 for any problem). */
  async #prepare(tenant: Tenant, input: PlaceOrderInput, knownSkus: KnownSkus | undefined): Promise<Prepared> {
    const reseller = await this.#deps.accounts.resellerRow(tenant.resellerId);
    const { quote, lines } = await this.#deps.quotes.price(tenant, {
      lines: input.lines,
      country: input.recipient.country,
      discountBps: reseller.discount_bps,
      knownSkus,
    });
    const checks = await this.#deps.files.checkMany(
      [...new Set(lines.flatMap((l) => (l.fileUrl ? [l.fileUrl] : [])))],
      { sandbox: tenant.mode === 'test' },
    );
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
   * the caller writes them later in its transaction) and, when `debit` is given, the wallet debit. Run on `db`
   * (autocommit: no BEGIN or
   * COMMIT), the wallet row is locked only while the database runs the statement and commits
   * it, never across a round trip, so one reseller's orders do not queue on their wallet for
   * network time; run in a transaction, it is that transaction's first write. Undone as a whole
   * by aborting: IdempotencyRace when another request holds the key (the debit is only tried
   * once the key is claimed, so the key is always locked before the wallet), WalletShort when
   * the balance does not cover the total.
   */
  async #writeOrder(
    db: Db | Trx,
    tenant: Tenant,
    key: string,
    requestHash: string,
    row: OrderRow,
    lines: OrderLineRow[],
    events: OutboxEvent[],
    debit: Posting | undefined,
  ): Promise<void> {
    const inserts = orderInserts(tenant, key, requestHash, row, lines);
    const eventRows = events.length > 0 ? sql`, event_rows as (${this.#deps.outbox.insertOf(events).insert})` : sql``;
    const debitCtes = debit ? this.#deps.wallet.debitCtes(debit, sql`exists (select 1 from claimed)`) : undefined;
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

  async #replay(
    tenant: Tenant,
    key: string,
    requestHash: string,
  ): Promise<{ order: OrderView; duplicate: true } | undefined> {
    const row = await this.#deps.db
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
    return { order: await this.#deps.view(tenant, row.order_id), duplicate: true };
  }
}

/**
 * The inserts of a placement, not run: the key's claim (returning the order id when this request
 * got the key), the order, its lines. One parameter each, not thirty values a row: the query
 * builder's share of a placement's CPU.
 */
function orderInserts(tenant: Tenant, key: string, requestHash: string, row: OrderRow, lines: OrderLineRow[]) {
  const claim = {
    reseller_id: tenant.resellerId,
    mode: tenant.mode,
    key,
    request_hash: requestHash,
    order_id: row.id,
    created_at: row.created_at,
  };
  return {
    claim: sql`${insertFromJson('idempotency_keys', [claim])} on conflict (reseller_id, mode, key) do nothing returning order_id`,
    order: insertFromJson('orders', [{ ...row, tracking: null }]),
    lines: insertFromJson('order_lines', lines),
  };
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
