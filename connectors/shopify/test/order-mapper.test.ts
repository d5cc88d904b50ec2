import { expect } from 'chai';
import fc from 'fast-check';
import { ConnectorError } from '@print-api/connector-kit';
import { mapGraphqlOrder, mapWebhookOrder, parseJsonExact } from '../src/order-mapper.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };
import ordersPage from './fixtures/graphql-orders.json' with { type: 'json' };

const order = (over: Record<string, unknown> = {}) => ({ ...structuredClone(orderFixture), ...over });
const graphqlOrder = () => structuredClone(ordersPage.data.orders.nodes[0]!);

describe('Shopify order mapper', () => {
  it('maps the documented orders/create payload: id, name, paid, every line with its SKU, the shipping address and email', () => {
    expect(mapWebhookOrder(order())).to.deep.equal({
      externalId: '6512345678901',
      name: '#1042',
      paid: true,
      cancelled: false,
      createdAt: '2026-11-20T09:15:02.000Z',
      updatedAt: '2026-11-20T09:15:06.000Z',
      lines: [
        {
          externalLineId: '16123456789011',
          sku: 'POSTER-TULIPS',
          quantity: 2,
          title: 'Tulip poster',
          externalProductId: '9123456789011',
          externalVariantId: '49123456789011',
        },
        {
          externalLineId: '16123456789012',
          sku: 'MUG-DELFT',
          quantity: 1,
          title: 'Delft blue mug',
          externalProductId: '9123456789012',
          externalVariantId: '49123456789012',
        },
        {
          externalLineId: '16123456789013',
          sku: null,
          quantity: 1,
          title: 'Gift wrapping',
          externalProductId: null,
          externalVariantId: null,
        },
      ],
      recipient: {
        name: 'Sanne Bakker',
        email: 'sanne.bakker@example.nl',
        phone: '+31 30 123 4567',
        address1: 'Oudegracht 140',
        address2: '2e verdieping',
        postalCode: '3511 AZ',
        city: 'Utrecht',
        state: 'UT',
        country: 'NL',
      },
    });
  });

  it("keeps an Italian order's province code and company, by webhook and by GraphQL alike", () => {
    const shipping_address = {
      ...orderFixture.shipping_address,
      name: 'Giulia Rossi',
      first_name: 'Giulia',
      last_name: 'Rossi',
      company: 'Tipografia Rossi S.r.l.',
      address1: 'Via Torino 12',
      address2: null,
      city: 'Milano',
      zip: '20121',
      province: 'Milano',
      province_code: 'MI',
      country: 'Italy',
      country_code: 'IT',
      phone: '+39 02 1234567',
    };
    const viaWebhook = mapWebhookOrder(order({ shipping_address }));
    expect(viaWebhook.recipient).to.deep.equal({
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
    const g = graphqlOrder();
    g.shippingAddress = {
      ...g.shippingAddress,
      name: 'Giulia Rossi',
      firstName: 'Giulia',
      lastName: 'Rossi',
      company: 'Tipografia Rossi S.r.l.' as never,
      address1: 'Via Torino 12',
      address2: null as never,
      city: 'Milano',
      zip: '20121',
      province: 'Milano',
      provinceCode: 'MI',
      countryCodeV2: 'IT',
      phone: '+39 02 1234567',
    };
    expect(mapGraphqlOrder(g).recipient).to.deep.equal(viaWebhook.recipient);
    // A province without a code is kept as written; a country-prefixed code loses its prefix.
    expect(
      mapWebhookOrder(
        order({
          shipping_address: { ...shipping_address, province_code: null, province: 'County Dublin', country_code: 'IE' },
        }),
      ).recipient?.state,
    ).to.equal('County Dublin');
    expect(
      mapWebhookOrder(order({ shipping_address: { ...shipping_address, province_code: 'IT-MI' } })).recipient?.state,
    ).to.equal('MI');
    expect(
      mapWebhookOrder(order({ shipping_address: { ...shipping_address, province_code: null, province: null } }))
        .recipient,
    ).to.not.have.property('state');
  });

  it('gives the same StoreOrder for the same order read by GraphQL polling', () => {
    expect(mapGraphqlOrder(graphqlOrder())).to.deep.equal(mapWebhookOrder(order()));
  });

  it('is paid only when Shopify has the money (paid, or partially refunded after paying)', () => {
    for (const [status, paid] of [
      ['pending', false],
      ['authorized', false],
      ['partially_paid', false],
      ['paid', true],
      ['partially_refunded', true],
      ['refunded', false],
      ['voided', false],
    ] as const) {
      expect(mapWebhookOrder(order({ financial_status: status })).paid, status).to.equal(paid);
    }
    const g = graphqlOrder();
    g.displayFinancialStatus = 'PENDING';
    expect(mapGraphqlOrder(g).paid).to.equal(false);
  });

  it('is cancelled when cancelled_at is set', () => {
    expect(
      mapWebhookOrder(order({ cancelled_at: '2026-11-20T11:00:00+01:00', cancel_reason: 'customer' })).cancelled,
    ).to.equal(true);
  });

  it('keeps null and blank SKUs as null (not a print item) and drops lines an order edit removed', () => {
    const [a, b, c] = orderFixture.line_items;
    const o = mapWebhookOrder(
      order({
        line_items: [
          { ...a, sku: '  ' },
          { ...b, current_quantity: 0 },
          { ...c, sku: ' POSTER-TULIPS ' },
        ],
      }),
    );
    expect(o.lines.map((l) => [l.sku, l.quantity])).to.deep.equal([
      [null, 2],
      ['POSTER-TULIPS', 1],
    ]);
  });

  it('keeps 64-bit ids exact (Shopify documents order 820982911946154508, which a double rounds)', () => {
    const raw = JSON.stringify(order())
      .replaceAll('6512345678901', '820982911946154508')
      .replaceAll('16123456789011', '866550311766439020');
    const parsed = parseJsonExact(raw) as Record<string, unknown>;
    expect(mapWebhookOrder(parsed).externalId).to.equal('820982911946154508');
    expect(mapWebhookOrder(parsed).lines[0]!.externalLineId).to.equal('866550311766439020');
    const { admin_graphql_api_id: _gid, ...withoutGid } = parsed;
    expect(mapWebhookOrder(withoutGid).externalId).to.equal('820982911946154508');
    expect(parseJsonExact('{"rate":0.21,"n":3}')).to.deep.equal({ rate: 0.21, n: 3 });
  });

  it('parses exactly as JSON.parse does whenever no integer is beyond 2^53, and keeps the ones beyond exact', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => !JSON.stringify(v).match(/\d{16}/)),
        (value) => {
          const text = JSON.stringify(value);
          expect(parseJsonExact(text)).to.deep.equal(JSON.parse(text));
        },
      ),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }), fc.string(), (id, note) => {
        const parsed = parseJsonExact(`{"id":${id},"note":${JSON.stringify(note)},"n":[1,-${id}]}`) as {
          id: unknown;
          note: string;
          n: unknown[];
        };
        expect(parsed).to.deep.equal({ id: String(id), note, n: [1, `-${id}`] });
      }),
    );
  });

  it('parses as a reviver reading each number’s source does: large integers quoted, digits in strings and keys, fractions and exponents left alone', () => {
    // The reference: JSON.parse with a reviver that reads each number's source text.
    const reference = (text: string): unknown =>
      JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
        typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
          ? context.source
          : value,
      );
    const digits = fc.oneof(
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      fc.constantFrom(
        '9007199254740993',
        '9007199254740992',
        '1234567890123456.5',
        '12345678901234567e2',
        '-0.12345678901234567',
      ),
    );
    const tricky = fc.oneof(
      digits,
      digits.map((d) => `"${d}"`),
      digits.map((d) => JSON.stringify(`say \\"${d}\\" \\\\`)),
      fc.string().map((x) => JSON.stringify(x)),
    );
    const space = fc.constantFrom('', ' ', '\n  ', '\t');
    const text = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        tricky,
        fc.array(tie('value'), { maxLength: 4 }).chain((vs) => space.map((w) => `[${w}${vs.join(`,${w}`)}${w}]`)),
        fc
          .array(
            fc.tuple(
              tricky.map((k) => (k.startsWith('"') ? k : JSON.stringify(k))),
              tie('value'),
            ),
            { maxLength: 4 },
          )
          .chain((kv) => space.map((w) => `{${w}${kv.map(([k, v]) => `${k}${w}:${w}${v}`).join(`,${w}`)}${w}}`)),
      ),
    })).value;
    fc.assert(
      fc.property(text, (t) => {
        expect(parseJsonExact(t)).to.deep.equal(reference(t));
      }),
      { numRuns: 500 },
    );
    // What JSON refuses stays refused, quoted or not.
    for (const bad of [
      '{12345678901234567:1}',
      '{"a":1,12345678901234567:2}',
      '[012345678901234567]',
      '[1 12345678901234567]',
      '{"a":12345678901234567 "b"}',
    ]) {
      expect(() => parseJsonExact(bad), bad).to.throw(SyntaxError);
    }
  });

  it('falls back to first and last name, the order phone and contact email; no address means no recipient', () => {
    const o = order({
      email: null,
      phone: '+31 6 1111 2222',
      shipping_address: { ...orderFixture.shipping_address, name: null, phone: null },
    });
    expect(mapWebhookOrder(o).recipient).to.include({
      name: 'Sanne Bakker',
      phone: '+31 6 1111 2222',
      email: 'sanne.bakker@example.nl',
    });
    expect(mapWebhookOrder(order({ shipping_address: null })).recipient).to.equal(null);
    expect(
      mapWebhookOrder(order({ shipping_address: { ...orderFixture.shipping_address, address1: '' } })).recipient,
    ).to.equal(null);
  });

  it('refuses what is not an order with invalid_payload', () => {
    for (const bad of [{}, { ...order(), line_items: 'x' }, { ...order(), updated_at: 'yesterday' }]) {
      expect(() => mapWebhookOrder(bad))
        .to.throw(ConnectorError)
        .with.property('kind', 'invalid_payload');
    }
  });
});
