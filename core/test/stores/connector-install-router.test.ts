import { expect } from 'chai';
import { z } from 'zod';
import { ConnectorError, defineConnector } from '@print-api/connector-kit';
import { SecretBox } from '../../src/infra/crypto.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const PUBLIC_URL = 'https://print-api.example.com';

/**
 * A platform with a plain OAuth authorization-code flow: it echoes our `state`, and (like
 * libraries that keep their own nonce) needs a cookie of its own to come back with the browser.
 */
const oauthConnector = defineConnector<{ token: string }>({
  manifest: {
    platform: 'ETSY',
    displayName: 'OAuth test platform',
    connectSchema: z.strictObject({}),
    examples: { connect: {} },
    credentialsSchema: z.object({ token: z.string() }),
    capabilities: { webhooks: false, polling: false, fulfilment: false, oauth: true },
    rateLimit: { max: 10, durationMs: 1000 },
  },
  async connect() {
    throw new ConnectorError('invalid_payload', 'this platform connects through OAuth only');
  },
  install: {
    inputSchema: z.strictObject({ shopName: z.string().regex(/^[a-z-]+$/, 'must be a shop name') }),
    async begin(_ctx, { query, state, callbackUrl }) {
      const params = new URLSearchParams({ shop: query.shopName ?? '', state, redirect_uri: callbackUrl });
      return {
        redirectUrl: `https://oauth.platform.example/authorize?${params}`,
        cookies: ['platform_nonce=n-1; Path=/connectors/etsy/callback; HttpOnly'],
      };
    },
    async callback(_ctx, { query, state, headers, callbackUrl }) {
      if (query.state !== state) throw new ConnectorError('auth', 'the platform echoed another state');
      if (!headers.cookie?.includes('platform_nonce=n-1'))
        throw new ConnectorError('auth', 'the platform nonce cookie is missing');
      if (callbackUrl !== `${PUBLIC_URL}/connectors/etsy/callback`)
        throw new ConnectorError('auth', `unexpected redirect URI ${callbackUrl}`);
      if (query.code === 'down') throw new ConnectorError('upstream_unavailable', 'the token endpoint is down');
      return { externalId: query.shop!, name: `Shop ${query.shop}`, credentials: { token: `token-for-${query.code}` } };
    },
  },
  verifyWebhook: () => ({ ok: false, reason: 'no webhooks' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'no webhooks' }),
});

