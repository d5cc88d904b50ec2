import type { Transaction, Updateable } from 'kysely';
import type { Logger } from '../../infra/logger.ts';
import type { Outbox } from '../events/outbox.ts';
import type { CardsService } from '../payments/cards-service.ts';
import type { Db, Tables } from '../tables.ts';
import type { Posting, WalletService } from '../wallet/wallet-service.ts';
import type { TransitionName } from './order-transitions.ts';
import { writeTransition } from './order-writer.ts';
import type { OrdersTable } from './orders-tables.ts';

type Trx = Transaction<Tables>;

/** How an order with every file in place gets paid, decided inside its transaction. */
export interface PaymentDecision {
  transition: TransitionName | null;
  patch: Updateable<OrdersTable>;
  /** A card charge must run after the commit (the order exists first, so no charge is ever without an order). */
  chargeCard: boolean;
}

/**
 * Payment of orders: wallet first, then the saved card, else waiting for funds. Test orders
 * are never charged. Card charges run outside the transaction with the order id as the
 * gateway's idempotency key, so a retry after a crash never charges twice.
 */
export class OrderPayments {
  readonly #db: Db;
  readonly #wallet: WalletService;
  readonly #cards: CardsService;
  readonly #outbox: Outbox;
  readonly #logger: Logger;
  readonly #onSubmitted: (orderId: string) => void;

  constructor(deps: {
    db: Db;
    wallet: WalletService;
    cards: CardsService;
    outbox: Outbox;
    logger: Logger;
    onSubmitted: (orderId: string) => void;
  }) {
    this.#db = deps.db;
    this.#wallet = deps.wallet;
    this.#cards = deps.cards;
    this.#outbox = deps.outbox;
    this.#logger = deps.logger;
    this.#onSubmitted = deps.onSubmitted;
  }

  /** Sandbox orders and free ones are never charged. */
  neverCharged(order: { mode: 'live' | 'test'; total_cents: number }): boolean {
    return order.mode === 'test' || order.total_cents === 0;
  }

  notChargedPatch(at: Date): { payment_status: 'not_charged'; paid_at: Date } {
    return { payment_status: 'not_charged', paid_at: at };
  }

  /** The wallet posting that pays an order (`id`: the ledger entry's id, known before it is written). */
  orderDebit(
    order: { id: string; reseller_id: string; mode: 'live' | 'test'; total_cents: number },
    id?: string,
  ): Posting & { id?: string } {
    return {
      resellerId: order.reseller_id,
      mode: order.mode,
      kind: 'order_payment',
      amountCents: -order.total_cents,
      orderId: order.id,
      reference: `Order ${order.id}`,
      ...(id ? { id } : {}),
    };
  }

  /**
   * Wallet, else card, else waiting for funds. The wallet row stays locked to the commit also
   * when the balance is short, so a concurrent top-up commits after this order and its release
   * of orders awaiting funds sees it.
   */
  async decide(
    trx: Trx,
    order: { id: string; reseller_id: string; mode: 'live' | 'test'; total_cents: number; state: string },
    at: Date,
  ): Promise<PaymentDecision> {
    if (this.neverCharged(order)) {
      return { transition: 'submit', patch: this.notChargedPatch(at), chargeCard: false };
    }
    const debit = await this.#wallet.post(trx, this.orderDebit(order));
    if (debit) {
      return {
        transition: 'submit',
        patch: { payment_method: 'wallet', payment_status: 'paid', payment_reference: debit.id, paid_at: at },
        chargeCard: false,
      };
    }
    if (await this.#cards.chargeableCard(order.reseller_id, trx)) {
      return { transition: null, patch: { payment_method: 'card', payment_status: 'charging' }, chargeCard: true };
    }
    return {
      transition: order.state === 'AWAITING_FUNDS' ? null : 'await_funds',
      patch: { payment_status: 'none' },
      chargeCard: false,
    };
  }

