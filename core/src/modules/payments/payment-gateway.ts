/**
 * The card gateway port. Adapters: the sandbox (`sandbox-gateway.ts`) and Stripe.
 *
 * @example
 * const card = await gateway.saveCard({ token: 'tok_visa', resellerId });
 * const result = await gateway.charge({ paymentMethod: card.paymentMethod, amountCents: 1250, idempotencyKey:
 * `order:${orderId}`, description: 'Order ord_…' });
 */
export interface PaymentGateway {
  readonly name: string;
  /** Turns a client-side token into a reusable payment method reference. */
  saveCard(input: { token: string; resellerId: string; email: string }): Promise<SavedCard>;
  /** Charges off-session. The idempotency key makes a retried charge a no-op at the gateway. */
  charge(input: {
    paymentMethod: string;
    customer?: string | null;
    amountCents: number;
    idempotencyKey: string;
    description: string;
  }): Promise<ChargeResult>;
  /** Refunds a charge (cancelled card-paid orders). */
  refund(input: { chargeId: string; amountCents: number; idempotencyKey: string }): Promise<{ refundId: string }>;
}

export interface SavedCard {
  paymentMethod: string;
  customer: string | null;
  brand: string | null;
  last4: string | null;
}

export type ChargeResult = { ok: true; chargeId: string } | { ok: false; declineCode: string; message: string };

/** The card cannot be saved (an unknown or invalid token): the back-office answers 422. */
export class CardRejectedError extends Error {
  override name = 'CardRejectedError';
}
