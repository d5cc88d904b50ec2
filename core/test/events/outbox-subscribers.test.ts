import { expect } from 'chai';
import { Outbox, type EventEnvelope } from '../../src/modules/events/outbox.ts';

const event = (type: string): EventEnvelope => ({
  id: `evt_${type}`,
  type,
  createdAt: new Date().toISOString(),
  testMode: true,
  data: {},
});

describe('outbox subscribers', () => {
  it('hands a subscriber the committed events of its type only, and nothing for a write without them', () => {
    const outbox = new Outbox();
    const told: EventEnvelope[][] = [];
    let written = 0;
    outbox.subscribe('order.shipped', (events) => told.push(events));
    outbox.onWritten(() => written++);
    // An unrelated write (the listeners look for pending work; no subscriber is told).
    outbox.notify();
    outbox.notify([event('order.created')]);
    expect(told).to.deep.equal([]);
    expect(written).to.equal(1);
    outbox.notify([event('order.in_production'), event('order.shipped')]);
    expect(told.map((events) => events.map((e) => e.type))).to.deep.equal([['order.shipped']]);
  });
});
