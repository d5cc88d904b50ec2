import { expect } from 'chai';
import nock from 'nock';
import { ConnectorError, type HttpClient } from '@print-api/connector-kit';
import { nockedConnectorHttp, nockedPlatformSuite } from '@print-api/core/testing';
import { pollOrders, readCursor } from '../src/order-polling.ts';
import { pushShopifyShipment } from '../src/shipment-push.ts';
import { ShopifyClient, throttleWaitMs } from '../src/shopify-client.ts';
import { registerStoreWebhooks } from '../src/webhook-registration.ts';
import { FakeShopifyStore } from './fake-shopify-store.ts';
import accessDenied from './fixtures/graphql-access-denied.json' with { type: 'json' };
import fulfillmentCreateUserError from './fixtures/graphql-fulfillment-create-user-error.json' with { type: 'json' };
import fulfillmentOrders from './fixtures/graphql-fulfillment-orders.json' with { type: 'json' };
import ordersPage from './fixtures/graphql-orders.json' with { type: 'json' };
import shopAnswer from './fixtures/graphql-shop.json' with { type: 'json' };
import throttled from './fixtures/graphql-throttled.json' with { type: 'json' };
import { shopifyOrder, updatedAt } from './shopify-fixtures.ts';

const SHOP = 'client-test.myshopify.com';
const API = '/admin/api/2026-01/graphql.json';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const SHIPMENT = {
  externalOrderId: '6512345678901',
  carrier: 'PostNL',
  trackingNumber: '3SPOST123456789',
  trackingUrl: 'https://postnl.nl/tracktrace/?B=3SPOST123456789',
  lines: [{ externalLineId: null, sku: 'poster-tulips', quantity: 2 }],
};

