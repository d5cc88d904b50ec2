import assert from 'node:assert/strict';
import { ConnectorError } from '@print-api/connector-kit';
import { toStoreOrder } from '../src/order-mapper.ts';
import { FakeShopwareShop, hexId, state } from './fake-shopware-shop.ts';
import { lineItem, saveOrder } from './fake-shopware.ts';

/** An order as the fake holds it (every association loaded), from the same builder the e2e tests use. */
function order(over: Parameters<typeof saveOrder>[1] extends infer S ? Partial<S> : never = {}) {
  const shop = new FakeShopwareShop('https://shop.example');
  return saveOrder(shop, {
    id: hexId(),
    paid: true,
    lines: [{ sku: 'POSTER-TULIPS', quantity: 2 }],
    updatedAt: '2026-11-28T10:00:00Z',
    ...over,
  });
}

describe('Shopware order mapping', () => {
  it('maps a paid order: product lines by product number, the recipient from the delivery address', () => {
    const raw = order({
      lines: [
        { sku: 'POSTER-TULIPS', quantity: 2 },
        { sku: null, quantity: 1 },
      ],
    });
    raw.lineItems.push({ ...lineItem(raw.id, null, 1, 5), type: 'promotion', payload: { code: 'TULIP' } });
    const o = toStoreOrder(raw);
    assert.equal(o.externalId, raw.id);
    assert.equal(o.name, raw.orderNumber);
    assert.equal(o.paid, true);
    assert.equal(o.cancelled, false);
    assert.deepEqual(
      o.lines.map((l) => [l.sku, l.quantity]),
      [
        ['POSTER-TULIPS', 2],
        [null, 1],
      ],
    );
    assert.deepEqual(o.recipient, {
      name: 'Giulia Bianchi',
      company: 'Studio Bianchi',
      email: 'giulia.bianchi@example.it',
      phone: '+39 02 1234 5678',
      address1: 'Via Torino 21',
      address2: 'Scala B',
      postalCode: '20123',
      city: 'Milano',
      state: 'MI',
      country: 'IT',
    });
  });

  it('takes the latest transaction as the payment, and the newest time of the order and its transactions', () => {
    const raw = order({ paid: false });
    raw.transactions.push({
      ...raw.transactions[0],
      id: hexId(),
      createdAt: '2026-11-28T10:05:00.000+00:00',
      updatedAt: '2026-11-28T10:07:00.000+00:00',
      stateMachineState: state('paid'),
    });
    const o = toStoreOrder(raw);
    assert.equal(o.paid, true);
    assert.equal(o.updatedAt, '2026-11-28T10:07:00.000Z');
    raw.transactions[1].stateMachineState = state('paid_partially');
    assert.equal(toStoreOrder(raw).paid, false);
  });

  it('reads a cancelled order, a state without prefix, and an order without a shipping address', () => {
    const raw = order({ cancelled: true });
    raw.deliveries[0].shippingOrderAddress.countryState = { id: hexId(), shortCode: 'MI', countryId: hexId() };
    const o = toStoreOrder(raw);
    assert.equal(o.cancelled, true);
    assert.equal(o.recipient?.state, 'MI');
    assert.equal(toStoreOrder(order({ address: null })).recipient, null);
  });

  it('refuses an order of the wrong shape as invalid_payload, naming the field', () => {
    const raw = order();
    raw.lineItems[0].quantity = '2';
    assert.throws(
      () => toStoreOrder(raw),
      (err: unknown) =>
        err instanceof ConnectorError && err.kind === 'invalid_payload' && /lineItems\[0\]\.quantity/.test(err.message),
    );
  });
});
