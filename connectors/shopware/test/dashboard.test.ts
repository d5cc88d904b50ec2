import assert from 'node:assert/strict';
import { eventually, type FakeHttpsServer } from '@print-api/connector-kit/testing';
import { startFakeHttpsServer, startTestService, type TestService } from '@print-api/core/testing';
import { shopwareConnector } from '../src/index.ts';
import { FakeShopware } from './fake-shopware.ts';
import { takeContractViolations } from './shopware-contract.ts';

/** A browser enough for the dashboard: one cookie jar, forms as urlencoded POSTs, no redirects followed. */
function browser(t: TestService) {
  const jar = new Map<string, string>();
  return async (path: string, form?: Record<string, string>) => {
    const res = await fetch(`${t.baseUrl}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        'user-agent': 'print-api-tests/1.0',
        accept: 'text/html',
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      jar.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
    }
    return { status: res.status, location: res.headers.get('location') ?? '', html: await res.text() };
  };
}

describe('dashboard: Shopware is offered, and a shop connects from its form [pglite]', function () {
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  this.timeout(90_000);
  let t: TestService;
  let server: FakeHttpsServer;
  const shopware = new FakeShopware();

  before(async function () {
    server = await startFakeHttpsServer();
    await shopware.start(server);
    t = await startTestService(this, 'pglite', {}, { connectors: [shopwareConnector] });
  });
  after(async () => {
    await t?.close();
    await server?.close();
  });

  it("shows the integration's fields (the sales channel optional) and connects the shop they name", async () => {
    const r = await t.reseller();
    const open = browser(t);
    await open(new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url).pathname, {});
    const page = await open('/dashboard/stores');
    assert.equal(page.status, 200);
    assert.match(page.html, /aria-label="Connect with these credentials \(Shopware\)"/);
    for (const field of ['shopUrl', 'accessKeyId', 'secretAccessKey'])
      assert.match(page.html, new RegExp(`<input id="connect-shopware-${field}"[^>]*\\brequired\\b`), field);
    const channel = /<input id="connect-shopware-salesChannelId"[^>]*>/.exec(page.html)?.[0];
    assert.ok(channel && !/\brequired\b/.test(channel), 'the sales channel is optional');

    const shop = shopware.newShop();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!;
    const done = await open('/dashboard/stores/connect', {
      _csrf: csrf,
      platform: 'SHOPWARE',
      shopUrl: shop.url,
      accessKeyId: shop.accessKeyId,
      secretAccessKey: shop.secretAccessKey,
      salesChannelId: '',
    });
    assert.equal(done.status, 303, done.html.slice(0, 500));
    assert.match(done.location, /\/dashboard\/stores\/sto_[^?]+\?done=store-connected/);
    const stores = (await t.api(r.key, 'GET', '/stores')).body.data;
    assert.deepEqual(
      stores.map((s: { platform: string; name: string }) => [s.platform, s.name]),
      [['SHOPWARE', 'Tulip Prints']],
    );
    await eventually(async () => shop.seen('POST', /^\/api\/search\/order$/).length > 0, 'the first poll');
  });
});
