import { rejected } from '../../kernel/refusal.ts';
import { withAudit, type AuditHook } from '../audit/audit-log.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import type { Db } from '../tables.ts';
import { CardRejectedError, type PaymentGateway } from './payment-gateway.ts';

export interface CardView {
  gateway: string;
  brand: string | null;
  last4: string | null;
  createdAt: string;
}

export interface ChargeableCard {
  paymentMethod: string;
  customer: string | null;
}

/** The reseller's saved card. The gateway reference is sealed at rest; only brand and last4 are shown. */
export class CardsService {
  readonly #db: Db;
  readonly #gateway: PaymentGateway;
  readonly #box: SecretBox;

  constructor(deps: { db: Db; gateway: PaymentGateway; box: SecretBox }) {
    this.#db = deps.db;
    this.#gateway = deps.gateway;
    this.#box = deps.box;
  }

  get gateway(): PaymentGateway {
    return this.#gateway;
  }

  /**
   * Saves the card the gateway makes of `token`. The gateway call cannot join a transaction, so it comes first; the
   * card's row and its record (`audit`) are then written together: no card saved without its record, no record of a
   * card that was not saved.
   */
  async saveCard(resellerId: string, email: string, token: string, audit?: AuditHook<CardView>): Promise<CardView> {
    let saved;
    try {
      saved = await this.#gateway.saveCard({ token, resellerId, email });
    } catch (err) {
      if (err instanceof CardRejectedError)
        throw rejected('card_rejected', err.message, [{ field: 'token', code: 'card_rejected' }]);
      throw err;
    }
    const now = new Date();
    const values = {
      gateway: this.#gateway.name,
      payment_method_sealed: this.#box.sealJson({ paymentMethod: saved.paymentMethod, customer: saved.customer }),
      brand: saved.brand,
      last4: saved.last4,
      created_at: now,
    };
    return withAudit(this.#db, audit, async (db) => {
      await db
        .insertInto('cards')
        .values({ reseller_id: resellerId, ...values })
        .onConflict((oc) => oc.column('reseller_id').doUpdateSet(values))
        .execute();
      return { gateway: values.gateway, brand: saved.brand, last4: saved.last4, createdAt: now.toISOString() };
    });
  }

  /** The saved card; pass the open transaction when called inside one (PGlite has a single connection). */
  async chargeableCard(
    resellerId: string,
    executor: Pick<Db, 'selectFrom'> = this.#db,
  ): Promise<ChargeableCard | null> {
    const row = await executor
      .selectFrom('cards')
      .select('payment_method_sealed')
      .where('reseller_id', '=', resellerId)
      .executeTakeFirst();
    return row ? this.#box.openJson<ChargeableCard>(row.payment_method_sealed) : null;
  }
}
