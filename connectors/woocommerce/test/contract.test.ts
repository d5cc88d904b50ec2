import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mapWooOrder } from '../src/order-mapper.ts';
import order from './fixtures/order.json' with { type: 'json' };
import webhook from './fixtures/webhook.json' with { type: 'json' };
import { requestViolations, resourceViolations } from './woo-contract.ts';

const PUBLISHED = new URL('./fixtures/published/', import.meta.url);
const GOLDEN = new URL('./fixtures/golden/', import.meta.url);
const q = (params: Record<string, string>) => new URLSearchParams(params);

describe("WooCommerce contract: the wc/v3 parameters and schemas of WooCommerce's controllers, and its documented examples", () => {
  it('allows the calls the connector makes, as it makes them', () => {
    const calls: Array<[string, string, URLSearchParams, unknown]> = [
      [
        'GET',
        '/wp-json/wc/v3/orders',
        q({
          modified_after: '2025-05-14T07:29:59',
          dates_are_gmt: 'true',
          orderby: 'modified',
          order: 'asc',
          per_page: '50',
          offset: '0',
        }),
        undefined,
      ],
      ['GET', '/wp-json/wc/v3/orders/1842', q({}), undefined],
      ['PUT', '/wp-json/wc/v3/orders/1842', q({}), { status: 'completed' }],
      ['GET', '/wp-json/wc/v3/orders/1842/notes', q({ type: 'customer' }), undefined],
      ['POST', '/wp-json/wc/v3/orders/1842/notes', q({}), { note: 'Shipped with PostNL', customer_note: true }],
      ['GET', '/wp-json/wc/v3/webhooks', q({ per_page: '100', page: '1' }), undefined],
      [
        'POST',
        '/wp-json/wc/v3/webhooks',
        q({}),
        {
          name: 'Print API order.created',
          topic: 'order.created',
          delivery_url: 'https://api.example.com/connectors/woocommerce/webhooks/sto_1',
          secret: 'a'.repeat(64),
          status: 'active',
        },
      ],
      ['PUT', '/wp-json/wc/v3/webhooks/12', q({}), { secret: 'a'.repeat(64), status: 'active' }],
      ['DELETE', '/wp-json/wc/v3/webhooks/12', q({ force: 'true' }), undefined],
      ['POST', '/wp-json/wc/v3/webhooks/batch', q({}), {}],
      [
        'GET',
        '/wp-json/wc/v3/products',
        q({ per_page: '100', page: '1', orderby: 'id', order: 'asc', status: 'any' }),
        undefined,
      ],
      [
        'GET',
        '/wp-json/wc/v3/products/311/variations',
        q({ per_page: '100', page: '1', orderby: 'id', order: 'asc' }),
        undefined,
      ],
      ['GET', '/wp-json/wc/v3/settings/general/woocommerce_default_country', q({}), undefined],
    ];
    for (const [method, path, query, body] of calls)
      expect(requestViolations(method, path, query, body), `${method} ${path}`).to.deep.equal([]);
  });

  it('refuses what the controllers do not declare: an unknown parameter, an enum value, a limit, a read-only or unknown field', () => {
    expect(
      requestViolations('GET', '/wp-json/wc/v3/orders', q({ modified_since: '2025-05-14T07:29:59' }), undefined),
    ).to.deep.equal(['GET /orders: modified_since is not a parameter of this route']);
    expect(
      requestViolations('GET', '/wp-json/wc/v3/orders', q({ orderby: 'date_modified', per_page: '500' }), undefined),
    ).to.have.length(2);
    expect(requestViolations('PUT', '/wp-json/wc/v3/orders/1', q({}), { status: 'shipped' })[0]).to.contain(
      '"shipped" is not one of',
    );
    expect(
      requestViolations('PUT', '/wp-json/wc/v3/webhooks/1', q({}), { delivery_url: 'https://x.example/h' }),
    ).to.deep.equal(['PUT /webhooks/{id}: delivery_url is read-only']);
    expect(
      requestViolations('POST', '/wp-json/wc/v3/webhooks', q({}), { topic: 'order.created', status: 'enabled' }),
    ).to.deep.equal([
      'POST /webhooks: delivery_url is required',
      'POST /webhooks .status: "enabled" is not one of active, paused, disabled',
    ]);
    expect(
      requestViolations('POST', '/wp-json/wc/v3/orders/1/notes', q({}), { note: 'x', is_customer_note: true }),
    ).to.deep.equal(['POST /orders/{id}/notes: is_customer_note is not a field of the resource']);
  });

  it('keeps the fixtures and every documented order to the schema (types, enums)', () => {
    expect(resourceViolations('order', order)).to.deep.equal([]);
    expect(resourceViolations('webhook', webhook)).to.deep.equal([]);
    for (const file of readdirSync(PUBLISHED))
      expect(
        resourceViolations('order', JSON.parse(readFileSync(new URL(file, PUBLISHED), 'utf8'))),
        file,
      ).to.deep.equal([]);
  });

  describe('golden corpus: every order example of the REST API docs (and our Italian one) through the mapper', () => {
    const cases: Array<[string, unknown]> = readdirSync(PUBLISHED).map((f) => [
      f.replace('.sample.json', ''),
      JSON.parse(readFileSync(new URL(f, PUBLISHED), 'utf8')),
    ]);
    cases.push([
      'italian-company-no-shipping-phone',
      {
        ...structuredClone(order),
        shipping: {
          first_name: 'Giulia',
          last_name: 'Rossi',
          company: 'Tipografia Rossi S.r.l.',
          address_1: 'Via Torino 12',
          address_2: '',
          city: 'Milano',
          state: 'MI',
          postcode: '20121',
          country: 'IT',
        },
      },
    ]);
    cases.push([
      'virtual-order-billing-only',
      {
        ...structuredClone(order),
        shipping: {
          first_name: '',
          last_name: '',
          company: '',
          address_1: '',
          address_2: '',
          city: '',
          state: '',
          postcode: '',
          country: '',
        },
      },
    ]);
    for (const [name, raw] of cases) {
      it(`maps ${name} as its snapshot says`, () => {
        const mapped = JSON.parse(JSON.stringify(mapWooOrder(raw)));
        const file = new URL(`${name}.expected.json`, GOLDEN);
        if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, `${JSON.stringify(mapped, null, 2)}\n`);
        expect(mapped).to.deep.equal(JSON.parse(readFileSync(file, 'utf8')));
      });
    }
  });
});
