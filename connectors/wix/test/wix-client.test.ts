import assert from 'node:assert/strict';
import nock from 'nock';
import { ConnectorError } from '@print-api/connector-kit';
import { nockedConnectorHttp } from '@print-api/core/testing';
import { generateKeyPairSync } from 'node:crypto';
import { settingsSchema, type WixCredentials } from '../src/config.ts';
import { forgetMintedTokens, mintToken, THROTTLE_WAIT_MS, WixClient } from '../src/wix-client.ts';
import notFound from './fixtures/error-order-not-found.json' with { type: 'json' };

const API = 'https://www.wixapis.example';
const settings = settingsSchema.parse({
  appId: 'app-1',
  appSecret: 'secret-1',
  publicKey: generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }).publicKey,
  apiUrl: API,
});
const INSTANCE = '6f2b5e2a-0000-4000-8000-0000000000aa';
const NOW = new Date('2026-01-01T10:00:00Z');
const later = (hours: number) => new Date(NOW.getTime() + hours * 3600_000).toISOString();
const client = (credentials: Partial<WixCredentials> = {}) =>
  new WixClient({
    http: nockedConnectorHttp(),
    settings,
    credentials: { instanceId: INSTANCE, accessToken: 'tok-stored', expiresAt: later(4), ...credentials },
    clock: () => NOW,
  });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('expected a failure'),
    (err: unknown) => err as ConnectorError,
  );

// Narrow error cases of the client; the whole flows run against the fake Wix (wix-e2e, conformance).
describe('Wix client (core HttpClient, Wix behind nock)', () => {
  before(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(function () {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    if (this.currentTest?.state === 'passed' && pending.length > 0)
      throw new Error(`unused Wix interceptors: ${pending.join(', ')}`);
    forgetMintedTokens();
  });
  after(() => nock.enableNetConnect());

  it('mints with the client-credentials body and reads expires_in', async () => {
    nock(API)
      .post('/oauth2/token', {
        grant_type: 'client_credentials',
        client_id: 'app-1',
        client_secret: 'secret-1',
        instance_id: INSTANCE,
      })
      .matchHeader('content-type', 'application/json')
      .reply(200, { access_token: 'tok-new', token_type: 'Bearer', expires_in: 14400 });
    assert.deepEqual(await mintToken(nockedConnectorHttp(), settings, INSTANCE, NOW), {
      accessToken: 'tok-new',
      expiresAtMs: NOW.getTime() + 14400_000,
    });
  });

  it('sends the raw token (no Bearer) and uses a stored token while it is good', async () => {
    nock(API)
      .get('/ecom/v1/orders/o-1')
      .matchHeader('authorization', 'tok-stored')
      .reply(200, { order: { id: 'o-1' } });
    assert.deepEqual(await client().call('getOrder', 'GET', '/ecom/v1/orders/o-1'), { order: { id: 'o-1' } });
  });

  it('mints a token first when the stored one is about to expire', async () => {
    nock(API).post('/oauth2/token').reply(200, { access_token: 'tok-new', expires_in: 14400 });
    nock(API)
      .get('/ecom/v1/orders/o-1')
      .matchHeader('authorization', 'tok-new')
      .reply(200, { order: { id: 'o-1' } });
    await client({ expiresAt: new Date(NOW.getTime() + 60_000).toISOString() }).call(
      'getOrder',
      'GET',
      '/ecom/v1/orders/o-1',
    );
  });

  it('mints once more when Wix answers 401 to a cached token, then fails as auth if the new one is refused too', async () => {
    nock(API)
      .get('/ecom/v1/orders/o-1')
      .matchHeader('authorization', 'tok-stored')
      .reply(401, { message: 'Token expired' });
    nock(API).post('/oauth2/token').reply(200, { access_token: 'tok-new', expires_in: 14400 });
    nock(API)
      .get('/ecom/v1/orders/o-1')
      .matchHeader('authorization', 'tok-new')
      .reply(401, { message: 'Unauthorized' });
    const err = await failure(client().call('getOrder', 'GET', '/ecom/v1/orders/o-1'));
    assert.equal(err.kind, 'auth');
  });

  it('mints one token for calls refused together, and a call refused later takes the new one', async () => {
    nock(API)
      .get(/\/ecom\/v1\/orders\/o-\d/)
      .times(2)
      .matchHeader('authorization', 'tok-stored')
      .reply(401, { message: 'Token expired' });
    nock(API).post('/oauth2/token').once().delay(50).reply(200, { access_token: 'tok-new', expires_in: 14400 });
    nock(API)
      .get(/\/ecom\/v1\/orders\/o-\d/)
      .times(3)
      .matchHeader('authorization', 'tok-new')
      .reply(200, { order: {} });
    await Promise.all([
      client().call('getOrder', 'GET', '/ecom/v1/orders/o-1'),
      client().call('getOrder', 'GET', '/ecom/v1/orders/o-2'),
    ]);
    await client().call('getOrder', 'GET', '/ecom/v1/orders/o-3');
  });

  it('is auth when Wix refuses to mint (the app was removed from the site)', async () => {
    nock(API)
      .post('/oauth2/token')
      .reply(400, {
        message: 'App is not installed',
        details: { applicationError: { code: 'APP_NOT_INSTALLED', description: 'x', data: {} } },
      });
    const err = await failure(mintToken(nockedConnectorHttp(), settings, INSTANCE, NOW));
    assert.equal(err.kind, 'auth');
    assert.match(err.message, /APP_NOT_INSTALLED/);
  });

  it("quotes Wix's error message and code, and waits on a 429 without Retry-After", async () => {
    nock(API).get('/ecom/v1/orders/o-2').reply(404, notFound);
    const missing = await failure(client().call('getOrder', 'GET', '/ecom/v1/orders/o-2'));
    assert.deepEqual([missing.kind, missing.status], ['invalid_payload', 404]);
    assert.match(missing.message, /Order not found - ORDER_NOT_FOUND/);
    nock(API)
      .post('/ecom/v1/orders/search')
      .reply(429, { message: 'Too many requests', details: { applicationError: { code: 'RESOURCE_EXHAUSTED' } } });
    const throttled = await failure(client().call('searchOrders', 'POST', '/ecom/v1/orders/search', { search: {} }));
    assert.deepEqual([throttled.kind, throttled.retryAfterMs], ['rate_limited', THROTTLE_WAIT_MS]);
    nock(API).post('/ecom/v1/orders/search').reply(503, 'upstream connect error');
    assert.equal(
      (await failure(client().call('searchOrders', 'POST', '/ecom/v1/orders/search', { search: {} }))).kind,
      'upstream_unavailable',
    );
  });
});
