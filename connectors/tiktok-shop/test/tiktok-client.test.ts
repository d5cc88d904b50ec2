import { expect } from 'chai';
import nock from 'nock';
import { ConnectorError, type HttpClient } from '@print-api/connector-kit';
import { nockedPlatformSuite } from '@print-api/core/testing';
import type { TikTokCredentials, TikTokSettings } from '../src/config.ts';
import { signRequest } from '../src/signing.ts';
import { TikTokClient } from '../src/tiktok-client.ts';
import errors from './fixtures/errors.json' with { type: 'json' };

const API = 'https://open-api.tiktok.example';
const AUTH = 'https://auth.tiktok.example';
const settings: TikTokSettings = {
  appKey: 'test_app_key',
  appSecret: 'test_app_secret',
  serviceId: '7291456830012345678',
  apiUrl: API,
  authUrl: AUTH,
};
const credentials: TikTokCredentials = {
  shopId: '7494049642642441621',
  shopCipher: 'ROW_test_cipher',
  region: 'DE',
  accessToken: 'ROW_access_1',
  accessTokenExpiresAt: '2026-01-08T00:00:00.000Z',
  refreshToken: 'ROW_refresh_1',
  refreshTokenExpiresAt: '2026-12-31T00:00:00.000Z',
  openId: '7010736057180325637',
  sellerName: 'Tulip Prints',
};
const NOW = new Date('2026-01-01T00:00:00Z');
const SEARCH = '/order/202309/orders/search';

