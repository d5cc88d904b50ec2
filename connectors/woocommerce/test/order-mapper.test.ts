import { expect } from 'chai';
import { ConnectorError } from '@print-api/connector-kit';
import { gmtToIso, isoToGmt, mapWooOrder } from '../src/order-mapper.ts';
import { unpaidOrder, wooOrder } from './woo-fixtures.ts';

describe('WooCommerce order mapper', () => {
  it('maps the documented order: id, number, GMT dates, lines by SKU, recipient from shipping', () => {
    const o = mapWooOrder(wooOrder());
    expect(o).to.deep.include({
      externalId: '1842',
      name: '#1842',
      paid: true,
      cancelled: false,
      createdAt: '2025-05-14T09:02:41.000Z',
      updatedAt: '2025-05-14T09:03:05.000Z',
    });
    expect(o.lines).to.deep.equal([
      {
        externalLineId: '412',
        sku: 'POSTER-TULIPS',
        quantity: 2,
        title: 'Poster A2 - Tulpenvelden',
        externalProductId: '311',
        externalVariantId: null,
      },
    ]);
    expect(o.recipient).to.deep.equal({
      name: 'Sanne Bakker',
      email: 'sanne.bakker@example.nl',
      phone: '+31 30 123 4567',
      address1: 'Oudegracht 140',
      address2: '2e verdieping',
      postalCode: '3511 AZ',
      city: 'Utrecht',
      country: 'NL',
    });
  });

  it("keeps an Italian order's province (WooCommerce's state code) and company", () => {
    const base = wooOrder();
    const shipping = {
      ...base.shipping,
      first_name: 'Giulia',
      last_name: 'Rossi',
      company: 'Tipografia Rossi S.r.l.',
      address_1: 'Via Torino 12',
      address_2: '',
      city: 'Milano',
      state: 'MI',
      postcode: '20121',
      country: 'IT',
      phone: '+39 02 1234567',
    };
    expect(mapWooOrder(wooOrder({ shipping })).recipient).to.deep.equal({
      name: 'Giulia Rossi',
      company: 'Tipografia Rossi S.r.l.',
      email: 'sanne.bakker@example.nl',
      phone: '+39 02 1234567',
      address1: 'Via Torino 12',
      postalCode: '20121',
      city: 'Milano',
      state: 'MI',
      country: 'IT',
    });
    // A state typed where WooCommerce has no list is kept as written; an empty one is no state.
    expect(
      mapWooOrder(wooOrder({ shipping: { ...shipping, country: 'IE', state: 'Co. Dublin' } })).recipient?.state,
    ).to.equal('Co. Dublin');
    expect(
      mapWooOrder(wooOrder({ shipping: { ...shipping, state: '', company: ' ' } })).recipient,
    ).to.not.have.any.keys('state', 'company');
  });

  describe('paid', () => {
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['processing with date_paid', {}, true],
      ['completed with date_paid', { status: 'completed' }, true],
      ['pending without date_paid', { status: 'pending', date_paid: null, date_paid_gmt: null }, false],
      ['on-hold (bank transfer awaited)', { status: 'on-hold', date_paid: null, date_paid_gmt: null }, false],
      ['processing but no date_paid (a manual order)', { date_paid: null, date_paid_gmt: null }, false],
      ['refunded, although once paid', { status: 'refunded' }, false],
      ['failed payment', { status: 'failed', date_paid: null, date_paid_gmt: null }, false],
    ];
    for (const [title, patch, paid] of cases)
      it(`${paid ? 'is' : 'is not'} paid: ${title}`, () => expect(mapWooOrder(wooOrder(patch)).paid).to.equal(paid));
  });

  it('marks a cancelled order cancelled (and not paid)', () => {
    const o = mapWooOrder(wooOrder({ status: 'cancelled' }));
    expect(o.cancelled).to.equal(true);
    expect(o.paid).to.equal(false);
  });

  it('keeps lines without a SKU as null: null (deleted product) and empty string alike', () => {
    const base = wooOrder().line_items[0]!;
    const o = mapWooOrder(
      wooOrder({
        line_items: [
          base,
          { ...base, id: 500, sku: '', name: 'Gift wrap' },
          { ...base, id: 501, sku: null, name: 'Deleted product' },
          { ...base, id: 502, sku: '  ', variation_id: 77 },
        ],
      }),
    );
    expect(o.lines.map((l) => l.sku)).to.deep.equal(['POSTER-TULIPS', null, null, null]);
    expect(o.lines[3]!.externalVariantId).to.equal('77');
  });

  it('falls back to billing.phone when the shipping address has none', () => {
    const o = wooOrder();
    const r = mapWooOrder({ ...o, shipping: { ...o.shipping, phone: '' } }).recipient!;
    expect(r.phone).to.equal('+31 6 1234 5678');
  });

  it('reads stores older than WooCommerce 5.6, whose shipping address has no phone field', () => {
    const o = wooOrder();
    const { phone: _phone, ...shipping } = o.shipping;
    expect(mapWooOrder({ ...o, shipping }).recipient!.phone).to.equal('+31 6 1234 5678');
  });

  it('uses the billing address when the order has no shipping address (virtual products)', () => {
    const o = wooOrder();
    const empty = Object.fromEntries(Object.keys(o.shipping).map((k) => [k, '']));
    const r = mapWooOrder({ ...o, shipping: empty }).recipient!;
    expect(r).to.include({
      name: 'Sanne Bakker',
      address1: 'Prinsengracht 263',
      postalCode: '1016 GV',
      city: 'Amsterdam',
      country: 'NL',
    });
    expect(r).not.to.have.property('address2');
  });

  it('has no recipient when neither address is filled', () => {
    const o = wooOrder();
    const empty = Object.fromEntries(Object.keys(o.shipping).map((k) => [k, '']));
    expect(mapWooOrder({ ...o, shipping: empty, billing: { ...empty, email: 'x@example.com' } }).recipient).to.equal(
      null,
    );
  });

  it('maps an unpaid checkout the same way, paid: false', () => {
    expect(mapWooOrder(unpaidOrder())).to.deep.include({ externalId: '1842', paid: false, cancelled: false });
  });

  it('refuses what is not an order with invalid_payload', () => {
    for (const bad of [
      { id: 1 },
      { ...wooOrder(), line_items: 'x' },
      { ...wooOrder(), date_modified_gmt: 'yesterday' },
      null,
    ]) {
      expect(() => mapWooOrder(bad))
        .to.throw(ConnectorError)
        .with.property('kind', 'invalid_payload');
    }
  });

  it('converts GMT dates both ways', () => {
    expect(gmtToIso('2017-03-22T19:28:08')).to.equal('2017-03-22T19:28:08.000Z');
    expect(gmtToIso('2017-03-22T19:28:08Z')).to.equal('2017-03-22T19:28:08.000Z');
    expect(isoToGmt('2017-03-22T19:28:08.123Z')).to.equal('2017-03-22T19:28:08');
  });
});
