import { expect } from 'chai';
import nock from 'nock';
import { ConnectorError, type ConnectorContext } from '@print-api/connector-kit';
import { nockedConnectorHttp } from '@print-api/core/testing';
import { settingsSchema, type OAuthCredentials, type ShopifySettings } from '../src/config.ts';
import { shopifyConnector } from '../src/index.ts';
import { beginInstall, completeInstall, refreshIfDue } from '../src/install.ts';
import { FakeShopifyStore } from './fake-shopify-store.ts';

const PUBLIC_URL = 'https://print-api.example.com';
const CALLBACK = `${PUBLIC_URL}/connectors/shopify/callback`;
const APP = { apiKey: '4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90', secret: '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' };
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** What a browser sends back: the `name=value` of each Set-Cookie. */
const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(';')[0]).join('; ');

describe('Shopify OAuth install and token refresh (@shopify/shopify-api, Shopify behind nock)', () => {
  let ctx: ConnectorContext<ShopifySettings>;
  let store: FakeShopifyStore;
  let n = 0;

  before(() => nock.disableNetConnect());
  beforeEach(() => {
    ctx = {
      http: nockedConnectorHttp(),
      logger: silent,
      clock: () => new Date(),
      publicUrl: PUBLIC_URL,
      webhookUrl: (storeId) => `${PUBLIC_URL}/connectors/shopify/webhooks${storeId ? `/${storeId}` : ''}`,
      settings: settingsSchema.parse({ apiKey: APP.apiKey, apiSecret: APP.secret }),
    };
    store = new FakeShopifyStore({
      name: `oauth-test-${++n}`,
      app: APP,
      ourBaseUrl: PUBLIC_URL,
      publicUrl: PUBLIC_URL,
    });
  });
  afterEach(() => nock.cleanAll());
  after(() => nock.enableNetConnect());

  async function consent() {
    const begun = await beginInstall(ctx, { query: { shop: store.domain }, callbackUrl: CALLBACK });
    const callback = new URL(store.approve(begun.redirectUrl));
    return { begun, rawQuery: callback.search.slice(1), cookie: cookieHeader(begun.cookies) };
  }

  it('begins: the consent URL carries our client id, scopes, redirect URI and a state signed into a cookie', async () => {
    const { redirectUrl, cookies } = await beginInstall(ctx, {
      query: { shop: `https://${store.domain}/admin` },
      callbackUrl: CALLBACK,
    });
    const url = new URL(redirectUrl);
    expect(`${url.origin}${url.pathname}`).to.equal(`https://${store.domain}/admin/oauth/authorize`);
    expect(url.searchParams.get('client_id')).to.equal(APP.apiKey);
    // The library compresses the list: write_x implies read_x (write_products: read_products, write_publications:
    // read_publications).
    expect(url.searchParams.get('scope')).to.equal(
      'read_orders,write_merchant_managed_fulfillment_orders,write_products,write_publications',
    );
    expect(url.searchParams.get('redirect_uri')).to.equal(CALLBACK);
    expect(url.searchParams.get('grant_options[]')).to.equal('');
    const state = url.searchParams.get('state')!;
    expect(state).to.have.length.greaterThan(10);
    expect(cookies.map((c) => c.split('=')[0])).to.deep.equal(['shopify_app_state', 'shopify_app_state.sig']);
    expect(cookies[0]).to.contain(`shopify_app_state=${state};`).and.contain('path=/connectors/shopify/callback');
    await beginInstall(ctx, { query: { shop: 'not a shop' }, callbackUrl: CALLBACK }).then(
      () => expect.fail('accepted a bad shop'),
      (err: unknown) => expect(err).to.be.instanceOf(ConnectorError).and.include({ kind: 'invalid_payload' }),
    );
  });

  it('completes: HMAC and state checked, the code exchanged for an expiring offline token with its refresh token', async () => {
    const { rawQuery, cookie } = await consent();
    const before = Date.now();
    const connection = await completeInstall(ctx, {
      rawQuery,
      headers: { cookie, 'user-agent': BROWSER },
      callbackUrl: CALLBACK,
    });
    const after = Date.now();
    expect(connection).to.deep.include({ externalId: store.domain, name: 'Tulip Prints' });
    const creds = connection.credentials as OAuthCredentials;
    expect(creds).to.include({ kind: 'oauth', shop: store.domain });
    expect(creds.accessToken).to.match(/^shpat_/);
    expect(creds.refreshToken).to.match(/^shprt_/);
    // An hour (expires_in 3600, less any margin the connector keeps) from the moment Shopify answered, which lies
    // between before and after: a busy machine makes that interval longer, never the token's life.
    expect(Date.parse(creds.expiresAt!)).to.be.within(before + 3_500_000, after + 3_600_000);
    expect(Date.parse(creds.refreshTokenExpiresAt!) - before).to.be.greaterThan(89 * 24 * 3600 * 1000);
    expect(store.tokenRequests[0]).to.deep.equal({
      client_id: APP.apiKey,
      client_secret: APP.secret,
      code: new URLSearchParams(rawQuery).get('code'),
      expiring: '1',
    });
    expect(store.seen('ShopForConnection')[0]!.token).to.equal(creds.accessToken);
  });

  it('refuses a forged query, a missing or foreign state cookie, an old timestamp and a used code', async () => {
    const refused = async (rawQuery: string, cookie: string | undefined) => {
      const err = await completeInstall(ctx, { rawQuery, headers: { cookie }, callbackUrl: CALLBACK }).catch(
        (e: unknown) => e,
      );
      expect(err, rawQuery).to.be.instanceOf(ConnectorError).and.include({ kind: 'auth' });
    };
    const { rawQuery, cookie } = await consent();
    await refused(rawQuery.replace(/shop=[^&]+/, 'shop=evil.myshopify.com'), cookie);
    await refused(rawQuery, undefined);
    await refused(
      rawQuery,
      cookieHeader((await beginInstall(ctx, { query: { shop: store.domain }, callbackUrl: CALLBACK })).cookies),
    );
    const begun = await beginInstall(ctx, { query: { shop: store.domain }, callbackUrl: CALLBACK });
    const old = new URL(
      store.approve(begun.redirectUrl, (q) => ({ ...q, timestamp: String(Math.floor(Date.now() / 1000) - 3600) })),
    );
    await refused(old.search.slice(1), cookieHeader(begun.cookies));
    expect(store.tokenRequests).to.have.length(0);
    await completeInstall(ctx, { rawQuery, headers: { cookie }, callbackUrl: CALLBACK });
    await refused(rawQuery, cookie);
  });

  it('refuses an install where the merchant granted fewer scopes', async () => {
    const { rawQuery, cookie } = await consent();
    store.scopes = ['read_orders'];
    const err = await completeInstall(ctx, { rawQuery, headers: { cookie }, callbackUrl: CALLBACK }).catch(
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ConnectorError).and.include({ kind: 'auth' });
    expect((err as Error).message).to.contain('write_merchant_managed_fulfillment_orders');
  });

  it('says which variables to set when the app is not configured (custom apps need neither)', async () => {
    const unconfigured = { ...ctx, settings: settingsSchema.parse({}) };
    const err = await beginInstall(unconfigured, { query: { shop: store.domain }, callbackUrl: CALLBACK }).catch(
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ConnectorError).and.include({ kind: 'auth' });
    expect((err as Error).message)
      .to.contain('CONNECTOR_SHOPIFY_API_KEY')
      .and.contain('CONNECTOR_SHOPIFY_API_SECRET');
  });

  it('takes the consent screen, the token exchange and the Admin API to CONNECTOR_SHOPIFY_API_URL (a sandbox or a fake)', async () => {
    const apiUrl = 'https://shopify-sandbox.example/shops/{shop}/';
    const sandboxed = { ...ctx, settings: settingsSchema.parse({ apiKey: APP.apiKey, apiSecret: APP.secret, apiUrl }) };
    const shop = new FakeShopifyStore({
      name: `sandboxed-${++n}`,
      app: APP,
      ourBaseUrl: PUBLIC_URL,
      publicUrl: PUBLIC_URL,
      apiUrl,
    });
    expect(shop.origin).to.equal(`https://shopify-sandbox.example/shops/${shop.domain}`);
    const begun = await beginInstall(sandboxed, { query: { shop: shop.domain }, callbackUrl: CALLBACK });
    expect(begun.redirectUrl.startsWith(`${shop.origin}/admin/oauth/authorize?`)).to.equal(true);
    const rawQuery = new URL(shop.approve(begun.redirectUrl)).search.slice(1);
    const connection = await completeInstall(sandboxed, {
      rawQuery,
      headers: { cookie: cookieHeader(begun.cookies), 'user-agent': BROWSER },
      callbackUrl: CALLBACK,
    });
    expect(connection.externalId).to.equal(shop.domain);
    expect(shop.tokenRequests).to.have.length(1);
    expect(shop.seen('ShopForConnection')).to.have.length(1);
    // The store's own calls (here its connection check as a custom app) go there too.
    await shopifyConnector.connect(sandboxed, { shop: shop.domain, accessToken: shop.customToken });
    expect(shop.seen('ShopForConnection')).to.have.length(2);
  });

  it('accepts only an https origin for CONNECTOR_SHOPIFY_API_URL, https://{shop} by default', () => {
    expect(settingsSchema.parse({}).apiUrl).to.equal('https://{shop}');
    for (const apiUrl of ['http://localhost:8080/{shop}', 'not a url', 'https://sandbox.example/{shop}?x=1'])
      expect(settingsSchema.safeParse({ apiUrl }).success, apiUrl).to.equal(false);
  });

  it('refreshes a token about to expire (the refresh token rotates), and leaves a fresh or non-expiring one alone', async () => {
    const { rawQuery, cookie } = await consent();
    const creds = (await completeInstall(ctx, { rawQuery, headers: { cookie }, callbackUrl: CALLBACK }))
      .credentials as OAuthCredentials;
    expect(await refreshIfDue(ctx, creds)).to.equal(null);
    expect(
      await refreshIfDue(ctx, { kind: 'custom', shop: store.domain, accessToken: store.customToken, scope: '' }),
    ).to.equal(null);
    const due = { ...creds, expiresAt: new Date(Date.now() + 60_000).toISOString() };
    const renewed = (await refreshIfDue(ctx, due)) as OAuthCredentials;
    expect(renewed.accessToken).not.to.equal(creds.accessToken);
    expect(renewed.refreshToken).not.to.equal(creds.refreshToken);
    expect(Date.parse(renewed.expiresAt!)).to.be.greaterThan(Date.now() + 3_500_000);
    expect(store.tokenRequests.at(-1)).to.deep.equal({
      client_id: APP.apiKey,
      client_secret: APP.secret,
      refresh_token: creds.refreshToken,
      grant_type: 'refresh_token',
    });
    const reused = await refreshIfDue(ctx, due).catch((e: unknown) => e);
    expect(reused).to.be.instanceOf(ConnectorError).and.include({ kind: 'auth' });
    const lapsed = await refreshIfDue(ctx, {
      ...due,
      refreshTokenExpiresAt: new Date(Date.now() - 1000).toISOString(),
    }).catch((e: unknown) => e);
    expect(lapsed).to.be.instanceOf(ConnectorError).and.include({ kind: 'auth' });
  });
});