describe('TikTok Shop client (nock): signed calls and answers with non-zero codes', () => {
  let http: HttpClient;
  const renewed: TikTokCredentials[] = [];
  const client = () =>
    new TikTokClient({ http, settings, credentials, clock: () => NOW, onRenewed: (c) => void renewed.push(c) });
  const search = (c = client()) =>
    c.call({
      method: 'POST',
      path: SEARCH,
      query: { page_size: '50', sort_field: 'update_time', sort_order: 'ASC' },
      body: { order_status: 'AWAITING_SHIPMENT', update_time_ge: 1767139200 },
      operation: 'searchOrders',
    });
  const failure = async (work: Promise<unknown>) => {
    const err = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ConnectorError);
    return err as ConnectorError;
  };

  nockedPlatformSuite((made) => (http = made));
  afterEach(() => void (renewed.length = 0));

  it("signs the exact bytes it sends (the PLATFORMS-2 vector's request), with the token in x-tts-access-token", async () => {
    let query: Record<string, unknown> | undefined;
    nock(API, { reqheaders: { 'x-tts-access-token': 'ROW_access_1', 'content-type': 'application/json' } })
      .post(SEARCH, '{"order_status":"AWAITING_SHIPMENT","update_time_ge":1767139200}')
      .query((q) => Boolean((query = q)))
      .reply(200, { code: 0, message: 'Success', request_id: 'r1', data: { orders: [], next_page_token: '' } });
    expect(await search()).to.deep.equal({ orders: [], next_page_token: '' });
    expect(query).to.deep.equal({
      page_size: '50',
      sort_field: 'update_time',
      sort_order: 'ASC',
      app_key: 'test_app_key',
      timestamp: '1767225600',
      shop_cipher: 'ROW_test_cipher',
      sign: '8a93473b37b916584861188842fc93c7f727164b083f355ee0d53c25c803a5b1',
    });
  });

  it('leaves shop_cipher out of /authorization calls', async () => {
    nock(API)
      .get('/authorization/202309/shops')
      .query(
        (q) =>
          q.shop_cipher === undefined &&
          q.sign ===
            signRequest({
              appSecret: 'test_app_secret',
              path: '/authorization/202309/shops',
              query: { app_key: 'test_app_key', timestamp: '1767225600' },
            }),
      )
      .reply(200, { code: 0, message: 'Success', data: { shops: [] } });
    expect(
      await client().call({
        method: 'GET',
        path: '/authorization/202309/shops',
        operation: 'getAuthorizedShops',
        shopScoped: false,
      }),
    ).to.deep.equal({ shops: [] });
  });

  it('renews the token on a token error answered with HTTP 200, and sends the call again with the new one', async () => {
    nock(API, { reqheaders: { 'x-tts-access-token': 'ROW_access_1' } })
      .post(SEARCH)
      .query(true)
      .reply(200, errors.expiredToken);
    nock(AUTH)
      .get('/api/v2/token/refresh')
      .query({
        app_key: 'test_app_key',
        app_secret: 'test_app_secret',
        refresh_token: 'ROW_refresh_1',
        grant_type: 'refresh_token',
      })
      .reply(200, {
        code: 0,
        message: 'success',
        data: {
          access_token: 'ROW_access_2',
          access_token_expire_in: 604800,
          refresh_token: 'ROW_refresh_1',
          refresh_token_expire_in: 1798761600,
          open_id: '7010736057180325637',
          seller_name: 'Tulip Prints',
        },
      });
    nock(API, { reqheaders: { 'x-tts-access-token': 'ROW_access_2' } })
      .post(SEARCH)
      .query(true)
      .reply(200, { code: 0, message: 'Success', data: { orders: [] } });
    expect(await search()).to.deep.equal({ orders: [] });
    expect(renewed.map((c) => [c.accessToken, c.accessTokenExpiresAt])).to.deep.equal([
      ['ROW_access_2', '2026-01-08T00:00:00.000Z'],
    ]);
  });

  it('fails as auth, asking for a new authorisation, when the refresh token is refused too (code in the body, any status)', async () => {
    nock(API).post(SEARCH).query(true).reply(401, errors.invalidToken);
    nock(AUTH)
      .get('/api/v2/token/refresh')
      .query(true)
      .reply(200, { code: 36004005, message: 'invalid refresh token', data: null });
    const err = await failure(search());
    expect(err.kind).to.equal('auth');
    expect(err.message).to.match(
      /refresh token was refused: TikTok Shop answered code 36004005: invalid refresh token/,
    );
  });

  it('renews once only: a second token error is an auth failure', async () => {
    nock(API).post(SEARCH).query(true).times(2).reply(200, errors.invalidToken);
    nock(AUTH)
      .get('/api/v2/token/refresh')
      .query(true)
      .reply(200, {
        code: 0,
        message: 'success',
        data: {
          access_token: 'ROW_access_2',
          access_token_expire_in: 1767830400,
          refresh_token: 'ROW_refresh_1',
          refresh_token_expire_in: 1798761600,
        },
      });
    const err = await failure(search());
    expect(err.kind).to.equal('auth');
    expect(err.message).to.match(/code 105001.*authorise the app again/);
  });

  it('waits on throttling: HTTP 200 with a throttling message, or 429 without Retry-After', async () => {
    nock(API).post(SEARCH).query(true).reply(200, errors.tooManyRequests);
    const throttled = await failure(search());
    expect([throttled.kind, throttled.retryAfterMs]).to.deep.equal(['rate_limited', 2000]);
    nock(API).post(SEARCH).query(true).reply(429, errors.tooManyRequests);
    expect((await failure(search())).kind).to.equal('rate_limited');
  });

  it('fails clearly on any other code (HTTP 200), naming the call, code, message and request id', async () => {
    nock(API).post(SEARCH).query(true).reply(200, errors.missingParam);
    const err = await failure(search());
    expect(err.kind).to.equal('invalid_payload');
    expect(err.message).to.equal(
      'searchOrders: TikTok Shop answered code 36009004: param body.address is missing (request 2026010100000001019A1B2C3D4E5F6A85)',
    );
    nock(API).post(SEARCH).query(true).reply(200, errors.invalidSign);
    expect((await failure(search())).message).to.match(/code 106001: Invalid credentials. The sign is invalid/);
  });

  it("retries TikTok's own failures: a 5xx without an envelope, or an internal error code", async () => {
    nock(API).post(SEARCH).query(true).reply(502, '<html>Bad gateway</html>');
    expect((await failure(search())).kind).to.equal('upstream_unavailable');
    nock(API).post(SEARCH).query(true).reply(200, { code: 36009003, message: 'Internal error', data: {} });
    expect((await failure(search())).kind).to.equal('upstream_unavailable');
  });
});
