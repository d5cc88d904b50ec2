import { randomToken } from '../../infra/ids.ts';
import { CardRejectedError, type ChargeResult, type PaymentGateway, type SavedCard } from './payment-gateway.ts';

const CARDS: Record<string, { brand: string; last4: string; declines: boolean }> = {
  tok_visa: { brand: 'visa', last4: '4242', declines: false },
  tok_mastercard: { brand: 'mastercard', last4: '4444', declines: false },
  tok_chargeDeclined: { brand: 'visa', last4: '0341', declines: true },
};

/**
 * A gateway without a network: `tok_visa` charges succeed, `tok_chargeDeclined` charges are
 * declined, like Stripe's test tokens. Charges are idempotent per key.
 */
export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox';
  readonly #charges = new Map<string, ChargeResult>();

  async saveCard(input: { token: string }): Promise<SavedCard> {
    const card = CARDS[input.token];
    // Never echoed: what was pasted as a "token" may be a card number.
    if (!card) throw new CardRejectedError(`Unknown sandbox card token: use one of ${Object.keys(CARDS).join(', ')}.`);
    return {
      paymentMethod: `pm_sandbox_${input.token.slice(4)}`,
      customer: null,
      brand: card.brand,
      last4: card.last4,
    };
  }

  async charge(input: { paymentMethod: string; amountCents: number; idempotencyKey: string }): Promise<ChargeResult> {
    const previous = this.#charges.get(input.idempotencyKey);
    if (previous) return previous;
    const token = `tok_${input.paymentMethod.replace(/^pm_sandbox_/, '')}`;
    const result: ChargeResult = CARDS[token]?.declines
      ? { ok: false, declineCode: 'card_declined', message: 'Your card was declined.' }
      : { ok: true, chargeId: `ch_sandbox_${randomToken(12)}` };
    this.#charges.set(input.idempotencyKey, result);
    return result;
  }

  async refund(): Promise<{ refundId: string }> {
    return { refundId: `re_sandbox_${randomToken(12)}` };
  }
}
