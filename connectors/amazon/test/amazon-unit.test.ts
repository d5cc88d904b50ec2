import assert from 'node:assert/strict';
import nock from 'nock';
import { ConnectorError, type ConnectorContext } from '@print-api/connector-kit';
import { nockedConnectorHttp } from '@print-api/core/testing';
import { refreshIfDue, SpApi } from '../src/amazon-client.ts';
import { settingsSchema, type AmazonCredentials, type AmazonSettings } from '../src/config.ts';
import { amazonConnector } from '../src/index.ts';
import { amazonOrderSchema, toStoreOrder } from '../src/order-mapper.ts';
import { searchOrdersPage } from '../src/order-polling.ts';
import { carrierFields, printedItems } from '../src/shipment-push.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };
import { APP } from './fake-amazon.ts';

const API = 'https://sellingpartnerapi-eu.example.com';
const LWA = 'https://lwa.example.com';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const NOW = new Date('2026-03-01T12:00:00Z');

function context(clock = NOW): ConnectorContext<AmazonSettings> {
  return {
    http: nockedConnectorHttp(),
    logger: silent,
    clock: () => clock,
    publicUrl: 'https://print-api.example.com',
    webhookUrl: () => 'https://print-api.example.com/connectors/amazon/webhooks',
    settings: settingsSchema.parse({
      appId: APP.appId,
      lwaClientId: APP.clientId,
      lwaClientSecret: APP.clientSecret,
      apiUrl: API,
      lwaUrl: LWA,
      marketplaceIds: 'A1PA6795UKMFR9',
    }),
  };
}
const credentials = (over: Partial<AmazonCredentials> = {}): AmazonCredentials => ({
  sellingPartnerId: 'A3TH9S8BH6GOGM',
  refreshToken: 'Atzr|refresh-token-0123456789',
  accessToken: 'Atza|access-token-0123456789',
  accessTokenExpiresAt: new Date(NOW.getTime() + 3600_000).toISOString(),
  marketplaceIds: ['A1PA6795UKMFR9'],
  authorizedAt: '2026-01-01T00:00:00Z',
  ...over,
});
const order = (over: Record<string, unknown> = {}) =>
  amazonOrderSchema.parse({ ...structuredClone(orderFixture), ...over });
const rejection = async (p: Promise<unknown>): Promise<ConnectorError> => {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ConnectorError, String(err));
    return err;
  }
  assert.fail('expected a rejection');
};

