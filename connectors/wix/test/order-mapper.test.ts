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
      lines: [
        {
          externalLineId: '00000000-0000-0000-0000-000000000001',
          sku: 'POSTER-TULIPS',
          quantity: 2,
          title: 'Tulip poster A2',
          externalProductId: 'df19c1f7-07d8-a265-42f8-e8dfa824cc6e',
          externalVariantId: '00000000-0000-0000-0000-000000000000',
        },
      ],
      recipient: {
        name: 'Ada Lovelace',
        email: 'ada.lovelace@example.com',
        phone: '+15555550100',
        address1: '1 Main St',
        address2: 'Apt 2',
        postalCode: '10001',
        city: 'New York',
        state: 'NY',
        country: 'US',
      },
    });
  });

  it('is paid only when APPROVED and PAID (or PARTIALLY_REFUNDED after paying): an offline payment is approved but NOT_PAID', () => {
    assert.equal(mapWixOrder(order({ paymentStatus: 'NOT_PAID' })).paid, false);
    assert.equal(mapWixOrder(order({ status: 'PENDING' })).paid, false);
    // Every status @wix/auto_sdk_ecom_orders lists: the money is the merchant's in PAID and PARTIALLY_REFUNDED only
    // (Shopify's policy).
    const statuses = {
      UNSPECIFIED: false,
      NOT_PAID: false,
      PAID: true,
      PARTIALLY_REFUNDED: true,
      FULLY_REFUNDED: false,
      PENDING: false,
      PARTIALLY_PAID: false,
      PENDING_MERCHANT: false,
      CANCELED: false,
      DECLINED: false,
    };
    for (const [paymentStatus, paid] of Object.entries(statuses))
      assert.equal(mapWixOrder(order({ paymentStatus })).paid, paid, paymentStatus);
    const cancelled = mapWixOrder(order({ status: 'CANCELED' }));
    assert.deepEqual([cancelled.paid, cancelled.cancelled], [false, true]);
  });

  it('prints what is still owed on a partially refunded order: each line less its refundQuantity, a wholly refunded line dropped', () => {
    const base = orderFixture.lineItems[0]!;
    const o = mapWixOrder(
      order({
        paymentStatus: 'PARTIALLY_REFUNDED',
        lineItems: [
          { ...base, id: 'l1', quantity: 3, refundQuantity: 1 },
          { ...base, id: 'l2', quantity: 2, refundQuantity: 2 },
          { ...base, id: 'l3', quantity: 1, refundQuantity: null },
        ],
      }),
    );
    assert.equal(o.paid, true);
    assert.deepEqual(
      o.lines.map((l) => [l.externalLineId, l.quantity]),
      [
        ['l1', 2],
        ['l3', 1],
      ],
    );
  });

  it("keeps an Italian order's province (subdivision IT-MI -> MI) and the company", () => {
    const destination = {
      address: {
        country: 'IT',
        subdivision: 'IT-MI',
        subdivisionFullname: 'Milano',
        city: 'Milano',
        postalCode: '20121',
        addressLine1: 'Via Torino 12',
      },
      contactDetails: {
        firstName: 'Giulia',
        lastName: 'Rossi',
        phone: '+39 02 1234567',
        company: 'Tipografia Rossi S.r.l.',
      },
    };
    const mapped = mapWixOrder(
      order({ shippingInfo: { title: 'Standard', logistics: { shippingDestination: destination } } }),
    );
    assert.deepEqual(mapped.recipient, {
      name: 'Giulia Rossi',
      company: 'Tipografia Rossi S.r.l.',
      email: 'ada.lovelace@example.com',
      phone: '+39 02 1234567',
      address1: 'Via Torino 12',
      postalCode: '20121',
      city: 'Milano',
      state: 'MI',
      country: 'IT',
    });
    // A subdivision Wix gives without the country prefix is kept; none is no state.
    const bare = mapWixOrder(
      order({
        shippingInfo: {
          logistics: {
            shippingDestination: { ...destination, address: { ...destination.address, subdivision: 'MI' } },
          },
        },
      }),
    );
    assert.equal(bare.recipient?.state, 'MI');
    const none = mapWixOrder(
      order({
        shippingInfo: {
          logistics: {
            shippingDestination: { ...destination, address: { ...destination.address, subdivision: null } },
          },
        },
      }),
    );
    assert.equal(none.recipient && 'state' in none.recipient, false);
  });

  it('keeps lines without a SKU as non-print lines, drops zero quantities, reads the SDK names (_id, _createdDate)', () => {
    const base = orderFixture.lineItems[0]!;
    const o = order({
      lineItems: [
        { ...base, id: 'l1', physicalProperties: { sku: null } },
        { ...base, id: 'l2', physicalProperties: undefined },
        { ...base, id: 'l3', quantity: 0 },
        { ...base, id: 'l4', physicalProperties: { sku: '  POSTER-TULIPS ' } },
      ],
    });
    const { id, createdDate, updatedDate, ...rest } = o;
    const mapped = mapWixOrder({ ...rest, _id: id, _createdDate: createdDate, _updatedDate: updatedDate });
    assert.equal(mapped.externalId, id);
    assert.deepEqual(
      mapped.lines.map((l) => [l.externalLineId, l.sku]),
      [
        ['l1', null],
        ['l2', null],
        ['l4', 'POSTER-TULIPS'],
      ],
    );
  });

  it('reads a structured street address, falls back to recipientInfo, and has no recipient without a street', () => {
    const destination = {
      address: {
        country: 'nl',
        city: 'Utrecht',
        postalCode: '3511 AZ',
        streetAddress: { number: '140', name: 'Oudegracht', apt: '2' },
      },
      contactDetails: { firstName: 'Sanne', lastName: 'Bakker' },
    };
    const r = mapWixOrder(order({ shippingInfo: { logistics: { shippingDestination: destination } }, buyerInfo: {} }))
      .recipient!;
    assert.deepEqual(r, {
      name: 'Sanne Bakker',
      address1: 'Oudegracht 140',
      address2: '2',
      postalCode: '3511 AZ',
      city: 'Utrecht',
      country: 'NL',
    });
    assert.equal(
      mapWixOrder(order({ shippingInfo: undefined, recipientInfo: destination })).recipient!.address1,
      'Oudegracht 140',
    );
    assert.equal(
      mapWixOrder(order({ shippingInfo: { logistics: { shippingDestination: { address: { country: 'NL' } } } } }))
        .recipient,
      null,
    );
  });

  it('names the failing field of an order of the wrong shape', () => {
    assert.throws(
      () => mapWixOrder(order({ lineItems: [{ id: 'l1', quantity: 'two' }] })),
      (err: unknown) =>
        err instanceof ConnectorError && err.kind === 'invalid_payload' && /lineItems\[0\]\.quantity/.test(err.message),
    );
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
    assert.deepEqual(trackingInfo({ ...s, carrier: 'PostNL' }), {
      trackingNumber: s.trackingNumber,
      shippingProvider: 'PostNL',
      trackingLink: s.trackingUrl,
    });
    assert.throws(() => trackingInfo({ ...s, trackingUrl: '', carrier: 'PostNL' }), /tracking link/);
  });
});
