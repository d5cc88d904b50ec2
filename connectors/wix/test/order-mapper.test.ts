import assert from 'node:assert/strict';
import { ConnectorError } from '@print-api/connector-kit';
import { mapWixOrder } from '../src/order-mapper.ts';
import { trackingInfo } from '../src/shipment-push.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };

const order = (over: Record<string, unknown> = {}) => ({ ...structuredClone(orderFixture), ...over });

describe('Wix order mapping', () => {
  it('maps the documented order: lines from lineItems (physicalProperties.sku, quantity), recipient from the shipping destination, email from buyerInfo', () => {
    assert.deepEqual(mapWixOrder(order()), {
      externalId: 'a1b2c3d4-1111-4222-8333-444455556666',
      name: '#10042',
      paid: true,
      cancelled: false,
      createdAt: '2026-01-01T10:00:00.000Z',
      updatedAt: '2026-01-01T10:00:05.000Z',
      lines: [{ externalLineId: '00000000-0000-0000-0000-000000000001', sku: 'POSTER-TULIPS', quantity: 2, title: 'Tulip poster A2', externalProductId: 'df19c1f7-07d8-a265-42f8-e8dfa824cc6e', externalVariantId: '00000000-0000-0000-0000-000000000000' }],
      recipient: { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '+15555550100', address1: '1 Main St', address2: 'Apt 2', postalCode: '10001', city: 'New York', country: 'US' },
    });
  });

  it('is paid only when APPROVED and PAID: an offline payment is approved but NOT_PAID', () => {
    assert.equal(mapWixOrder(order({ paymentStatus: 'NOT_PAID' })).paid, false);
    assert.equal(mapWixOrder(order({ status: 'PENDING' })).paid, false);
    assert.equal(mapWixOrder(order({ paymentStatus: 'PARTIALLY_PAID' })).paid, false);
    const cancelled = mapWixOrder(order({ status: 'CANCELED' }));
    assert.deepEqual([cancelled.paid, cancelled.cancelled], [false, true]);
  });

  it('keeps lines without a SKU as non-print lines, drops zero quantities, reads the SDK names (_id, _createdDate)', () => {
    const base = orderFixture.lineItems[0]!;
    const o = order({ lineItems: [{ ...base, id: 'l1', physicalProperties: { sku: null } }, { ...base, id: 'l2', physicalProperties: undefined }, { ...base, id: 'l3', quantity: 0 }, { ...base, id: 'l4', physicalProperties: { sku: '  POSTER-TULIPS ' } }] });
    const { id, createdDate, updatedDate, ...rest } = o;
    const mapped = mapWixOrder({ ...rest, _id: id, _createdDate: createdDate, _updatedDate: updatedDate });
    assert.equal(mapped.externalId, id);
    assert.deepEqual(mapped.lines.map((l) => [l.externalLineId, l.sku]), [['l1', null], ['l2', null], ['l4', 'POSTER-TULIPS']]);
  });

  it('reads a structured street address, falls back to recipientInfo, and has no recipient without a street', () => {
    const destination = { address: { country: 'nl', city: 'Utrecht', postalCode: '3511 AZ', streetAddress: { number: '140', name: 'Oudegracht', apt: '2' } }, contactDetails: { firstName: 'Sanne', lastName: 'Bakker' } };
    const r = mapWixOrder(order({ shippingInfo: { logistics: { shippingDestination: destination } }, buyerInfo: {} })).recipient!;
    assert.deepEqual(r, { name: 'Sanne Bakker', address1: 'Oudegracht 140', address2: '2', postalCode: '3511 AZ', city: 'Utrecht', country: 'NL' });
    assert.equal(mapWixOrder(order({ shippingInfo: undefined, recipientInfo: destination })).recipient!.address1, 'Oudegracht 140');
    assert.equal(mapWixOrder(order({ shippingInfo: { logistics: { shippingDestination: { address: { country: 'NL' } } } } })).recipient, null);
  });

  it('names the failing field of an order of the wrong shape', () => {
    assert.throws(() => mapWixOrder(order({ lineItems: [{ id: 'l1', quantity: 'two' }] })), (err: unknown) => err instanceof ConnectorError && err.kind === 'invalid_payload' && /lineItems\[0\]\.quantity/.test(err.message));
  });
});

describe('Wix tracking info', () => {
  const s = { trackingNumber: '1Z999AA10123456784', trackingUrl: 'https://track.example/1Z' };
  it("names Wix's own providers (fedex, ups, usps, dhl, canadaPost)", () => {
    assert.equal(trackingInfo({ ...s, carrier: 'UPS' }).shippingProvider, 'ups');
    assert.equal(trackingInfo({ ...s, carrier: 'FedEx' }).shippingProvider, 'fedex');
    assert.equal(trackingInfo({ ...s, carrier: 'DHL Express' }).shippingProvider, 'dhl');
    assert.equal(trackingInfo({ ...s, carrier: 'Canada Post' }).shippingProvider, 'canadaPost');
    assert.equal(trackingInfo({ ...s, carrier: 'USPS' }).shippingProvider, 'usps');
  });
  it('sends any other carrier as a custom provider with its tracking link, and refuses one without a link', () => {
    assert.deepEqual(trackingInfo({ ...s, carrier: 'PostNL' }), { trackingNumber: s.trackingNumber, shippingProvider: 'PostNL', trackingLink: s.trackingUrl });
    assert.throws(() => trackingInfo({ ...s, trackingUrl: '', carrier: 'PostNL' }), /tracking link/);
  });
});
