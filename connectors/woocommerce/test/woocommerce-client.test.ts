import { expect } from 'chai';
import { ConnectorError, type HttpClient, type HttpRequest } from '@print-api/connector-kit';
import { WooCommerceClient } from '../src/woocommerce-client.ts';
import errors from './fixtures/errors.json' with { type: 'json' };
import trackingItem from './fixtures/shipment-tracking-item.json' with { type: 'json' };
import { CREDENTIALS, store, testContext, useNock, wooOrder, rejection } from './woo-fixtures.ts';

const BASIC = `Basic ${Buffer.from(`${CREDENTIALS.consumerKey}:${CREDENTIALS.consumerSecret}`).toString('base64')}`;

/** Core's client, recording what passes through it. */
function recordingHttp(): HttpClient & { sent: HttpRequest[] } {
  const inner = testContext().http;
  const sent: HttpRequest[] = [];
  return { sent, request: (req) => (sent.push(req), inner.request(req)), download: (req) => inner.download(req) };
}

describe('WooCommerce client (@woocommerce/woocommerce-rest-api through core HttpClient)', () => {
  useNock();

  it("sends the library's requests through the context's HttpClient with Basic ck:cs over HTTPS", async () => {
    const http = recordingHttp();
    store()
      .get('/wp-json/wc/v3/orders/1842')
      .matchHeader('authorization', BASIC)
      .matchHeader('accept', 'application/json')
      .reply(200, wooOrder());
    const order = await new WooCommerceClient({ http, credentials: CREDENTIALS }).getOrder('1842');
    expect(order.id).to.equal(1842);
    expect(http.sent).to.have.length(1);
    expect(http.sent[0]).to.include({ method: 'GET', url: 'https://shop.example.com/wp-json/wc/v3/orders/1842' });
    expect(http.sent[0]!.headers).not.to.have.property('user-agent');
  });

  it('lists orders changed after a GMT time, oldest change first, from an offset', async () => {
    store()
      .get('/wp-json/wc/v3/orders')
      .query({
        modified_after: '2025-05-14T09:00:00',
        dates_are_gmt: 'true',
        orderby: 'modified',
        order: 'asc',
        per_page: '50',
        offset: '50',
      })
      .reply(200, [wooOrder()], { 'X-WP-Total': '51', 'X-WP-TotalPages': '2' });
    const orders = await new WooCommerceClient({ http: testContext().http, credentials: CREDENTIALS }).listOrders(
      '2025-05-14T09:00:00',
      50,
      50,
    );
    expect(orders).to.have.length(1);
  });

  it('sends JSON bodies (a customer note)', async () => {
    store()
      .post('/wp-json/wc/v3/orders/1842/notes', { note: 'Shipped', customer_note: true })
      .matchHeader('content-type', /application\/json/)
      .reply(201, { id: 281, note: 'Shipped', customer_note: true });
    await new WooCommerceClient({ http: testContext().http, credentials: CREDENTIALS }).addCustomerNote(
      '1842',
      'Shipped',
    );
  });

  it('turns 429 into rate_limited with the Retry-After wait', async () => {
    store().get('/wp-json/wc/v3/orders/1842').reply(429, '<html>Too Many Requests</html>', { 'Retry-After': '7' });
    const err = await rejection(
      new WooCommerceClient({ http: testContext().http, credentials: CREDENTIALS }).getOrder('1842'),
    );
    expect(err).to.include({ kind: 'rate_limited', retryAfterMs: 7000, status: 429 });
  });

  it('turns 401 into auth, 5xx into upstream_unavailable, other 4xx into invalid_payload', async () => {
    const client = new WooCommerceClient({ http: testContext().http, credentials: CREDENTIALS });
    store().get('/wp-json/wc/v3/orders/1').reply(401, errors.invalidKey);
    store().get('/wp-json/wc/v3/orders/2').reply(503, 'Service Unavailable');
    store().get('/wp-json/wc/v3/orders/3').reply(400, { code: 'rest_invalid_param' });
    expect((await rejection(client.getOrder('1'))).kind).to.equal('auth');
    expect((await rejection(client.getOrder('2'))).kind).to.equal('upstream_unavailable');
    expect((await rejection(client.getOrder('3'))).kind).to.equal('invalid_payload');
  });

  it("passes the HttpClient's network failure (upstream_unavailable) through unchanged", async () => {
    const down = new ConnectorError('upstream_unavailable', 'GET shop.example.com: connect ECONNREFUSED');
    const http: HttpClient = { request: async () => Promise.reject(down), download: async () => Promise.reject(down) };
    expect(await rejection(new WooCommerceClient({ http, credentials: CREDENTIALS }).getOrder('1842'))).to.equal(down);
  });

  it("reaches the Shipment Tracking extension's wc-shipment-tracking/v3 namespace, and knows when a store lacks it", async () => {
    const client = new WooCommerceClient({ http: testContext().http, credentials: CREDENTIALS });
    store()
      .get('/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings')
      .matchHeader('authorization', BASIC)
      .reply(200, [trackingItem]);
    expect(await client.listTrackingItems('1842')).to.deep.equal([trackingItem]);
    store().get('/wp-json/wc-shipment-tracking/v3/orders/1842/shipment-trackings').reply(404, errors.noRoute);
    expect(await client.listTrackingItems('1842')).to.equal(null);
  });

  it('pages through every webhook of the store', async () => {
    const hook = (id: number) => ({
      id,
      name: `hook ${id}`,
      status: 'active',
      topic: 'order.updated',
      delivery_url: `https://elsewhere.example/${id}`,
    });
    store()
      .get('/wp-json/wc/v3/webhooks')
      .query({ per_page: '100', page: '1' })
      .reply(200, [hook(1), hook(2)], { 'X-WP-TotalPages': '2' });
    store()
      .get('/wp-json/wc/v3/webhooks')
      .query({ per_page: '100', page: '2' })
      .reply(200, [hook(3)], { 'X-WP-TotalPages': '2' });
    const hooks = await new WooCommerceClient({ http: testContext().http, credentials: CREDENTIALS }).listWebhooks();
    expect(hooks.map((h) => h.id)).to.deep.equal([1, 2, 3]);
  });
});