  /** After commit: what the decision left to do. */
  async afterCommit(orderId: string, decision: PaymentDecision | undefined): Promise<void> {
    this.#outbox.notify();
    if (decision?.transition === 'submit') this.#onSubmitted(orderId);
    if (decision?.chargeCard) {
      try {
        await this.chargeCard(orderId);
      } catch (err) {
        // The order stays `charging`; recoverInterruptedCharges finishes it with the same idempotency key.
        this.#logger.warn('card charge failed; will be retried', { orderId, error: (err as Error).message });
      }
    }
  }

  /** Charges the saved card for an order marked `charging`, then records the outcome. */
  async chargeCard(orderId: string): Promise<void> {
    const order = await this.#db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
    if (!order || order.payment_status !== 'charging') return;
    const card = await this.#cards.chargeableCard(order.reseller_id);
    const result = card
      ? await this.#cards.gateway.charge({
          paymentMethod: card.paymentMethod,
          customer: card.customer,
          amountCents: order.total_cents,
          idempotencyKey: `order:${order.id}`,
          description: `Print order ${order.id}`,
        })
      : ({ ok: false, declineCode: 'no_card', message: 'No saved card.' } as const);
    const submitted = await this.#db.transaction().execute(async (trx) => {
      const locked = await trx
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', orderId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (locked.payment_status !== 'charging') return false;
      const at = new Date();
      if (result.ok) {
        await writeTransition(
          trx,
          this.#outbox,
          locked,
          'submit',
          { payment_status: 'paid', payment_reference: result.chargeId, paid_at: at },
          at,
        );
        return true;
      }
      await writeTransition(
        trx,
        this.#outbox,
        locked,
        'fail_payment',
        { payment_status: 'declined', payment_error: `${result.declineCode}: ${result.message}` },
        at,
      );
      return false;
    });
    this.#outbox.notify();
    if (submitted) this.#onSubmitted(orderId);
  }

  /** After a top-up: pays orders waiting for funds, oldest first, until the balance runs out. */
  async releaseAwaitingFunds(resellerId: string, mode: 'live' | 'test'): Promise<number> {
    let released = 0;
    for (;;) {
      const next = await this.#db
        .selectFrom('orders')
        .select('id')
        .where('reseller_id', '=', resellerId)
        .where('mode', '=', mode)
        .where('state', '=', 'AWAITING_FUNDS')
        .where('payment_status', '=', 'none')
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (!next) return released;
      const decision = await this.#db.transaction().execute(async (trx) => {
        const order = await trx
          .selectFrom('orders')
          .selectAll()
          .where('id', '=', next.id)
          .forUpdate()
          .executeTakeFirstOrThrow();
        if (order.state !== 'AWAITING_FUNDS' || order.payment_status !== 'none') return undefined;
        const at = new Date();
        const d = await this.decide(trx, order, at);
        if (d.transition) await writeTransition(trx, this.#outbox, order, d.transition, d.patch, at);
        else if (d.chargeCard)
          await trx
            .updateTable('orders')
            .set({ ...d.patch, updated_at: at })
            .where('id', '=', order.id)
            .execute();
        return d;
      });
      if (decision === undefined) continue;
      if (!decision.transition && !decision.chargeCard) return released;
      released++;
      await this.afterCommit(next.id, decision);
    }
  }

  /** Finishes card charges left `charging` by a crash (the gateway's idempotency key makes this safe). */
  async recoverInterruptedCharges(olderThanMs: number): Promise<number> {
    const stuck = await this.#db
      .selectFrom('orders')
      .select('id')
      .where('payment_status', '=', 'charging')
      .where('updated_at', '<', new Date(Date.now() - olderThanMs))
      .orderBy('updated_at')
      .limit(100)
      .execute();
    for (const { id } of stuck) {
      try {
        await this.chargeCard(id);
      } catch (err) {
        this.#logger.warn('card charge recovery failed; will retry', { orderId: id, error: (err as Error).message });
      }
    }
    return stuck.length;
  }
}