describe('Shopify GraphQL client (nock)', () => {
  let http: HttpClient;
  const waits: number[] = [];
  const client = (token = 'shpat_test') =>
    new ShopifyClient({
      http,
      shop: SHOP,
      accessToken: token,
      logger: silent,
      sleep: async (ms) => void waits.push(ms),
    });

  nockedPlatformSuite((made) => (http = made));
  afterEach(() => void (waits.length = 0));

  it('posts the query with the access token to the versioned endpoint and answers data', async () => {
    const scope = nock(`https://${SHOP}`, {
      reqheaders: { 'x-shopify-access-token': 'shpat_test', 'content-type': 'application/json' },
    })
      .post(
        API,
        (body: { query: string; variables: unknown }) =>
          body.query.startsWith('query ShopForConnection') && JSON.stringify(body.variables) === '{}',
      )
      .reply(200, shopAnswer);
    expect(await client().graphql('query ShopForConnection { shop { name } }')).to.deep.equal(shopAnswer.data);
    scope.done();
  });

  it("names each call after its GraphQL operation, for the platform's metrics", async () => {
    const operations: Array<string | undefined> = [];
    const recording: HttpClient = {
      request: (req) => (operations.push(req.operation), http.request(req)),
      download: (req) => http.download(req),
    };
    nock(`https://${SHOP}`).post(API).reply(200, shopAnswer).post(API).reply(200, shopAnswer);
    const named = new ShopifyClient({ http: recording, shop: SHOP, accessToken: 'shpat_test', logger: silent });
    await named.graphql('query ShopForConnection { shop { name } }');
    await named.graphql('{ shop { name } }');
    expect(operations).to.deep.equal(['ShopForConnection', 'graphql']);
  });

  it('answers "Throttled" by waiting for the cost bucket to refill (throttleStatus), then succeeds', async () => {
    nock(`https://${SHOP}`)
      .post(API)
      .reply(200, throttled)
      .post(API)
      .reply(200, throttled)
      .post(API)
      .reply(200, shopAnswer);
    expect(await client().graphql('query ShopForConnection { shop { name } }')).to.deep.equal(shopAnswer.data);
    // (110 requested - 10 available) / 100 per second
    expect(waits).to.deep.equal([1000, 1000]);
    expect(
      throttleWaitMs({
        requestedQueryCost: 752,
        throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 666, restoreRate: 100 },
      }),
    ).to.equal(860);
  });

  it('hands a long wait to the queue as rate_limited (no attempt spent), and honours a 429 Retry-After', async () => {
    const slow = structuredClone(throttled);
    slow.extensions.cost.throttleStatus.restoreRate = 5;
    nock(`https://${SHOP}`).post(API).reply(200, slow);
    const err = await client()
      .graphql('query Q { shop { name } }')
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ConnectorError).and.include({ kind: 'rate_limited', retryAfterMs: 20_000 });
    // A 429 with Retry-After is waited out by core's HttpClient (its sleep, not the bucket's).
    const clientWaits: number[] = [];
    const waiting = new ShopifyClient({
      http: nockedConnectorHttp(undefined, { retry: {}, sleep: async (ms) => void clientWaits.push(ms) }),
      shop: SHOP,
      accessToken: 'shpat_test',
      logger: silent,
      sleep: async (ms) => void waits.push(ms),
    });
    nock(`https://${SHOP}`)
      .post(API)
      .reply(
        429,
        { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' },
        { 'Retry-After': '2.0' },
      )
      .post(API)
      .reply(200, shopAnswer);
    await waiting.graphql('query Q { shop { name } }');
    expect(clientWaits).to.deep.equal([2000]);
    expect(waits).to.deep.equal([]);
  });

  it('maps 401, ACCESS_DENIED, 5xx and query errors to typed failures', async () => {
    const cases: Array<[number, unknown, string]> = [
      [401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }, 'auth'],
      [200, accessDenied, 'auth'],
      [503, 'Service Unavailable', 'upstream_unavailable'],
      [
        200,
        { errors: [{ message: "Field 'nope' doesn't exist on type 'Shop'", extensions: { code: 'undefinedField' } }] },
        'invalid_payload',
      ],
    ];
    for (const [status, body, kind] of cases) {
      nock(`https://${SHOP}`)
        .post(API)
        .reply(status, body as nock.Body);
      const err = await client()
        .graphql('query Q { shop { nope } }')
        .catch((e: unknown) => e);
      expect(err, `${status}`).to.be.instanceOf(ConnectorError).and.have.property('kind', kind);
    }
  });

  it('fulfils only the print lines of the open fulfillment order, with trackingInfo, and reports userErrors', async () => {
    let sent: any;
    nock(`https://${SHOP}`)
      .post(
        API,
        (b: { query: string; variables: { id: string } }) =>
          b.query.includes('OpenFulfillmentOrders') && b.variables.id === 'gid://shopify/Order/6512345678901',
      )
      .reply(200, fulfillmentOrders)
      .post(API, (b: { query: string; variables: unknown }) => {
        sent = b.variables;
        return b.query.includes('fulfillmentCreate');
      })
      .reply(200, {
        data: { fulfillmentCreate: { fulfillment: { id: 'gid://shopify/Fulfillment/1' }, userErrors: [] } },
      });
    expect(await pushShopifyShipment(client(), SHIPMENT, silent)).to.equal(1);
    expect(sent).to.deep.equal({
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/7123456789011',
            fulfillmentOrderLineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/17123456789011', quantity: 2 }],
          },
        ],
        trackingInfo: {
          company: 'PostNL',
          number: '3SPOST123456789',
          url: 'https://postnl.nl/tracktrace/?B=3SPOST123456789',
        },
        notifyCustomer: true,
      },
    });
    nock(`https://${SHOP}`).post(API).reply(200, fulfillmentOrders).post(API).reply(200, fulfillmentCreateUserError);
    const err = await pushShopifyShipment(client(), SHIPMENT, silent).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ConnectorError).and.include({ kind: 'invalid_payload' });
    expect((err as Error).message).to.contain('Invalid fulfillment order line item quantity requested');
  });

  it('does nothing when the print lines are already fulfilled (a repeated push)', async () => {
    const closed = structuredClone(fulfillmentOrders);
    closed.data.order.fulfillmentOrders.nodes[0]!.status = 'CLOSED';
    nock(`https://${SHOP}`).post(API).reply(200, closed);
    expect(await pushShopifyShipment(client(), SHIPMENT, silent)).to.equal(0);
  });

  it('polls orders updated since the cursor, page by page, then moves the bound past the newest change', async () => {
    const now = new Date('2026-11-20T10:00:00Z');
    expect(readCursor(null, now)).to.deep.include({
      since: new Date('2026-11-20T09:00:00.000Z'),
      pageToken: null,
      firstPage: true,
    });
    const queries: any[] = [];
    const page2 = structuredClone(ordersPage);
    page2.data.orders.nodes[0]!.updatedAt = '2026-11-20T09:40:00Z';
    page2.data.orders.nodes[0]!.legacyResourceId = '6512345678902';
    const empty = { ...ordersPage, data: { orders: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] } } };
    nock(`https://${SHOP}`)
      .post(API, (b: { variables: unknown }) => queries.push(b.variables) > 0)
      .reply(200, {
        ...ordersPage,
        data: { orders: { ...ordersPage.data.orders, pageInfo: { hasNextPage: true, endCursor: 'c1' } } },
      })
      .post(API, (b: { variables: unknown }) => queries.push(b.variables) > 0)
      .reply(200, page2)
      .post(API, (b: { variables: unknown }) => queries.push(b.variables) > 0)
      .reply(200, empty);
    const first = await pollOrders(client(), null, now);
    expect(first.orders.map((o) => o.externalId)).to.deep.equal(['6512345678901']);
    const second = await pollOrders(client(), first.nextCursor, now);
    expect(second.orders.map((o) => o.externalId)).to.deep.equal(['6512345678902']);
    const third = await pollOrders(client(), second.nextCursor, now);
    expect(third.orders).to.deep.equal([]);
    expect(third.nextCursor).to.equal(second.nextCursor);
    expect(queries).to.deep.equal([
      { first: 10, after: null, query: "updated_at:>='2026-11-20T09:00:00Z'", lines: 25 },
      { first: 10, after: 'c1', query: "updated_at:>='2026-11-20T09:00:00Z'", lines: 25 },
      // Shopify counts whole seconds: after the newest change (09:40:00) is from 09:40:01.
      { first: 10, after: null, query: "updated_at:>='2026-11-20T09:40:01Z'", lines: 25 },
    ]);
  });

  it('carries on from a cursor stored in the earlier format (after its since)', async () => {
    const queries: any[] = [];
    const empty = { data: { orders: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] } } };
    nock(`https://${SHOP}`)
      .post(API, (b: { variables: unknown }) => queries.push(b.variables) > 0)
      .reply(200, empty);
    await pollOrders(
      client(),
      JSON.stringify({ since: '2026-11-20T08:15:00.000Z', after: null, newest: '2026-11-20T08:15:00.000Z' }),
      new Date('2026-11-20T10:00:00Z'),
    );
    expect(queries[0].query).to.equal("updated_at:>='2026-11-20T08:15:01Z'");
  });

  it('gathers the line items of a large order beyond the first page', async () => {
    const store = new FakeShopifyStore({
      name: 'big-order',
      app: { apiKey: 'k', secret: 's' },
      ourBaseUrl: 'http://127.0.0.1:1',
      publicUrl: 'https://print-api.example.com',
    });
    const line = shopifyOrder().line_items[0]!;
    const lines = Array.from({ length: 30 }, (_, i) => ({
      ...line,
      id: line.id + i,
      admin_graphql_api_id: `gid://shopify/LineItem/${line.id + i}`,
    }));
    store.save(updatedAt(shopifyOrder({ line_items: lines }), new Date().toISOString()));
    const { orders } = await pollOrders(
      new ShopifyClient({ http, shop: store.domain, accessToken: store.customToken }),
      null,
      new Date(Date.now() + 1000),
    );
    expect(orders[0]!.lines.map((l) => l.externalLineId)).to.deep.equal(lines.map((l) => String(l.id)));
    expect(store.seen('MoreOrderLines')).to.have.length(1);
  });

  it('subscribes the order and product topics and app/uninstalled once, keeping what is already there', async () => {
    const store = new FakeShopifyStore({
      name: 'webhooks-test',
      app: { apiKey: 'k', secret: 's' },
      ourBaseUrl: 'http://127.0.0.1:1',
      publicUrl: 'https://print-api.example.com',
    });
    const shop = new ShopifyClient({ http, shop: store.domain, accessToken: store.customToken });
    const uri = 'https://print-api.example.com/connectors/shopify/webhooks/sto_1';
    expect(await registerStoreWebhooks(shop, uri, silent)).to.deep.equal([
      'ORDERS_CREATE',
      'ORDERS_PAID',
      'ORDERS_UPDATED',
      'ORDERS_CANCELLED',
      'PRODUCTS_CREATE',
      'PRODUCTS_UPDATE',
      'PRODUCTS_DELETE',
      'APP_UNINSTALLED',
    ]);
    expect(await registerStoreWebhooks(shop, uri, silent)).to.deep.equal([]);
    expect(store.subscriptions.map((s) => [s.topic, s.uri])).to.have.length(8);
  });
});
