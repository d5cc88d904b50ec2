import assert from 'node:assert/strict';
import { OpenApiContract } from '@print-api/connector-kit/testing';
import { startFakePlatformServer, type FakePlatformServer } from '@print-api/core/testing';
import { errorMessage, searchQuery } from '../src/magento-client.ts';
import { mapMagentoOrder, orderSchema } from '../src/order-mapper.ts';
import { carrierCode, shipItems } from '../src/shipment-push.ts';
import { magentoConnector } from '../src/index.ts';
import {
  FakeMagento,
  magentoOrderOf,
  magentoStore,
  takeContractViolations,
  type FakeMagentoShop,
} from './fake-magento.ts';
import { DEFINITIONS } from './magento-contract.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };

/** A definition of the schema as a request body, so the contract's checker holds an answer to it. */
const answers = new OpenApiContract(
  {
    swagger: '2.0',
    definitions: DEFINITIONS,
    paths: Object.fromEntries(
      ['sales-data-order-interface', 'sales-data-order-search-result-interface', 'catalog-data-product-interface'].map(
        (name) => [
          `/${name}`,
          { post: { parameters: [{ in: 'body', name: 'b', schema: { $ref: `#/definitions/${name}` } }] } },
        ],
      ),
    ),
  },
  'Magento admin REST 2.4.8 answers',
);
const answerViolations = (definition: string, value: unknown) =>
  answers.check({
    method: 'POST',
    path: `/${definition}`,
    query: new URLSearchParams(),
    body: JSON.stringify(value),
    contentType: 'application/json',
  }).violations;

