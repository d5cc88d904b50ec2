import type { AuditHook } from '../audit/audit-log.ts';
import { sql, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import { Refusal } from '../../kernel/refusal.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../kernel/pagination.ts';
import { newId } from '../../infra/ids.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { Db, Tables } from '../tables.ts';
import type { LedgerKind, WalletLedgerTable } from './wallet-tables.ts';

export interface LedgerEntry {
  id: string;
  kind: LedgerKind;
  amountCents: number;
  balanceAfterCents: number;
  orderId: string | null;
  reference: string | null;
  createdAt: string;
}

export interface Posting {
  resellerId: string;
  mode: Mode;
  kind: LedgerKind;
  /** Signed: positive credits the wallet, negative debits it. */
  amountCents: number;
  orderId?: string | null;
  reference?: string | null;
}

type Trx = Transaction<Tables>;

/**
 * The prepaid wallet: an append-only ledger in integer cents. Every posting locks the
 * (reseller, mode) wallet row, so concurrent postings from any number of processes apply one
 * after another and the balance can never go below zero.
 */
export class WalletService {
  readonly #db: Db;
  readonly #cursors: CursorCodec;
  readonly #clock: () => Date;
  readonly #fundsListeners: Array<(resellerId: string, mode: Mode) => Promise<void>> = [];

  constructor(deps: { db: Db; cursors: CursorCodec; clock?: () => Date }) {
    this.#db = deps.db;
    this.#cursors = deps.cursors;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** Called after a top-up commits (orders waiting for funds are released there). */
  onFundsAdded(listener: (resellerId: string, mode: Mode) => Promise<void>): void {
    this.#fundsListeners.push(listener);
  }

  async topUp(
    input: {
      resellerId: string;
      mode: Mode;
      amountCents: number;
      reference?: string | undefined;
    },
    audit?: AuditHook<LedgerEntry>,
  ): Promise<LedgerEntry> {
    const entry = await this.#db.transaction().execute(async (trx) => {
      const posted = await this.post(trx, {
        resellerId: input.resellerId,
        mode: input.mode,
        kind: 'top_up',
        amountCents: input.amountCents,
        reference: input.reference ?? null,
      });
      // The record of who topped up commits with the credit, or neither does.
      if (posted && audit) await audit(trx, posted);
      return posted;
    });
    for (const listener of this.#fundsListeners) await listener(input.resellerId, input.mode);
    return entry!;
  }

  /**
   * Posts one movement inside the caller's transaction. A debit larger than the balance
   * posts nothing and returns null.
   */
  async post(trx: Trx, posting: Posting): Promise<LedgerEntry | null> {
    if (!Number.isSafeInteger(posting.amountCents) || posting.amountCents === 0) {
      throw new RangeError(`A posting must be a non-zero whole number of cents, got ${posting.amountCents}`);
    }
    const balance = await this.#lockBalance(trx, posting.resellerId, posting.mode);
    const after = balance + posting.amountCents;
    if (after < 0) return null;
    const now = this.#clock();
    const row = await trx
      .insertInto('wallet_ledger')
      .values({
        id: newId('wle', now.getTime()),
        reseller_id: posting.resellerId,
        mode: posting.mode,
        kind: posting.kind,
        amount_cents: posting.amountCents,
        balance_after_cents: after,
        order_id: posting.orderId ?? null,
        reference: posting.reference ?? null,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('wallets')
      .set({ balance_cents: after, updated_at: now })
      .where('reseller_id', '=', posting.resellerId)
      .where('mode', '=', posting.mode)
      .execute();
    return toEntry(row);
  }

  /**
   * A debit in ONE statement inside the caller's transaction: the wallet row is updated only
   * when its balance covers the amount, and the ledger row is inserted from the balance that
   * update produced. The row lock is taken by this statement and held to the commit, so make it
   * the transaction's last statement (orders of one reseller queue on that lock).
   *
   * Returns null, having written nothing, when the balance is short or the wallet has no row
   * yet. No lock is held then: a caller that must keep a concurrent top-up waiting until it
   * commits (so the top-up's release of orders awaiting funds sees its order) falls back to
   * `post`, which locks the row first.
   */
  async debit(trx: Trx, posting: Posting & { id?: string }): Promise<LedgerEntry | null> {
    const { rows } = await sql<
      Selectable<WalletLedgerTable>
    >`with ${this.debitCtes(posting)} select * from debit_entry`.execute(trx);
    return rows[0] ? toEntry(rows[0]) : null;
  }

  /**
   * The debit of `debit` as two common table expressions, `debited` (the wallet row's new
   * balance) and `debit_entry` (the ledger row), for a caller's larger statement: both are empty
   * when the balance is short, the wallet has no row, or `onlyIf` (an SQL condition) is false.
   * The row lock is held from this update to the commit; in an autocommit statement that is no
   * round trip at all.
   */
  debitCtes(posting: Posting & { id?: string }, onlyIf: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
    if (!Number.isSafeInteger(posting.amountCents) || posting.amountCents >= 0) {
      throw new RangeError(`A debit must be a negative whole number of cents, got ${posting.amountCents}`);
    }
    const now = this.#clock();
    const id = posting.id ?? newId('wle', now.getTime());
    const amount = -posting.amountCents;
    // Under READ COMMITTED a concurrent debit makes this update wait for the row and re-check
    // `balance_cents >= amount` on the committed balance: the wallet never goes negative (and the
    // check constraint stands behind it).
    return sql`debited as (
        update wallets set balance_cents = balance_cents - ${amount}::bigint, updated_at = ${now}::timestamptz
        where reseller_id = ${posting.resellerId} and mode = ${posting.mode} and balance_cents >= ${amount}::bigint and ${onlyIf}
        returning balance_cents
      ),
      debit_entry as (
        insert into wallet_ledger (id, reseller_id, mode, kind, amount_cents, balance_after_cents, order_id, reference, created_at)
        select ${id}::text, ${posting.resellerId}::text, ${posting.mode}::text, ${posting.kind}::text, ${posting.amountCents}::bigint,
          debited.balance_cents, ${posting.orderId ?? null}::text, ${posting.reference ?? null}::text, ${now}::timestamptz
        from debited
        returning *
      )`;
  }

  /** A ledger entry id made now (for a debit whose id is written elsewhere before the debit itself). */
  newEntryId(at: Date = this.#clock()): string {
    return newId('wle', at.getTime());
  }

  async balance(resellerId: string, mode: Mode): Promise<number> {
    const row = await this.#db
      .selectFrom('wallets')
      .select('balance_cents')
      .where('reseller_id', '=', resellerId)
      .where('mode', '=', mode)
      .executeTakeFirst();
    return row?.balance_cents ?? 0;
  }

  /** Balance and one page of the ledger, newest first. */
  async statement(
    resellerId: string,
    mode: Mode,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<{ balanceCents: number; currency: 'EUR'; entries: ListEnvelope<LedgerEntry> }> {
    const page = resolvePage(this.#cursors, 'wallet_ledger', query);
    const rows = await newestFirst(
      this.#db.selectFrom('wallet_ledger').selectAll().where('reseller_id', '=', resellerId).where('mode', '=', mode),
      page,
    );
    const entries = listEnvelope(
      this.#cursors,
      'wallet_ledger',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      toEntry,
    );
    return { balanceCents: await this.balance(resellerId, mode), currency: 'EUR', entries };
  }

  async #lockBalance(trx: Trx, resellerId: string, mode: Mode): Promise<number> {
    await trx
      .insertInto('wallets')
      .values({ reseller_id: resellerId, mode, balance_cents: 0 })
      .onConflict((oc) => oc.columns(['reseller_id', 'mode']).doNothing())
      .execute();
    const row = await trx
      .selectFrom('wallets')
      .select('balance_cents')
      .where('reseller_id', '=', resellerId)
      .where('mode', '=', mode)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new Refusal('not_found', `No reseller with id '${resellerId}'.`);
    return row.balance_cents;
  }
}

export function toEntry(row: Selectable<WalletLedgerTable>): LedgerEntry {
  return {
    id: row.id,
    kind: row.kind,
    amountCents: row.amount_cents,
    balanceAfterCents: row.balance_after_cents,
    orderId: row.order_id,
    reference: row.reference,
    createdAt: row.created_at.toISOString(),
  };
}
