import { expect } from 'chai';
import { ADDRESS_WITHHELD, parseReceipt, toStoreOrder } from '../src/order-mapper.ts';
import receiptFixture from './fixtures/receipt.json' with { type: 'json' };

const receipt = (over: Record<string, unknown> = {}) => parseReceipt({ ...structuredClone(receiptFixture), ...over });

describe('Etsy receipts as store orders', () => {
  it('maps the documented receipt: id, paid, times, lines from transactions[], the shipping address without a phone', () => {
    expect(toStoreOrder(receipt())).to.deep.equal({
      externalId: '3456789012',
      name: '#3456789012',
      paid: true,
      cancelled: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:01:40.000Z',
      lines: [
        {
          externalLineId: '4567890123',
          sku: 'POD-TEE-CAT-M',
          quantity: 2,
          title: 'Cat Tee',
          externalProductId: '111',
          externalVariantId: '222',
        },
      ],
      recipient: {
        name: 'Ada Lovelace',
        address1: 'Oudegracht 140',
        address2: '2e verdieping',
        postalCode: '3511 AZ',
        city: 'Utrecht',
        country: 'NL',
      },
    });
  });

  it("keeps an Italian receipt's province (state MI) as the recipient's state; an ISO 3166-2 code of the receipt's country loses its prefix, a name stays as written", () => {
    const italian = {
      name: 'Giulia Bianchi',
      first_line: 'Via Torino 12',
      second_line: 'Scala B',
      city: 'Milano',
      state: 'MI',
      zip: '20123',
      country_iso: 'IT',
    };
    expect(toStoreOrder(receipt(italian)).recipient).to.deep.equal({
      name: 'Giulia Bianchi',
      address1: 'Via Torino 12',
      address2: 'Scala B',
      postalCode: '20123',
      city: 'Milano',
      state: 'MI',
      country: 'IT',
    });
    expect(toStoreOrder(receipt({ ...italian, state: 'IT-MI' })).recipient?.state).to.equal('MI');
    expect(toStoreOrder(receipt({ ...italian, state: ' Lombardia ' })).recipient?.state).to.equal('Lombardia');
    expect(toStoreOrder(receipt({ ...italian, state: 'US-NY' })).recipient?.state).to.equal('US-NY');
    expect(toStoreOrder(receipt({ ...italian, state: '' })).recipient).to.not.have.property('state');
  });

  it("gives the buyer's e-mail when Etsy shares it", () => {
    expect(toStoreOrder(receipt({ buyer_email: 'ada@example.org' })).recipient?.email).to.equal('ada@example.org');
  });

  it('withheld address fields: no recipient, and the reason the order waits', () => {
    for (const withheld of [
      { first_line: null, city: null, zip: null, country_iso: null, second_line: null },
      { first_line: undefined },
      { country_iso: '' },
    ]) {
      const order = toStoreOrder(receipt(withheld));
      expect(order.recipient).to.equal(null);
      expect(order.recipientMissing).to.equal(ADDRESS_WITHHELD);
    }
  });

  it('reads the older *_timestamp names when the newer are absent', () => {
    const order = toStoreOrder(
      receipt({
        created_timestamp: undefined,
        updated_timestamp: undefined,
        create_timestamp: 1767225000,
        update_timestamp: 1767225500,
      }),
    );
    expect([order.createdAt, order.updatedAt]).to.deep.equal(['2025-12-31T23:50:00.000Z', '2025-12-31T23:58:20.000Z']);
  });

  it('paid when is_paid or the status says so; cancelled when canceled or fully refunded', () => {
    expect(toStoreOrder(receipt({ is_paid: false, status: 'payment processing' })).paid).to.equal(false);
    expect(toStoreOrder(receipt({ is_paid: undefined, status: 'completed' })).paid).to.equal(true);
    expect(toStoreOrder(receipt({ status: 'canceled' })).cancelled).to.equal(true);
    expect(toStoreOrder(receipt({ status: 'fully refunded' })).cancelled).to.equal(true);
    expect(toStoreOrder(receipt({ status: 'partially refunded' })).cancelled).to.equal(false);
  });

  it('a line without a SKU or a digital item is not a print line', () => {
    const line = receiptFixture.transactions[0]!;
    const order = toStoreOrder(
      receipt({
        transactions: [
          { ...line, sku: null },
          { ...line, sku: '' },
          { ...line, transaction_id: 9, is_digital: true },
        ],
      }),
    );
    expect(order.lines.map((l) => l.sku)).to.deep.equal([null, '', null]);
  });

  it('refuses a receipt without its id or times (invalid_payload naming the field)', () => {
    expect(() => receipt({ receipt_id: 'abc' })).to.throw(/receipt_id/);
    expect(() => toStoreOrder(receipt({ created_timestamp: undefined, create_timestamp: undefined }))).to.throw(
      /created_timestamp/,
    );
  });
});