describe('Amazon connector units', () => {
  describe('order mapping (Orders API v2026-01-01)', () => {
    it('maps an unshipped merchant order: lines from orderItems (sellerSku, quantityOrdered, ids), recipient from recipient.deliveryAddress', () => {
      const mapped = toStoreOrder(order());
      assert.deepEqual(
        { paid: mapped.paid, cancelled: mapped.cancelled, externalId: mapped.externalId, updatedAt: mapped.updatedAt },
        { paid: true, cancelled: false, externalId: '302-4567890-1234567', updatedAt: '2026-01-02T14:45:00Z' },
      );
      assert.deepEqual(mapped.lines, [
        {
          externalLineId: '12345678901234',
          sku: 'POSTER-A2-FERN',
          quantity: 2,
          title: 'Botanical poster, A2',
          externalProductId: 'B0C1POSTER1',
          externalVariantId: 'POSTER-A2-FERN',
        },
      ]);
      assert.deepEqual(mapped.recipient, {
        name: 'Ada Weber',
        email: 'x7k2q9w1mzt4d8h@marketplace.amazon.de',
        phone: '+49 30 1234567',
        address1: 'Kastanienallee 12',
        address2: 'Hinterhaus, 3. OG',
        postalCode: '10435',
        city: 'Berlin',
        state: 'Berlin',
        country: 'DE',
      });
    });

    it("keeps an Italian order's province (stateOrRegion) as the recipient's state and the company name; an IT- prefix goes", () => {
      const italian = (stateOrRegion: string) =>
        toStoreOrder(
          order({
            recipient: {
              deliveryAddress: {
                name: 'Giulia Bianchi',
                companyName: 'Bianchi Grafica S.r.l.',
                addressLine1: 'Via Torino 12',
                city: 'Milano',
                districtOrCounty: 'Milano',
                stateOrRegion,
                postalCode: '20123',
                countryCode: 'IT',
                phone: '+39 02 1234567',
              },
            },
          }),
        ).recipient;
      assert.deepEqual(italian('MI'), {
        name: 'Giulia Bianchi',
        company: 'Bianchi Grafica S.r.l.',
        email: 'x7k2q9w1mzt4d8h@marketplace.amazon.de',
        phone: '+39 02 1234567',
        address1: 'Via Torino 12',
        postalCode: '20123',
        city: 'Milano',
        state: 'MI',
        country: 'IT',
      });
      assert.equal(italian('IT-MI')!.state, 'MI');
      assert.equal(italian('Milano')!.state, 'Milano');
      assert.equal('state' in italian('  ')!, false);
    });

    it('PENDING (and PENDING_AVAILABILITY) waits, CANCELLED cancels, PARTIALLY_SHIPPED is paid', () => {
      const status = (fulfillmentStatus: string) =>
        toStoreOrder(order({ fulfillment: { fulfillmentStatus, fulfilledBy: 'MERCHANT' } }));
      assert.equal(status('PENDING').paid, false);
      assert.equal(status('PENDING_AVAILABILITY').paid, false);
      assert.deepEqual([status('CANCELLED').cancelled, status('CANCELLED').paid], [true, false]);
      assert.equal(status('PARTIALLY_SHIPPED').paid, true);
    });

    it('has no recipient without the Direct-to-Consumer Delivery role (no deliveryAddress), and a line without sellerSku is not a print item', () => {
      const o = order({
        recipient: undefined,
        orderItems: [{ orderItemId: '1', quantityOrdered: 1, product: { asin: 'B0X' } }],
      });
      const mapped = toStoreOrder(o);
      assert.equal(mapped.recipient, null);
      assert.match(mapped.recipientMissing!, /Direct-to-Consumer Delivery role/);
      assert.equal(mapped.lines[0]!.sku, null);
    });
  });

  describe('searchOrders pages', () => {
    before(() => nock.disableNetConnect());
    afterEach(() => nock.cleanAll());
    after(() => nock.enableNetConnect());

    it('leaves out an order fulfilled by Amazon and ends the run on the last page, the checkpoint at lastUpdatedBefore', async () => {
      const fba = {
        ...structuredClone(orderFixture),
        orderId: '302-0000000-0000001',
        fulfillment: { fulfillmentStatus: 'UNSHIPPED', fulfilledBy: 'AMAZON' },
      };
      nock(API)
        .get('/orders/2026-01-01/orders')
        .query({
          lastUpdatedAfter: '2026-02-28T23:55:00Z',
          fulfillmentStatuses: 'UNSHIPPED,PARTIALLY_SHIPPED,CANCELLED',
          fulfilledBy: 'MERCHANT',
          marketplaceIds: 'A1PA6795UKMFR9',
          includedData: 'RECIPIENT,FULFILLMENT,BUYER',
          maxResultsPerPage: '100',
        })
        .matchHeader('x-amz-access-token', 'Atza|access-token-0123456789')
        .reply(200, { orders: [fba, orderFixture], lastUpdatedBefore: '2026-03-01T11:58:00Z' });
      const page = await searchOrdersPage(
        context(),
        new SpApi(context(), credentials()),
        ['A1PA6795UKMFR9'],
        JSON.stringify({ v: 1, checkpoint: '2026-03-01T00:00:00Z' }),
      );
      assert.deepEqual(
        page.orders.map((o) => o.externalId),
        ['302-4567890-1234567'],
      );
      assert.equal(page.done, true);
      assert.deepEqual(JSON.parse(page.nextCursor), { v: 1, checkpoint: '2026-03-01T11:58:00Z' });
    });

    it('moves the checkpoint to the time it asked minus two minutes when the last page has no lastUpdatedBefore (optional in the model), and polls on from there', async () => {
      nock(API)
        .get('/orders/2026-01-01/orders')
        .query(true)
        .reply(200, { orders: [orderFixture] });
      const page = await searchOrdersPage(
        context(),
        new SpApi(context(), credentials()),
        ['A1PA6795UKMFR9'],
        JSON.stringify({ v: 1, checkpoint: '2026-03-01T00:00:00Z' }),
      );
      assert.deepEqual(
        page.orders.map((o) => o.externalId),
        ['302-4567890-1234567'],
      );
      assert.equal(page.done, true);
      assert.deepEqual(JSON.parse(page.nextCursor), { v: 1, checkpoint: '2026-03-01T11:58:00Z' });

      let asked: string | undefined;
      nock(API)
        .get('/orders/2026-01-01/orders')
        .query((q) => ((asked = String(q.lastUpdatedAfter)), true))
        .reply(200, { orders: [], lastUpdatedBefore: 'not a date' });
      const later = new Date('2026-03-01T12:06:00Z');
      const next = await searchOrdersPage(
        context(later),
        new SpApi(
          context(later),
          credentials({ accessTokenExpiresAt: new Date(later.getTime() + 3600_000).toISOString() }),
        ),
        ['A1PA6795UKMFR9'],
        page.nextCursor,
      );
      assert.equal(asked, '2026-03-01T11:53:00Z');
      assert.deepEqual(JSON.parse(next.nextCursor), { v: 1, checkpoint: '2026-03-01T12:04:00Z' });
    });

    it("waits out Amazon's throttling for as long as x-amzn-RateLimit-Limit says (QuotaExceeded carries no Retry-After)", async () => {
      nock(API)
        .get('/orders/2026-01-01/orders')
        .query(true)
        .reply(
          429,
          {
            errors: [
              { code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.', details: '' },
            ],
          },
          { 'x-amzn-RateLimit-Limit': '0.0056' },
        );
      const err = await rejection(
        searchOrdersPage(context(), new SpApi(context(), credentials()), ['A1PA6795UKMFR9'], null),
      );
      assert.equal(err.kind, 'rate_limited');
      assert.equal(err.retryAfterMs, 178_572);
    });

    it('tells a missing role (403 with a good refresh token) from a revoked authorisation (403, then invalid_grant)', async () => {
      const denied = {
        errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.', details: '' }],
      };
      nock(API).get('/orders/2026-01-01/orders').query(true).times(2).reply(403, denied);
      nock(LWA)
        .post('/auth/o2/token')
        .reply(200, { access_token: 'Atza|fresh', token_type: 'bearer', expires_in: 3600 });
      const role = await rejection(
        searchOrdersPage(context(), new SpApi(context(), credentials()), ['A1PA6795UKMFR9'], null),
      );
      assert.deepEqual([role.kind, role.revoked], ['auth', false]);
      assert.match(role.message, /Inventory and Order Tracking/);

      nock(API).get('/orders/2026-01-01/orders').query(true).reply(403, denied);
      nock(LWA).post('/auth/o2/token').reply(400, {
        error: 'invalid_grant',
        error_description: 'The request has an invalid grant parameter : refresh_token',
      });
      const revoked = await rejection(
        searchOrdersPage(context(), new SpApi(context(), credentials()), ['A1PA6795UKMFR9'], null),
      );
      assert.deepEqual([revoked.kind, revoked.revoked], ['auth', true]);
    });
  });

  describe('Login with Amazon tokens', () => {
    before(() => nock.disableNetConnect());
    afterEach(() => nock.cleanAll());
    after(() => nock.enableNetConnect());

    it('renews the access token (an hour) from the refresh token five minutes before it expires, with the app credentials form-encoded', async () => {
      assert.equal(await refreshIfDue(context(), credentials()), null);
      let form: URLSearchParams | undefined;
      nock(LWA)
        .post('/auth/o2/token', (body: string) => ((form = new URLSearchParams(body)), true))
        .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
        .reply(200, { access_token: 'Atza|renewed', token_type: 'bearer', expires_in: 3600 });
      const renewed = await refreshIfDue(
        context(),
        credentials({ accessTokenExpiresAt: new Date(NOW.getTime() + 4 * 60_000).toISOString() }),
      );
      assert.deepEqual(Object.fromEntries(form!), {
        grant_type: 'refresh_token',
        refresh_token: 'Atzr|refresh-token-0123456789',
        client_id: APP.clientId,
        client_secret: APP.clientSecret,
      });
      assert.equal(renewed!.accessToken, 'Atza|renewed');
      assert.equal(renewed!.accessTokenExpiresAt, new Date(NOW.getTime() + 3600_000).toISOString());
      assert.equal(renewed!.refreshToken, 'Atzr|refresh-token-0123456789');
    });

    it('blames our app, not the seller, for invalid_client (the store stays connected)', async () => {
      nock(LWA)
        .post('/auth/o2/token')
        .reply(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      const err = await rejection(refreshIfDue(context(), credentials({ accessToken: null })));
      assert.deepEqual([err.kind, err.revoked], ['auth', false]);
      assert.match(err.message, /CONNECTOR_AMAZON_LWA_CLIENT_SECRET/);
    });
  });

  describe('confirmShipment contents', () => {
    it("sends Amazon's carrier code, or Other with the carrier's name", () => {
      assert.deepEqual(carrierFields('PostNL'), { carrierCode: 'PostNL' });
      assert.deepEqual(carrierFields('fedex'), { carrierCode: 'FedEx' });
      assert.deepEqual(carrierFields('Royal Mail'), { carrierCode: 'Royal Mail' });
      assert.deepEqual(carrierFields('Fietskoerier Utrecht'), {
        carrierCode: 'Other',
        carrierName: 'Fietskoerier Utrecht',
      });
    });

    it('confirms only the items we printed, matched by SKU whatever its case, within what each still awaits', () => {
      const o = order({
        orderItems: [
          { orderItemId: 'A', quantityOrdered: 2, product: { sellerSku: 'POSTER-TULIPS' } },
          { orderItemId: 'B', quantityOrdered: 1, product: { sellerSku: 'MUG-DELFT' } },
          { orderItemId: 'C', quantityOrdered: 3, product: { sellerSku: 'poster-tulips' } },
        ],
        packages: [{ packageReferenceId: '1', trackingNumber: 'OLD', orderItems: [{ orderItemId: 'A', quantity: 1 }] }],
      });
      assert.deepEqual(printedItems(o, [{ externalLineId: null, sku: 'Poster-Tulips', quantity: 4 }]), [
        { orderItemId: 'A', quantity: 1 },
        { orderItemId: 'C', quantity: 3 },
      ]);
      assert.throws(
        () => printedItems(o, [{ externalLineId: null, sku: 'POSTER-TULIPS', quantity: 5 }]),
        /awaits no 1 more of POSTER-TULIPS/,
      );
      assert.deepEqual(printedItems(o, [{ externalLineId: 'B', sku: null, quantity: 1 }]), [
        { orderItemId: 'B', quantity: 1 },
      ]);
      // Amazon's own count of what an item awaits comes first.
      const counted = order({
        orderItems: [
          {
            orderItemId: 'A',
            quantityOrdered: 3,
            product: { sellerSku: 'POSTER-TULIPS' },
            fulfillment: { quantityFulfilled: 2, quantityUnfulfilled: 1 },
          },
        ],
      });
      assert.deepEqual(printedItems(counted, [{ externalLineId: null, sku: 'POSTER-TULIPS', quantity: 1 }]), [
        { orderItemId: 'A', quantity: 1 },
      ]);
      assert.throws(
        () => printedItems(counted, [{ externalLineId: null, sku: 'POSTER-TULIPS', quantity: 2 }]),
        /awaits no 1 more/,
      );
    });
  });

  it('declares a polling-only connector under the searchOrders budget, and its settings with their defaults', () => {
    const m = amazonConnector.manifest;
    assert.deepEqual(m.capabilities, { webhooks: false, polling: true, fulfilment: true, oauth: true });
    assert.deepEqual(m.pollBudget, { burst: 20, refillMs: 180_000 });
    const s = settingsSchema.parse({});
    assert.equal(s.lwaClientId, undefined, 'the connector loads without its app credentials');
    assert.deepEqual(
      [s.apiUrl, s.lwaUrl, s.marketplaceIds],
      ['https://sellingpartnerapi-na.amazon.com', 'https://api.amazon.com', ['ATVPDKIKX0DER']],
    );
    assert.throws(
      () => settingsSchema.parse({ lwaClientId: 'id', lwaClientSecret: 'secret', marketplaceIds: 'amazon.de' }),
      /marketplace ids/,
    );
  });

  it('names the settings to set when the app credentials are missing, before calling Amazon', async () => {
    const ctx = { ...context(), settings: settingsSchema.parse({ apiUrl: API, lwaUrl: LWA }) };
    const err = await rejection(refreshIfDue(ctx, credentials({ accessToken: null })));
    assert.equal(err.kind, 'invalid_payload');
    assert.match(err.message, /CONNECTOR_AMAZON_LWA_CLIENT_ID and CONNECTOR_AMAZON_LWA_CLIENT_SECRET/);
  });
});
