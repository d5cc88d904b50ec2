import { expect } from 'chai';
import { deflateSync, gzipSync } from 'node:zlib';
import { describeEachBackend, USER_AGENT, type TestService } from '../helpers/test-service.ts';
import { withoutNock } from '../helpers/without-nock.ts';

const RESELLER = { name: 'Acme Prints', email: 'ops@acme.example', phone: '+31 20 123 4567' };

/** Sends `text` as it is (JSON escapes such as `\ud800` reach the service as written). */
function raw(t: TestService, path: string, text: string | Buffer, headers: Record<string, string> = {}) {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'user-agent': USER_AGENT,
      authorization: `Bearer ${t.service.adminToken}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: text,
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
}

function expectNamed(res: { status: number; body: any }, field: string, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.error.code).to.equal('invalid_request');
  expect(res.body.error.details).to.deep.include({ field, code, message: res.body.error.details[0].message });
  expect(res.body.error.message).to.contain(field);
}

/**
 * Text PostgreSQL cannot store (NUL, unpaired surrogates) and bodies that cannot be decoded are the client's mistake.
 */
describeEachBackend('text the database cannot store, refused at the edge', (get) => {
  withoutNock();
  let key: string;
  before(async () => {
    key = (await get().reseller()).key;
  });

  it('answers a NUL in a body string with 400 naming the field, on the back-office and the API', async () => {
    const t = get();
    expectNamed(
      await t.admin('POST', '/resellers', { ...RESELLER, name: 'Acme\u0000Prints' }),
      'name',
      'nul_character',
    );
    const order = await t.api(
      key,
      'POST',
      '/orders',
      {
        lines: [{ productId: 'business-cards', quantity: 100 }],
        recipient: { name: 'A\u0000', address1: 'x', postalCode: '1', city: 'y', country: 'NL' },
      },
      { 'idempotency-key': 'nul-1' },
    );
    expectNamed(order, 'recipient.name', 'nul_character');
    const quote = await t.api(key, 'POST', '/quotes', {
      country: 'NL',
      lines: [
        { productId: 'business-cards', quantity: 100 },
        { productId: 'flyers', quantity: 1, options: { paper: 'gloss\u0000' } },
      ],
    });
    expectNamed(quote, 'lines[1].options.paper', 'nul_character');
  });

  it('answers a NUL in an object key with 400 naming it', async () => {
    const res = await get().api(key, 'POST', '/quotes', {
      country: 'NL',
      lines: [{ productId: 'business-cards', quantity: 100, options: { 'pa\u0000per': 'x' } }],
    });
    expectNamed(res, 'lines[0].options.pa\u0000per', 'nul_character');
  });

  it('answers a lone surrogate, high or low, sent as a JSON escape, with 400 naming the field', async () => {
    const t = get();
    expectNamed(
      await raw(
        t,
        '/admin/v1/resellers',
        `{"name":"Acme \\ud800","email":"ops@acme.example","phone":"+31 20 123 4567"}`,
      ),
      'name',
      'unpaired_surrogate',
    );
    expectNamed(
      await raw(
        t,
        '/admin/v1/resellers',
        `{"name":"\\udc00 Acme","email":"ops@acme.example","phone":"+31 20 123 4567"}`,
      ),
      'name',
      'unpaired_surrogate',
    );
    expectNamed(
      await raw(
        t,
        '/admin/v1/resellers',
        `{"name":"\\ude00\\ud83d","email":"ops@acme.example","phone":"+31 20 123 4567"}`,
      ),
      'name',
      'unpaired_surrogate',
    );
  });

  it('keeps text that only looks alike: a surrogate pair, an escaped backslash before u0000, other control characters', async () => {
    const t = get();
    const res = await raw(
      t,
      '/admin/v1/resellers',
      `{"name":"Acme \\ud83d\\ude00 \\\\u0000 \\u0001","email":"ops@acme.example","phone":"+31 20 123 4567"}`,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.name).to.equal('Acme \u{1f600} \\u0000 \u0001');
    expect((await t.admin('GET', `/resellers/${res.body.data.id}`)).body.data.name).to.equal(
      'Acme \u{1f600} \\u0000 \u0001',
    );
  });

  it('answers a NUL in a query parameter with 400 naming the parameter', async () => {
    const res = await get().api(key, 'GET', '/orders?limit=5&externalOrderId=ext%00-1');
    expectNamed(res, 'externalOrderId', 'nul_character');
  });

  it('answers a NUL in a path segment with 400, on the API, the back-office and the connector routes', async () => {
    const t = get();
    for (const res of [
      await t.api(key, 'GET', '/orders/ord_%00'),
      await t.api(key, 'GET', '/reseller-products/sku%00'),
      await t.admin('GET', '/resellers/rsl_%00'),
      await fetch(`${t.baseUrl}/connectors/shopify/webhooks/sto_%00/orders`, { method: 'POST', body: '{}' }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      ),
    ]) {
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.details[0]).to.include({ field: 'path', code: 'nul_character' });
    }
  });

  it('answers a body that does not decode as its Content-Encoding with 400, and an unknown encoding with 415', async () => {
    const t = get();
    for (const [encoding, body] of [
      ['gzip', Buffer.from('not gzip at all')],
      ['deflate', Buffer.from([1, 2, 3, 4])],
      ['br', Buffer.from('no')],
    ] as const) {
      const res = await raw(t, '/admin/v1/resellers', body, { 'content-encoding': encoding });
      expect(res.status, `${encoding}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.message).to.contain(encoding);
    }
    const unknown = await raw(t, '/admin/v1/resellers', Buffer.from(JSON.stringify(RESELLER)), {
      'content-encoding': 'br2',
    });
    expect(unknown.status).to.equal(415);
    expect(unknown.body.error.code).to.equal('unsupported_media_type');
    expect(unknown.body.error.message).to.contain('br2');
    expect(
      (await raw(t, '/admin/v1/resellers', gzipSync(JSON.stringify(RESELLER)), { 'content-encoding': 'gzip' })).status,
    ).to.equal(201);
    expect(
      (await raw(t, '/admin/v1/resellers', deflateSync(JSON.stringify(RESELLER)), { 'content-encoding': 'deflate' }))
        .status,
    ).to.equal(201);
    // A NUL inside a compressed body is found like any other.
    expectNamed(
      await raw(t, '/admin/v1/resellers', gzipSync(JSON.stringify({ ...RESELLER, phone: '\u0000' })), {
        'content-encoding': 'gzip',
      }),
      'phone',
      'nul_character',
    );
  });

  it('answers a body nested deeper than any request needs with 400', async () => {
    const res = await get().api(
      key,
      'POST',
      '/quotes',
      `{"country":"NL","lines":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    );
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
    expect(res.body.error.details[0]).to.include({ code: 'too_deep' });
  });

  it('checks the JSON body of the connector install links too', async () => {
    const t = get();
    const res = await fetch(`${t.baseUrl}/connectors/shopify/install-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ shop: 'tulip\u0000.myshopify.com' }),
    });
    expectNamed({ status: res.status, body: await res.json() }, 'shop', 'nul_character');
  });
});
