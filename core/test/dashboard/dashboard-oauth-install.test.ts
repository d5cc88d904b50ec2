import { expect } from 'chai';
import { z } from 'zod';
import { ConnectorError, defineConnector } from '@print-api/connector-kit';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

const PUBLIC_URL = 'https://print-api.example.com';

/** A platform with a plain OAuth authorization-code flow (as in connector-install-router.test.ts). */
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
      return { redirectUrl: `https://oauth.platform.example/authorize?${params}` };
    },
    async callback(_ctx, { query, state }) {
      if (query.state !== state) throw new ConnectorError('auth', 'the platform echoed another state');
      return { externalId: query.shop!, name: `Shop ${query.shop}`, credentials: { token: `token-for-${query.code}` } };
    },
  },
  verifyWebhook: () => ({ ok: false, reason: 'no webhooks' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'no webhooks' }),
});

describe('dashboard: connecting a store through an OAuth install (real PostgreSQL + Redis)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PUBLIC_URL }, { connectors: [oauthConnector] });
  });
  after(async () => t?.close());

  it('offers the install per platform, shows a refused field next to it, and comes back connected', async () => {
    const r = await t.reseller();
    // A browser's cookie jar, enough for one host (our install flow binds the browser with a cookie of its own).
    const jar = new Map<string, string>();
    const open = async (path: string, form?: Record<string, string>) => {
      const res = await fetch(path.startsWith('http') ? path : `${t.baseUrl}${path}`, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          'user-agent': USER_AGENT,
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        if (/Max-Age=0/i.test(c)) jar.delete(pair!.slice(0, eq));
        else jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      return {
        status: res.status,
        location: res.headers.get('location'),
        refresh: res.headers.get('refresh'),
        html: await res.text(),
      };
    };
    await open(new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url).pathname, {});
    const stores = await open('/dashboard/stores');
    expect(stores.html).to.contain('aria-label="Install on OAuth test platform (OAuth test platform)"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(stores.html)![1]!;

    const refused = await open('/dashboard/stores/install', { platform: 'ETSY', shopName: 'Not A Shop', _csrf: csrf });
    expect(refused.status).to.equal(422);
    expect(refused.html).to.match(
      /<p id="install-etsy-shopName-error" class="error" role="alert">Must be a shop name\.<\/p>/,
    );

    const leaving = await open('/dashboard/stores/install', { platform: 'ETSY', shopName: 'tulips', _csrf: csrf });
    expect(leaving.status).to.equal(200);
    const installUrl = leaving.refresh!.replace(/^0;url=/, '');
    expect(installUrl.startsWith(`${PUBLIC_URL}/connectors/etsy/install?`)).to.equal(true);
    expect(leaving.html).to.contain(`href="${installUrl.replaceAll('&', '&amp;')}"`);
    // The install: to the platform's consent screen, back to our callback, then to the dashboard.
    const authorize = new URL((await open(installUrl.replace(PUBLIC_URL, t.baseUrl))).location!);
    expect(authorize.host).to.equal('oauth.platform.example');
    const callback = `${authorize.searchParams.get('redirect_uri')}?${new URLSearchParams({ code: 'c-1', shop: 'tulips', state: authorize.searchParams.get('state')! })}`;
    const back = await open(callback.replace(PUBLIC_URL, t.baseUrl));
    expect(back.location).to.match(new RegExp(`^${PUBLIC_URL}/dashboard/stores\\?done=store-connected&store=sto_`));
    const after = await open(back.location!.replace(PUBLIC_URL, t.baseUrl));
    expect(after.html).to.contain('The store is connected');
    expect(after.html).to.contain('Shop tulips');
  });
});