describe('the generic OAuth install router [pglite]', function () {
  let t: TestService;
  let box: SecretBox;

  before(async function () {
    t = await startTestService(this, 'pglite', { PUBLIC_URL }, { connectors: [oauthConnector] });
    box = new SecretBox(t.service.config.ENCRYPTION_KEY!);
  });
  after(async () => t?.close());

  const link = (key: string | undefined, body: unknown, platform = 'etsy') =>
    fetch(`${t.baseUrl}/connectors/${platform}/install-links`, {
      method: 'POST',
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const local = (url: string) => url.replace(PUBLIC_URL, t.baseUrl);

  /** Link -> install (cookies) -> the platform's redirect back with `code`. */
  async function flow(
    key: string,
    body: Record<string, unknown>,
    callback: (authorize: URL) => Record<string, string> = (a) => ({
      code: 'c-1',
      shop: a.searchParams.get('shop')!,
      state: a.searchParams.get('state')!,
    }),
  ) {
    const created = await link(key, body);
    expect(created.status).to.equal(201);
    const { installUrl, expiresAt } = ((await created.json()) as { data: { installUrl: string; expiresAt: string } })
      .data;
    expect(Date.parse(expiresAt) - Date.now()).to.be.within(29 * 60_000, 30 * 60_000);
    const begin = await fetch(local(installUrl), { redirect: 'manual' });
    expect(begin.status).to.equal(302);
    const authorize = new URL(begin.headers.get('location')!);
    const cookies = begin.headers.getSetCookie();
    const back = new URL(authorize.searchParams.get('redirect_uri')!);
    for (const [k, v] of Object.entries(callback(authorize))) back.searchParams.set(k, v);
    const res = await fetch(local(back.toString()), {
      redirect: 'manual',
      headers: { cookie: cookies.map((c) => c.split(';')[0]).join('; ') },
    });
    return { authorize, cookies, res };
  }

  it('makes an install link for an API key with stores:write; refuses no key, a read-only key, bad input and a non-OAuth platform', async () => {
    const r = await t.reseller();
    const readOnly = await t.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live', scopes: ['stores:read'] });
    expect((await link(undefined, { shopName: 'tulips' })).status).to.equal(401);
    expect((await link('prk_live_notakey', { shopName: 'tulips' })).status).to.equal(401);
    expect((await link(readOnly.body.data.key, { shopName: 'tulips' })).status).to.equal(403);
    const bad = await link(r.key, { shopName: 'Tulips!' });
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).to.contain('must be a shop name');
    expect((await link(r.key, { shopName: 'tulips', returnUrl: 'javascript:alert(1)' })).status).to.equal(400);
    expect((await link(r.key, { shopName: 'tulips' }, 'woocommerce')).status).to.equal(422);
    expect((await link(r.key, { shopName: 'tulips' })).status).to.equal(201);
  });

  it('is an API route too: POST /stores/install-links {platform} makes the same link, under the key scope and rate limit, described in OpenAPI', async () => {
    const r = await t.reseller();
    const readOnly = await t.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live', scopes: ['stores:read'] });
    const created = await t.api(r.key, 'POST', '/stores/install-links', {
      platform: 'ETSY',
      shopName: 'tulips',
      returnUrl: 'https://app.reseller.example/done',
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data.installUrl).to.match(new RegExp(`^${PUBLIC_URL}/connectors/etsy/install\\?state=v1\\.`));
    expect(created.headers.get('ratelimit-limit')).to.be.a('string');
    expect(
      (await t.api(readOnly.body.data.key, 'POST', '/stores/install-links', { platform: 'ETSY', shopName: 'tulips' }))
        .status,
    ).to.equal(403);
    expect(
      (await t.api(undefined, 'POST', '/stores/install-links', { platform: 'ETSY', shopName: 'tulips' })).status,
    ).to.equal(401);
    expect((await t.api(r.key, 'POST', '/stores/install-links', { shopName: 'tulips' })).status).to.equal(400);
    const unsupported = await t.api(r.key, 'POST', '/stores/install-links', {
      platform: 'WOOCOMMERCE',
      shopName: 'tulips',
    });
    expect(unsupported.status).to.equal(422);
    expect(unsupported.body.error.code).to.equal('unsupported_platform');
    const begin = await fetch(local(created.body.data.installUrl), { redirect: 'manual' });
    expect(begin.status).to.equal(302);
    const doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    expect(doc.paths['/stores/install-links'].post).to.include({
      operationId: 'createStoreInstallLink',
      'x-scope': 'stores:write',
    });
    // The old path is the same route: its key is counted against the same limit.
    const old = await link(r.key, { shopName: 'tulips' });
    expect(old.status).to.equal(201);
    expect(Number(old.headers.get('ratelimit-remaining'))).to.be.lessThan(
      Number(created.headers.get('ratelimit-remaining')),
    );
  });

  it('sets the state cookie and the connector cookies, sends the merchant to consent, saves the store on the way back', async () => {
    const r = await t.reseller();
    const { authorize, cookies, res } = await flow(r.key, {
      shopName: 'tulips',
      returnUrl: 'https://app.reseller.example/done?x=1',
    });
    expect(`${authorize.origin}${authorize.pathname}`).to.equal('https://oauth.platform.example/authorize');
    expect(authorize.searchParams.get('redirect_uri')).to.equal(`${PUBLIC_URL}/connectors/etsy/callback`);
    expect(cookies[0]).to.match(
      /^print_api_install=v1\.[^;]+; Path=\/connectors\/etsy; Max-Age=(1799|1800); HttpOnly; SameSite=Lax; Secure$/,
    );
    expect(cookies[0]).to.contain(`print_api_install=${authorize.searchParams.get('state')};`);
    expect(cookies[1]).to.equal('platform_nonce=n-1; Path=/connectors/etsy/callback; HttpOnly');
    expect(res.status).to.equal(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).to.equal('https://app.reseller.example/done');
    expect(back.searchParams.get('x')).to.equal('1');
    expect(back.searchParams.get('platform')).to.equal('ETSY');
    expect(res.headers.getSetCookie()[0]).to.contain('print_api_install=; Path=/connectors/etsy; Max-Age=0');
    const stores = (await t.api(r.key, 'GET', '/stores')).body.data;
    expect(stores).to.have.length(1);
    expect(stores[0]).to.include({
      id: back.searchParams.get('store'),
      platform: 'ETSY',
      externalId: 'tulips',
      name: 'Shop tulips',
      status: 'connected',
    });
    const row = await t.service.db
      .selectFrom('stores')
      .selectAll()
      .where('id', '=', stores[0].id)
      .executeTakeFirstOrThrow();
    expect(row.credentials_sealed).not.to.contain('token-for-c-1');
    expect(t.service.services.stores.credentials.connection(row).credentials).to.deep.equal({ token: 'token-for-c-1' });
  });

  it('answers JSON when there is no returnUrl', async () => {
    const r = await t.reseller();
    const { res } = await flow(r.key, { shopName: 'daffodils' });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.include({ connected: true, platform: 'ETSY', externalId: 'daffodils' });
  });

  it('refuses forged and expired links, a callback without the cookie, and what the connector rejects: nothing saved', async () => {
    const r = await t.reseller();
    const expired = box.sealJson({
      k: 'install',
      r: r.id,
      m: 'live',
      p: 'ETSY',
      i: { shopName: 'late' },
      u: null,
      e: Date.now() - 1000,
    });
    expect(
      (await fetch(`${t.baseUrl}/connectors/etsy/install?state=${expired}`, { redirect: 'manual' })).status,
    ).to.equal(404);
    expect(
      (await fetch(`${t.baseUrl}/connectors/etsy/install?state=v1.AAAA.BBBB.CCCC`, { redirect: 'manual' })).status,
    ).to.equal(404);
    const noCookie = await fetch(`${t.baseUrl}/connectors/etsy/callback?code=c&shop=x&state=y`, { redirect: 'manual' });
    expect(noCookie.status).to.equal(400);
    expect(((await noCookie.json()) as { error: { code: string } }).error.code).to.equal('install_not_started');
    const stale = await fetch(`${t.baseUrl}/connectors/etsy/callback?code=c&shop=x&state=${expired}`, {
      redirect: 'manual',
      headers: { cookie: `print_api_install=${expired}` },
    });
    expect(stale.status).to.equal(400);
    const mismatch = await flow(r.key, { shopName: 'tulips' }, (a) => ({
      code: 'c',
      shop: 'tulips',
      state: `${a.searchParams.get('state')}x`,
    }));
    expect(mismatch.res.status).to.equal(422);
    expect(((await mismatch.res.json()) as { error: { code: string } }).error.code).to.equal('store_install_rejected');
    const down = await flow(r.key, { shopName: 'tulips' }, (a) => ({
      code: 'down',
      shop: 'tulips',
      state: a.searchParams.get('state')!,
    }));
    expect(down.res.status).to.equal(502);
    expect((await t.api(r.key, 'GET', '/stores')).body.data).to.deep.equal([]);
  });
});
