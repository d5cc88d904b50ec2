import { expect } from 'chai';
import { describeEachBackend } from '../helpers/test-service.ts';
import { withoutNock } from '../helpers/without-nock.ts';

describeEachBackend('edge and HTTP conventions', (get) => {
  withoutNock();
  let key: string;
  before(async () => {
    key = (await get().reseller()).key;
  });

  for (const ua of [
    'python-requests/2.31.0',
    'Python-urllib/3.11',
    'Go-http-client/1.1',
    'Java/17.0.2',
    'libwww-perl/6.72',
    'okhttp/4.12.0',
  ]) {
    it(`refuses the generic user agent '${ua}' with 403 code 1010`, async () => {
      const res = await fetch(`${get().baseUrl}/api/reseller/v1/me`, {
        headers: { 'user-agent': ua, authorization: `Bearer ${key}` },
      });
      expect(res.status).to.equal(403);
      expect(((await res.json()) as any).error.code).to.equal('1010');
    });
  }

  it('refuses a request without a User-Agent', async () => {
    const res = await get().api(key, 'GET', '/me', undefined, { 'user-agent': '' });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('1010');
  });

  it('answers unknown routes with 404 in the error shape and a Request-Id', async () => {
    const res = await get().api(key, 'GET', '/no-such-thing');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('route_not_found');
    expect(res.headers.get('request-id')).to.match(/^req_/);
  });

  it('routes as express does: any case, a trailing slash, HEAD on a GET route', async () => {
    const t = get();
    expect((await t.api(key, 'GET', '/ME/')).status).to.equal(200);
    const head = await fetch(`${t.baseUrl}/api/reseller/v1/products/business-cards`, {
      method: 'HEAD',
      headers: { 'user-agent': 'test/1.0', authorization: `Bearer ${key}` },
    });
    expect(head.status).to.equal(200);
  });

  it('answers a path parameter with broken percent-encoding with 400 invalid_request, not 500', async () => {
    const res = await get().api(key, 'GET', '/orders/%E0%A4%A');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
    expect(res.body.error.message).to.contain("'id'");
  });

  it('answers what express itself refuses on the connector routes with a 4xx in the error shape, not 500', async () => {
    const t = get();
    const send = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${t.baseUrl}${path}`, init);
      return { status: res.status, body: (await res.json()) as any };
    };
    // A path parameter that is not valid percent-encoding (express's router throws a URIError).
    const encoding = await send('/connectors/%ED%A0%80/callback');
    expect(encoding.status).to.equal(400);
    expect(encoding.body.error.code).to.equal('invalid_request');
    // A raw body that does not decompress, and one over the webhook limit (body-parser's own errors).
    const garbled = await send('/connectors/shopify/webhooks/sto_x', {
      method: 'POST',
      headers: { 'content-encoding': 'gzip' },
      body: 'not gzip',
    });
    expect(garbled.status).to.equal(400);
    expect(garbled.body.error.code).to.equal('invalid_request');
    const large = await send('/connectors/shopify/webhooks/sto_x', {
      method: 'POST',
      body: Buffer.alloc(6 * 1024 * 1024, 0x20),
    });
    expect(large.status).to.equal(413);
    expect(large.body.error.code).to.equal('payload_too_large');
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await get().admin('POST', '/resellers', '{"name": ');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
  });

  it('answers a body over 1 MB with 413', async () => {
    const res = await get().admin('POST', '/resellers', { name: 'x'.repeat(1_100_000) });
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('payload_too_large');
  });

  it('answers a non-JSON body with 415', async () => {
    const t = get();
    const res = await fetch(`${t.baseUrl}/admin/v1/resellers`, {
      method: 'POST',
      headers: {
        'user-agent': 'x-test',
        authorization: `Bearer ${t.service.adminToken}`,
        'content-type': 'text/plain',
      },
      body: 'name=x',
    });
    expect(res.status).to.equal(415);
  });

  it('names every invalid field in details', async () => {
    const res = await get().admin('POST', '/resellers', {
      name: '',
      email: 'nope',
      phone: 'x',
      discountPercent: 150,
      extra: 1,
    });
    expect(res.status).to.equal(400);
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).to.include.members(['name', 'email', 'phone', 'discountPercent']);
  });

  it('serves the OpenAPI 3.1 description and the reference page', async () => {
    const t = get();
    const doc = await t.api(undefined, 'GET', '/openapi.json');
    expect(doc.status).to.equal(200);
    expect(doc.body.openapi).to.equal('3.1.0');
    expect(doc.body.info.version).to.equal('1.2.0');
    const page = await fetch(`${t.baseUrl}/api/reseller/v1/docs`, { headers: { 'user-agent': 'x-test' } });
    expect(await page.text()).to.contain('swagger-ui-bundle.js');
    const asset = await fetch(`${t.baseUrl}/api/reseller/v1/docs/assets/swagger-ui-bundle.js`, {
      headers: { 'user-agent': 'x-test' },
    });
    expect(asset.status).to.equal(200);
  });

  it('reports health and readiness', async () => {
    const t = get();
    expect((await fetch(`${t.baseUrl}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${t.baseUrl}/readyz`);
    expect(ready.status).to.equal(200);
    expect(((await ready.json()) as any).checks.database).to.equal('ok');
  });
});
