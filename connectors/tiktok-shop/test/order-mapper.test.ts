import { expect } from 'chai';
import { parseTikTokJson } from '../src/json.ts';
import { parseTikTokOrder, toStoreOrder } from '../src/order-mapper.ts';
import { matchProvider, unitsWePrinted } from '../src/shipment-push.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };
import providers from './fixtures/shipping-providers.json' with { type: 'json' };

const order = (over: Record<string, unknown> = {}) => parseTikTokOrder({ ...structuredClone(orderFixture), ...over });
const unit = (id: string, sku: string | null, over: Record<string, unknown> = {}) => ({
  ...orderFixture.line_items[0],
  id,
  seller_sku: sku,
  sku_id: `1729${(sku ?? 'none').length}`,
  ...over,
});

describe('TikTok Shop order mapping', () => {
  it('groups the one-line-per-unit items by SKU into a quantity, keeping every unit line id', () => {
    const mapped = toStoreOrder(order());
    expect(mapped).to.deep.include({
      externalId: '576461413038785752',
      paid: true,
      cancelled: false,
      createdAt: '2025-12-31T23:50:00.000Z',
      updatedAt: '2025-12-31T23:59:50.000Z',
    });
    expect(mapped.lines).to.deep.equal([
      {
        externalLineId: '577000000000000001,577000000000000002',
        sku: 'POD-TEE-CAT-M',
        quantity: 2,
        title: 'Cat Tee - M',
        externalProductId: '1729000000000000000',
        externalVariantId: '1729000000000000001',
      },
    ]);
    expect(mapped.notForPrint).to.equal(undefined);
  });

  it("keeps an Italian order's province from the district levels as its ISO 3166-2 code (Milano -> MI), the region when no province level is given, a name it cannot code as written", () => {
    const italian = (district_info: Array<Record<string, string>>) =>
      toStoreOrder(
        order({
          recipient_address: {
            ...orderFixture.recipient_address,
            name: 'Giulia Bianchi',
            phone_number: '+39 02 1234567',
            address_line1: 'Via Torino 12',
            address_line2: '',
            postal_code: '20123',
            region_code: 'IT',
            district_info,
          },
        }),
      ).recipient;
    const levels = [
      { address_level: 'L0', address_level_name: 'Country', address_name: 'Italy' },
      { address_level: 'L1', address_level_name: 'Region', address_name: 'Lombardia' },
      { address_level: 'L2', address_level_name: 'Province', address_name: 'Milano' },
      { address_level: 'L3', address_level_name: 'City', address_name: 'Milano' },
    ];
    expect(italian(levels)).to.deep.equal({
      name: 'Giulia Bianchi',
      phone: '+39 02 1234567',
      address1: 'Via Torino 12',
      postalCode: '20123',
      city: 'Milano',
      state: 'MI',
      country: 'IT',
    });
    expect(
      italian(levels.map((l) => (l.address_level === 'L2' ? { ...l, address_name: 'IT-MI' } : l)))!.state,
    ).to.equal('MI');
    expect(italian(levels.filter((l) => l.address_level !== 'L2'))!.state).to.equal('Lombardia');
    expect(italian([levels[0]!, levels[3]!])).to.not.have.property('state');
  });

  it('maps the recipient: city from district_info, address lines 2-4 joined, no relay e-mail', () => {
    expect(toStoreOrder(order()).recipient).to.deep.equal({
      name: 'Ada Lovelace',
      phone: '+1 212 555 0147',
      address1: '1 Main St',
      address2: 'Apt 2',
      postalCode: '10001',
      city: 'New York',
      state: 'NY',
      country: 'US',
    });
    const masked = toStoreOrder(
      order({ recipient_address: { ...orderFixture.recipient_address, phone_number: '(+1)555*****00' } }),
    );
    expect(masked.recipient!.phone).to.equal(undefined);
  });

  it('waits on UNPAID and ON_HOLD (no address yet), places on AWAITING_SHIPMENT, cancels on CANCELLED', () => {
    for (const status of ['UNPAID', 'ON_HOLD']) {
      const { recipient_address: _, ...hidden } = structuredClone(orderFixture);
      const mapped = toStoreOrder(
        parseTikTokOrder({
          ...hidden,
          status,
          line_items: hidden.line_items.map((l) => ({ ...l, display_status: status })),
        }),
      );
      expect(mapped, status).to.deep.include({ paid: false, cancelled: false, recipient: null });
      expect(mapped.lines[0]!.quantity, status).to.equal(2);
    }
    expect(toStoreOrder(order({ status: 'CANCELLED' })).cancelled).to.equal(true);
  });

  it("records orders shipped by TikTok's logistics, or first seen shipped, as not ours to print", () => {
    expect(toStoreOrder(order({ shipping_type: 'TIKTOK' })).notForPrint).to.match(/TikTok Shop's own logistics/);
    expect(toStoreOrder(order({ status: 'IN_TRANSIT' })).notForPrint).to.match(/already shipped/);
  });

  it('leaves out cancelled and already shipped units (a partially shipped order places what is left)', () => {
    const mapped = toStoreOrder(
      order({
        status: 'PARTIALLY_SHIPPING',
        line_items: [
          unit('1', 'A'),
          unit('2', 'A', { display_status: 'CANCELLED' }),
          unit('3', 'B', { display_status: 'AWAITING_COLLECTION', tracking_number: 'X1' }),
          unit('4', 'A'),
        ],
      }),
    );
    expect(mapped.paid).to.equal(true);
    expect(mapped.lines.map((l) => [l.sku, l.quantity, l.externalLineId])).to.deep.equal([['A', 2, '1,4']]);
  });

  it('never turns a 64-bit id into a rounded number, even when TikTok sends it bare', () => {
    const text = JSON.stringify(orderFixture)
      .replace('"id":"576461413038785752"', '"id":576461413038785752')
      .replace('"id":"577000000000000001"', '"id":577000000000000001');
    const mapped = toStoreOrder(parseTikTokOrder(parseTikTokJson(text)));
    expect(mapped.externalId).to.equal('576461413038785752');
    expect(mapped.lines[0]!.externalLineId).to.equal('577000000000000001,577000000000000002');
    expect(parseTikTokJson('{"total":12.5,"count":3,"big":9007199254740993}')).to.deep.equal({
      total: 12.5,
      count: 3,
      big: '9007199254740993',
    });
  });
});

describe('TikTok Shop tracking push: units and provider', () => {
  const shipment = (lines: Array<{ sku: string; quantity: number }>) => ({
    externalOrderId: '1',
    carrier: 'PostNL',
    trackingNumber: '3S123',
    trackingUrl: 'https://t',
    lines: lines.map((l) => ({ externalLineId: null, ...l })),
  });

  it('names the line ids of the units we printed only, as many as we printed, never the store’s other lines', () => {
    const o = order({
      line_items: [
        unit('11', 'POSTER'),
        unit('12', 'MUG'),
        unit('13', 'poster'),
        unit('14', 'POSTER'),
        unit('15', 'POSTER', { display_status: 'CANCELLED' }),
      ],
    });
    expect(unitsWePrinted(o, shipment([{ sku: 'Poster', quantity: 2 }]))).to.deep.equal(['11', '13']);
    expect(unitsWePrinted(o, shipment([{ sku: 'POSTER', quantity: 5 }]))).to.deep.equal(['11', '13', '14']);
  });

  it("matches our carrier among the delivery option's providers by name", () => {
    const list = providers.data.shipping_providers;
    expect(matchProvider('PostNL', list)?.id).to.equal('7212598461582034693');
    expect(matchProvider('post nl', list)?.id).to.equal('7212598461582034693');
    expect(matchProvider('DHL', list)?.id).to.equal('7117858858072016686');
    expect(matchProvider('GLS', list)).to.equal(undefined);
  });
});
