import { expect } from 'chai';
import { amazonConnector } from '@print-api/connector-amazon';
import { shopifyConnector } from '@print-api/connector-shopify';
import { platformForms } from '../../src/modules/dashboard/dashboard-platforms.ts';
import { configureConnectors } from '../../src/modules/stores/connector-registry.ts';
import { startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

/** Amazon's app credentials with Login with Amazon, by setting NAME (the connector's env as core hands it). */
const AMAZON_LWA = {
  LWA_CLIENT_ID: 'amzn1.application-oa2-client.0123456789abcdef',
  LWA_CLIENT_SECRET: 'amzn1.oa2-cs.v1.0123456789abcdef0123456789abcdef',
};

/** A browser enough for the dashboard: one cookie jar, forms as urlencoded POSTs, no redirects followed. */
function browser(t: TestService) {
  const jar = new Map<string, string>();
  return async (path: string, form?: Record<string, string>, accept = 'text/html') => {
    const res = await fetch(`${t.baseUrl}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        'user-agent': USER_AGENT,
        accept,
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return { status: res.status, type: res.headers.get('content-type') ?? '', html: await res.text() };
  };
}

async function signedIn(t: TestService) {
  const r = await t.reseller();
  const open = browser(t);
  await open(new URL((await t.api(r.key, 'POST', '/dashboard-links')).body.data.url).pathname, {});
  return { r, open };
}

describe('dashboard: connect forms offer what the operator has set up [pglite]', function () {
  this.timeout(scaled(60_000));

  it('leaves out a platform whose every flow needs settings the operator has not set (Amazon without its LWA credentials)', () => {
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const bare = configureConnectors({
      connectors: [amazonConnector, shopifyConnector],
      env: () => ({}),
      logger,
      named: false,
    });
    expect(platformForms(bare).map((p) => p.platform)).to.deep.equal(['SHOPIFY']);
    const lwa = configureConnectors({ connectors: [amazonConnector], env: () => AMAZON_LWA, logger, named: false });
    expect(platformForms(lwa).map((p) => [p.platform, p.installFields === undefined])).to.deep.equal([
      ['AMAZON', true],
    ]);
  });

  describe('Shopify without its app key and secret, Amazon without its app id', () => {
    let t: TestService;
    before(async function () {
      t = await startTestService(
        this,
        'pglite',
        {
          CONNECTOR_AMAZON_LWA_CLIENT_ID: AMAZON_LWA.LWA_CLIENT_ID,
          CONNECTOR_AMAZON_LWA_CLIENT_SECRET: AMAZON_LWA.LWA_CLIENT_SECRET,
        },
        { connectors: [shopifyConnector, amazonConnector] },
      );
    });
    after(async () => t?.close());

    it('offers no install, only pasted credentials, and names no environment variable', async () => {
      const { open } = await signedIn(t);
      const stores = await open('/dashboard/stores');
      expect(stores.status).to.equal(200);
      expect(stores.html).not.to.contain('Install on Shopify').and.not.to.contain('Install on Amazon');
      expect(stores.html)
        .to.contain('aria-label="Connect with these credentials (Shopify)"')
        .and.to.contain('aria-label="Connect with these credentials (Amazon)"');
      expect(stores.html).not.to.contain('CONNECTOR_');
    });

    it("shows Amazon's marketplaces as optional, with the default it falls back to", async () => {
      const { open } = await signedIn(t);
      const stores = await open('/dashboard/stores');
      const input = /<input id="connect-amazon-marketplaceIds"[^>]*>/.exec(stores.html)?.[0];
      expect(input, 'the marketplaces field').to.be.a('string');
      expect(input).not.to.match(/\brequired\b/);
      expect(input).to.contain('aria-describedby="connect-amazon-marketplaceIds-hint"');
      expect(stores.html).to.contain('<label for="connect-amazon-marketplaceIds">Marketplace ids (optional)</label>');
      expect(stores.html).to.match(
        /<p id="connect-amazon-marketplaceIds-hint" class="muted">[^<]*left out, this service(&#39;|')s default<\/p>/,
      );
    });

    it("refuses an install link in a merchant's words, and shows an install refused on the way as a page", async () => {
      const { r, open } = await signedIn(t);
      const link = await t.api(r.key, 'POST', '/stores/install-links', {
        platform: 'SHOPIFY',
        shop: 'tulips.myshopify.com',
      });
      expect(link.status).to.equal(422);
      expect(link.body.error.code).to.equal('unsupported_platform');
      expect(link.body.error.message).to.equal(
        'Shopify stores cannot be connected by installing our app here yet: connect with credentials made in your Shopify admin instead.',
      );
      // A merchant's browser that reaches an install the operator has not set up: a page, not JSON.
      const page = await open('/connectors/shopify/install?state=whatever');
      expect(page.status).to.equal(422);
      expect(page.type).to.match(/^text\/html/);
      expect(page.html)
        .to.contain('<h1>The store was not connected</h1>')
        .and.contain('connect with credentials made in your Shopify admin instead');
      expect(page.html).to.contain('href="/dashboard/stores"').and.not.to.contain('CONNECTOR_');
      // A script still gets the API's error shape.
      const json = await open('/connectors/shopify/install?state=whatever', undefined, 'application/json');
      expect(JSON.parse(json.html).error.code).to.equal('unsupported_platform');
    });
  });

  describe('Shopify with its app key and secret', () => {
    let t: TestService;
    before(async function () {
      t = await startTestService(
        this,
        'pglite',
        {
          CONNECTOR_SHOPIFY_API_KEY: '4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90',
          CONNECTOR_SHOPIFY_API_SECRET: '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',
        },
        { connectors: [shopifyConnector] },
      );
    });
    after(async () => t?.close());

    it('offers the install, and an unknown install link is a page saying so', async () => {
      const { open } = await signedIn(t);
      const stores = await open('/dashboard/stores');
      expect(stores.html).to.contain('aria-label="Install on Shopify (Shopify)"');
      const page = await open('/connectors/shopify/install?state=not-a-state');
      expect(page.status).to.equal(404);
      expect(page.html).to.contain('This install link is unknown or has expired: ask for a new one.');
    });
  });
});

describe('dashboard: the webhooks page [pglite]', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  it('points a local receiver at listen, and shows a refused URL once, next to its field', async () => {
    const { open } = await signedIn(t);
    const page = await open('/dashboard/webhooks');
    expect(page.html).to.match(
      /data-testid="listen-hint"[^>]*>[^]*npm run admin -- listen --api-key prk_live_…[^]*--forward-to http:\/\/localhost:4000\/hooks/,
    );
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!;
    const refused = await open('/dashboard/webhooks', {
      url: 'http://hooks.example.com/print',
      events: '*',
      _csrf: csrf,
    });
    expect(refused.status).to.equal(422);
    const alerts = [...refused.html.matchAll(/role="alert">([^<]*)</g)].map((m) => m[1]);
    expect(alerts, refused.html).to.have.length(1);
    expect(refused.html).to.match(/<p id="f-url-error" class="error" role="alert">[^<]+<\/p>/);
  });
});
