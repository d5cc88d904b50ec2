import type { EventType, OrderState, OrderStatus } from './order-states.ts';

/**
 * Every legal move of an order, and nothing else. Each transition names the (state, status)
 * pairs it leaves from, the pair it arrives at, and the event it emits. `applyTransition` is
 * the only way an order changes state: an illegal move is impossible by construction.
 */
export const TRANSITIONS = {
  /** A line has no usable file yet, or needs the manual conversion step. */
  await_file: { from: [['NEW', 'PENDING']], to: ['AWAITING_FILE', 'PENDING'], event: 'order.file_problem' },
  /** Not enough balance and no saved card (retried after a top-up). */
  await_funds: {
    from: [
      ['NEW', 'PENDING'],
      ['AWAITING_FILE', 'PENDING'],
    ],
    to: ['AWAITING_FUNDS', 'PENDING'],
    event: 'order.awaiting_funds',
  },
  /** The saved card was declined. */
  fail_payment: {
    from: [
      ['NEW', 'PENDING'],
      ['AWAITING_FILE', 'PENDING'],
      ['AWAITING_FUNDS', 'PENDING'],
    ],
    to: ['PAYMENT_FAILED', 'PENDING'],
    event: 'order.payment_failed',
  },
  /** Paid (wallet, card, or a sandbox order that is never charged) and handed to production. */
  submit: {
    from: [
      ['NEW', 'PENDING'],
      ['AWAITING_FILE', 'PENDING'],
      ['AWAITING_FUNDS', 'PENDING'],
      ['PAYMENT_FAILED', 'PENDING'],
    ],
    to: ['SUBMITTED', 'PAID'],
    event: 'order.submitted',
  },
  /** Cancelled before payment. */
  cancel_unpaid: {
    from: [
      ['AWAITING_FILE', 'PENDING'],
      ['AWAITING_FUNDS', 'PENDING'],
      ['PAYMENT_FAILED', 'PENDING'],
    ],
    to: ['CANCELLED', 'CANCELLED'],
    event: 'order.cancelled',
  },
  /** Cancelled after payment, before production started: the money goes back. */
  cancel_paid: { from: [['SUBMITTED', 'PAID']], to: ['CANCELLED', 'REFUNDED'], event: 'order.cancelled' },
  start_production: { from: [['SUBMITTED', 'PAID']], to: ['SUBMITTED', 'PROCESSING'], event: 'order.in_production' },
  print: { from: [['SUBMITTED', 'PROCESSING']], to: ['SUBMITTED', 'PRINTING'], event: null },
  ship: {
    from: [
      ['SUBMITTED', 'PROCESSING'],
      ['SUBMITTED', 'PRINTING'],
    ],
    to: ['SUBMITTED', 'SHIPPED'],
    event: 'order.shipped',
  },
  deliver: { from: [['SUBMITTED', 'SHIPPED']], to: ['SUBMITTED', 'DELIVERED'], event: 'order.delivered' },
} as const satisfies Record<
  string,
  {
    from: ReadonlyArray<readonly [OrderState | 'NEW', OrderStatus]>;
    to: readonly [OrderState, OrderStatus];
    event: EventType | null;
  }
>;

export type TransitionName = keyof typeof TRANSITIONS;

export interface Position {
  state: OrderState | 'NEW';
  status: OrderStatus;
}

export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  readonly transition: TransitionName;
  readonly position: Position;
  constructor(transition: TransitionName, position: Position) {
    super(`An order in state ${position.state} with status ${position.status} cannot ${transition.replace(/_/g, ' ')}`);
    this.transition = transition;
    this.position = position;
  }
}

/** The position after `transition`, and its event; throws IllegalTransitionError when it does not apply. */
export function applyTransition(
  position: Position,
  transition: TransitionName,
): { state: OrderState; status: OrderStatus; event: EventType | null } {
  const t = TRANSITIONS[transition];
  const legal = t.from.some(([state, status]) => state === position.state && status === position.status);
  if (!legal) throw new IllegalTransitionError(transition, position);
  return { state: t.to[0], status: t.to[1], event: t.event };
}

/** Which transition a production report (`PROCESSING`, `PRINTING`, …) means. */
export const PRODUCTION_TRANSITIONS: Partial<Record<OrderStatus, TransitionName>> = {
  PROCESSING: 'start_production',
  PRINTING: 'print',
  SHIPPED: 'ship',
  DELIVERED: 'deliver',
};

/** Production has not started: the order may still be cancelled. */
export function isCancellable(position: Position): boolean {
  return position.status === 'PENDING' || (position.state === 'SUBMITTED' && position.status === 'PAID');
}
