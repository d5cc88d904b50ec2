import { expect } from 'chai';
import { ORDER_STATES, ORDER_STATUSES } from '../../src/modules/orders/order-states.ts';
import {
  applyTransition,
  IllegalTransitionError,
  isCancellable,
  TRANSITIONS,
  type Position,
  type TransitionName,
} from '../../src/modules/orders/order-transitions.ts';

const ALL_POSITIONS: Position[] = [
  { state: 'NEW', status: 'PENDING' },
  ...ORDER_STATES.flatMap((state) => ORDER_STATUSES.map((status) => ({ state, status }))),
];

describe('order transition table', () => {
  const expected: Array<[TransitionName, Position, string, string, string | null]> = [
    ['await_file', { state: 'NEW', status: 'PENDING' }, 'AWAITING_FILE', 'PENDING', 'order.file_problem'],
    ['await_funds', { state: 'NEW', status: 'PENDING' }, 'AWAITING_FUNDS', 'PENDING', 'order.awaiting_funds'],
    ['await_funds', { state: 'AWAITING_FILE', status: 'PENDING' }, 'AWAITING_FUNDS', 'PENDING', 'order.awaiting_funds'],
    ['fail_payment', { state: 'NEW', status: 'PENDING' }, 'PAYMENT_FAILED', 'PENDING', 'order.payment_failed'],
    [
      'fail_payment',
      { state: 'AWAITING_FUNDS', status: 'PENDING' },
      'PAYMENT_FAILED',
      'PENDING',
      'order.payment_failed',
    ],
    ['submit', { state: 'NEW', status: 'PENDING' }, 'SUBMITTED', 'PAID', 'order.submitted'],
    ['submit', { state: 'AWAITING_FUNDS', status: 'PENDING' }, 'SUBMITTED', 'PAID', 'order.submitted'],
    ['submit', { state: 'AWAITING_FILE', status: 'PENDING' }, 'SUBMITTED', 'PAID', 'order.submitted'],
    ['cancel_unpaid', { state: 'AWAITING_FUNDS', status: 'PENDING' }, 'CANCELLED', 'CANCELLED', 'order.cancelled'],
    ['cancel_unpaid', { state: 'PAYMENT_FAILED', status: 'PENDING' }, 'CANCELLED', 'CANCELLED', 'order.cancelled'],
    ['cancel_paid', { state: 'SUBMITTED', status: 'PAID' }, 'CANCELLED', 'REFUNDED', 'order.cancelled'],
    ['start_production', { state: 'SUBMITTED', status: 'PAID' }, 'SUBMITTED', 'PROCESSING', 'order.in_production'],
    ['print', { state: 'SUBMITTED', status: 'PROCESSING' }, 'SUBMITTED', 'PRINTING', null],
    ['ship', { state: 'SUBMITTED', status: 'PRINTING' }, 'SUBMITTED', 'SHIPPED', 'order.shipped'],
    ['ship', { state: 'SUBMITTED', status: 'PROCESSING' }, 'SUBMITTED', 'SHIPPED', 'order.shipped'],
    ['deliver', { state: 'SUBMITTED', status: 'SHIPPED' }, 'SUBMITTED', 'DELIVERED', 'order.delivered'],
  ];
  for (const [name, from, state, status, event] of expected) {
    it(`${name}: ${from.state}/${from.status} -> ${state}/${status} emits ${event ?? 'nothing'}`, () => {
      expect(applyTransition(from, name)).to.deep.equal({ state, status, event });
    });
  }

  it('refuses every move the table does not list, from every position', () => {
    let legal = 0;
    let illegal = 0;
    for (const name of Object.keys(TRANSITIONS) as TransitionName[]) {
      const from = TRANSITIONS[name].from as ReadonlyArray<readonly [string, string]>;
      for (const position of ALL_POSITIONS) {
        const listed = from.some(([s, st]) => s === position.state && st === position.status);
        if (listed) {
          expect(() => applyTransition(position, name)).not.to.throw();
          legal++;
        } else {
          expect(() => applyTransition(position, name), `${name} from ${position.state}/${position.status}`).to.throw(
            IllegalTransitionError,
          );
          illegal++;
        }
      }
    }
    expect(legal).to.equal(Object.values(TRANSITIONS).reduce((n, t) => n + t.from.length, 0));
    expect(illegal).to.be.greaterThan(300);
  });

  it('never leaves CANCELLED, and never goes back from DELIVERED', () => {
    for (const name of Object.keys(TRANSITIONS) as TransitionName[]) {
      for (const status of ORDER_STATUSES)
        expect(() => applyTransition({ state: 'CANCELLED', status }, name)).to.throw(IllegalTransitionError);
      expect(() => applyTransition({ state: 'SUBMITTED', status: 'DELIVERED' }, name)).to.throw(IllegalTransitionError);
    }
  });

  it('allows cancelling only before production', () => {
    expect(isCancellable({ state: 'AWAITING_FUNDS', status: 'PENDING' })).to.equal(true);
    expect(isCancellable({ state: 'SUBMITTED', status: 'PAID' })).to.equal(true);
    for (const status of ['PROCESSING', 'PRINTING', 'SHIPPED', 'DELIVERED'] as const) {
      expect(isCancellable({ state: 'SUBMITTED', status })).to.equal(false);
    }
  });
});