describe('Magento contract: fixtures, mapping and the fake held to the admin schema', () => {
  afterEach(() => takeContractViolations());

  it("the fixture order and the fake's orders (a configurable's parent and child included) are orders of the schema", () => {
    assert.deepEqual(answerViolations('sales-data-order-interface', orderFixture), []);
    const configurable = magentoOrderOf(
      {
        id: '41',
        paid: true,
        lines: [
          { sku: 'POSTER-TULIPS', quantity: 2, parentSku: 'POSTER' },
          { sku: null, quantity: 1 },
        ],
      },
      '2026-11-28 10:00:00',
    );
    assert.deepEqual(answerViolations('sales-data-order-interface', configurable), []);
  });

  it('maps an order: the child of a configurable once, the recipient from the shipping assignment, the state', () => {
    const order = magentoOrderOf(
      {
        id: '41',
        paid: true,
        lines: [
          { sku: 'POSTER-TULIPS', quantity: 2, parentSku: 'POSTER' },
          { sku: 'MUG', quantity: 1 },
        ],
      },
      '2026-11-28 10:00:00',
    );
    const mapped = mapMagentoOrder(order);
    assert.deepEqual(
      mapped.lines.map((l) => [l.externalLineId, l.sku, l.quantity]),
      [
        ['412', 'POSTER-TULIPS', 2],
        ['413', 'MUG', 1],
      ],
    );
    assert.deepEqual(
      [mapped.externalId, mapped.name, mapped.paid, mapped.cancelled],
      ['41', '#000000041', true, false],
    );
    assert.equal(mapped.updatedAt, '2026-11-28T10:00:00.000Z');
    assert.deepEqual(mapped.recipient, {
      name: 'Giulia Bianchi',
      company: 'Studio Bianchi S.r.l.',
      email: 'giulia.bianchi@example.it',
      phone: '+39 02 1234 5678',
      address1: 'Via Brera 12',
      address2: 'Scala B, interno 4',
      postalCode: '20121',
      city: 'Milano',
      state: 'MI',
      country: 'IT',
    });
    for (const [state, paid, cancelled] of [
      ['new', false, false],
      ['pending_payment', false, false],
      ['holded', false, false],
      ['processing', true, false],
      ['complete', true, false],
      ['canceled', false, true],
      ['closed', false, true],
    ] as const)
      assert.deepEqual(
        (({ paid, cancelled }) => [paid, cancelled])(mapMagentoOrder({ ...order, state })),
        [paid, cancelled],
        state,
      );
    const prefixed = structuredClone(order);
    prefixed.extension_attributes.shipping_assignments[0]!.shipping.address.region_code = 'IT-MI';
    assert.equal(mapMagentoOrder(prefixed).recipient!.state, 'MI');
  });

  it("ships a configurable's parent item, what is printed and still unshipped, and names Magento's carriers", () => {
    const raw = magentoOrderOf(
      {
        id: '41',
        paid: true,
        lines: [
          { sku: 'POSTER-TULIPS', quantity: 2, parentSku: 'POSTER' },
          { sku: 'CARD', quantity: 5 },
        ],
      },
      '2026-11-28 10:00:00',
    );
    raw.items[2]!.qty_shipped = 1;
    const lines = [
      { externalLineId: null, sku: 'poster-tulips', quantity: 2 },
      { externalLineId: null, sku: 'CARD', quantity: 5 },
    ];
    const shipment = {
      externalOrderId: '41',
      carrier: 'DHL',
      trackingNumber: 'JD01',
      trackingUrl: 'https://t.example/JD01',
      lines,
    };
    assert.deepEqual(shipItems(orderSchema.parse(raw), shipment), [
      { order_item_id: 411, qty: 2 },
      { order_item_id: 413, qty: 4 },
    ]);
    assert.deepEqual(['DHL', 'UPS', 'PostNL'].map(carrierCode), ['dhl', 'ups', 'custom']);
  });

  it("reads Magento's error shape, its placeholders filled", () => {
    assert.equal(
      errorMessage(
        '{"message":"The consumer isn\'t authorized to access %resources.","parameters":{"resources":"Magento_Sales::ship"}}',
      ),
      "The consumer isn't authorized to access Magento_Sales::ship.",
    );
    assert.equal(
      errorMessage('{"message":"The \\"%1\\" attribute value is empty.","parameters":["name"]}'),
      'The "name" attribute value is empty.',
    );
    assert.equal(errorMessage('<html>'), null);
  });

  describe('the fake refuses what the schema or the search guide does not allow', () => {
    let server: FakePlatformServer;
    let shop: FakeMagentoShop;
    before(async () => {
      server = await startFakePlatformServer();
      const magento = new FakeMagento();
      await magento.start(server);
      shop = magento.newShop();
    });
    after(async () => server?.close());
    const get = async (path: string, query: URLSearchParams | string, token = shop.accessToken) => {
      const res = await server.http.request({
        method: 'GET',
        url: `${shop.url}/rest/V1${path}?${query}`,
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: JSON.parse(res.body) };
    };

    it("answers a wrong token 401 in Magento's shape, naming the resource", async () => {
      const res = await get('/orders', searchQuery({ pageSize: 1, currentPage: 1 }), 'y'.repeat(32));
      assert.deepEqual(res, {
        status: 401,
        body: {
          message: "The consumer isn't authorized to access %resources.",
          parameters: { resources: 'Magento_Sales::actions_view' },
        },
      });
    });

    it('takes the snake_case spelling of the search guide and the camelCase of the schema alike', async () => {
      const snake =
        'searchCriteria[filter_groups][0][filters][0][field]=updated_at&searchCriteria[filter_groups][0][filters][0][value]=2026-01-01 00:00:00&searchCriteria[filter_groups][0][filters][0][condition_type]=gteq&searchCriteria[page_size]=5';
      assert.equal((await get('/orders', snake)).status, 200);
      assert.deepEqual(takeContractViolations(), []);
    });

    for (const [what, query, expected] of [
      ['an undeclared key', 'searchCriteria[limit]=5', /searchCriteria\[limit\]/],
      [
        'indices with a gap',
        'searchCriteria[sortOrders][1][field]=entity_id&searchCriteria[sortOrders][1][direction]=ASC',
        /count from 0/,
      ],
      [
        'a field that is not an attribute',
        'searchCriteria[sortOrders][0][field]=modified&searchCriteria[sortOrders][0][direction]=ASC',
        /not a top-level attribute/,
      ],
      [
        'an unknown condition',
        'searchCriteria[filterGroups][0][filters][0][field]=state&searchCriteria[filterGroups][0][filters][0][value]=x&searchCriteria[filterGroups][0][filters][0][conditionType]=after',
        /condition type after/,
      ],
      ['a page size that is not an integer', 'searchCriteria[pageSize]=ten', /must be integer/],
      ['a page over the input limit', 'searchCriteria[pageSize]=500', /over 300/],
    ] as const)
      it(`refuses ${what} (400, recorded)`, async () => {
        const res = await get('/orders', query);
        assert.equal(res.status, 400);
        assert.match(res.body.message, expected);
        assert.match(takeContractViolations().join('\n'), expected);
      });

    it('refuses a search without searchCriteria, as Magento does', async () => {
      const res = await get('/products', '');
      assert.deepEqual(res, {
        status: 400,
        body: {
          message: '"%fieldName" is required. Enter and try again.',
          parameters: { fieldName: 'searchCriteria' },
        },
      });
    });

    it('polls every order through pages of ties in one second and a page past the last (answered as the last)', async () => {
      const store = magentoStore(shop, 'sto_paging');
      const second = '2026-11-28T10:00:00Z';
      for (let i = 0; i < 120; i++)
        store.saveOrder({ paid: true, updatedAt: second, lines: [{ sku: 'A', quantity: 1 }] });
      for (let i = 0; i < 30; i++)
        store.saveOrder({ paid: true, updatedAt: `2026-11-28T10:00:${String(i + 1).padStart(2, '0')}Z`, lines: [] });
      const ctx = server.context('magento', {});
      const connection = {
        externalId: shop.url,
        name: 'shop',
        credentials: { baseUrl: shop.url, storeCode: null, accessToken: shop.accessToken },
      };
      const seen = new Set<string>();
      let cursor: string | null = null;
      for (let calls = 0; calls < 20; calls++) {
        const page = await magentoConnector.listOrders!(
          { ...ctx, clock: () => new Date('2026-11-28T10:30:00Z') },
          connection,
          cursor,
        );
        for (const o of page.orders) seen.add(o.externalId);
        if (page.nextCursor === cursor) break;
        cursor = page.nextCursor;
      }
      assert.equal(seen.size, 150);
      assert.deepEqual(takeContractViolations(), []);
    });

    it('refuses a product body field the schema does not declare', async () => {
      const res = await server.http.request({
        method: 'POST',
        url: `${shop.url}/rest/V1/products`,
        headers: { authorization: `Bearer ${shop.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          product: { sku: 'X', name: 'X', price: 1, attribute_set_id: 4, regular_price: '1.00' },
        }),
      });
      assert.equal(res.status, 400);
      assert.match(takeContractViolations().join('\n'), /regular_price is not a field the contract declares/);
    });
  });
});
