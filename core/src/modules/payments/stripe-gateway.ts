import Stripe from 'stripe';
import { CardRejectedError, type ChargeResult, type PaymentGateway, type SavedCard } from './payment-gateway.ts';

/**
 * Cards through Stripe: the token becomes a PaymentMethod attached to a Customer; orders are
 * charged off-session with a confirmed PaymentIntent whose idempotency key is the order's, so
 * a retried charge is answered with the first one.
 */
export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe';
  readonly #stripe: Stripe;

  constructor(opts: { secretKey: string; client?: Stripe }) {
    this.#stripe =
      opts.client ??
      new Stripe(opts.secretKey, { maxNetworkRetries: 2, timeout: 20_000, appInfo: { name: 'print-api' } });
  }

  async saveCard(input: { token: string; resellerId: string; email: string }): Promise<SavedCard> {
    try {
      const customer = await this.#stripe.customers.create({
        email: input.email,
        metadata: { resellerId: input.resellerId },
      });
      const method = await this.#stripe.paymentMethods.create({ type: 'card', card: { token: input.token } });
      await this.#stripe.paymentMethods.attach(method.id, { customer: customer.id });
      return {
        paymentMethod: method.id,
        customer: customer.id,
        brand: method.card?.brand ?? null,
        last4: method.card?.last4 ?? null,
      };
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError || err instanceof Stripe.errors.StripeInvalidRequestError) {
        // Stripe's message quotes the token ("No such token: '...'"), which may be a pasted card number: never echo it.
        throw new CardRejectedError(err.message.split(input.token).join('(the token)'));
      }
      throw err;
    }
  }

  async charge(input: {
    paymentMethod: string;
    customer?: string | null;
    amountCents: number;
    idempotencyKey: string;
    description: string;
  }): Promise<ChargeResult> {
    try {
      const intent = await this.#stripe.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: 'eur',
          payment_method: input.paymentMethod,
          ...(input.customer ? { customer: input.customer } : {}),
          off_session: true,
          confirm: true,
          description: input.description,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      if (intent.status === 'succeeded') return { ok: true, chargeId: intent.id };
      return {
        ok: false,
        declineCode: intent.status,
        message: `The payment needs action (${intent.status}); charge it again after the card is confirmed.`,
      };
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) {
        return { ok: false, declineCode: err.decline_code ?? err.code ?? 'card_declined', message: err.message };
      }
      throw err;
    }
  }

  async refund(input: {
    chargeId: string;
    amountCents: number;
    idempotencyKey: string;
  }): Promise<{ refundId: string }> {
    const refund = await this.#stripe.refunds.create(
      { payment_intent: input.chargeId, amount: input.amountCents },
      { idempotencyKey: input.idempotencyKey },
    );
    return { refundId: refund.id };
  }
}
