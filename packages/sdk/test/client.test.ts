import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  createClient,
  NotFoundError,
  PrintApiError,
  RateLimitError,
  ServerError,
  SDK_VERSION,
  UnprocessableError,
  ConnectionError,
} from '../src/index.ts';

/**
 * The client's narrow error cases, answered at its fetch boundary: each request is recorded and answered by the next
 * scripted answer.
 */
function scripted(answers: Array<(req: Request) => Response | Promise<Response>>) {
  const requests: Array<{ method: string; url: string; headers: Headers; body: string }> = [];
  const fetchFn = (async (input: Request) => {
    requests.push({ method: input.method, url: input.url, headers: input.headers, body: await input.text() });
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request ${input.method} ${input.url}`);
    return answer(input);
  }) as typeof fetch;
  return { fetchFn, requests };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const ORDER_INPUT = {
  lines: [{ productId: 'business-cards', quantity: 250, fileUrl: 'https://files.example/flyer.pdf' }],
  recipient: {
    name: 'Jan de Vries',
    address1: 'Keizersgracht 1',
    postalCode: '1015 CJ',
    city: 'Amsterdam',
    country: 'NL',
  },
};
const ORDER = { id: 'ord_1', state: 'SUBMITTED', status: 'PAID' };

describe('the SDK client', () => {
  it('sends the key and its own User-Agent (generic agents are refused by the CDN), and unwraps data', async () => {
    const { fetchFn, requests } = scripted([json(200, { data: { resellerId: 'rsl_1', mode: 'test' } })]);
    const client = createClient({
      apiKey: 'prk_test_abc',
      baseUrl: 'http://api.example/api/reseller/v1/',
      fetch: fetchFn,
      userAgent: 'my-shop/2.1',
    });
    expect(await client.me()).to.deep.equal({ resellerId: 'rsl_1', mode: 'test' });
    expect(requests[0]!.url).to.equal('http://api.example/api/reseller/v1/me');
    expect(requests[0]!.headers.get('authorization')).to.equal('Bearer prk_test_abc');
    expect(requests[0]!.headers.get('user-agent')).to.match(
      new RegExp(`^my-shop/2\\.1 print-api-sdk/${SDK_VERSION.replace(/\./g, '\\.')} \\(node `),
    );
  });

  it('retries a 429 after the Retry-After the API sent, then answers', async () => {
    const { fetchFn, requests } = scripted([
      json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' }),
      json(200, { data: ORDER }),
    ]);
    const retries: number[] = [];
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn, onRetry: (i) => retries.push(i.delayMs) });
    const started = Date.now();
    expect(await client.orders.get('ord_1')).to.deep.equal(ORDER);
    expect(retries).to.deep.equal([1000]);
    expect(Date.now() - started).to.be.at.least(950);
    expect(requests).to.have.length(2);
  });

  it('does not wait for a Retry-After longer than maxRetryDelayMs: a RateLimitError with the wait', async () => {
    const { fetchFn } = scripted([
      json(429, { error: { code: 'rate_limited', message: 'Rate limit exceeded.' } }, { 'retry-after': '120' }),
    ]);
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn, maxRetryDelayMs: 5000 });
    const err = await client.orders.get('ord_1').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RateLimitError);
    expect(err).to.include({ status: 429, code: 'rate_limited', retryAfterSeconds: 120 });
  });

  it('places an order with a generated Idempotency-Key and retries a 503 with the same key', async () => {
    const { fetchFn, requests } = scripted([
      json(503, { error: { code: 'service_unavailable', message: 'busy' } }, { 'retry-after': '0' }),
      json(201, { data: { ...ORDER, duplicate: false } }),
    ]);
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn });
    const placed = await client.orders.create(ORDER_INPUT);
    expect(placed.id).to.equal('ord_1');
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).to.match(/^[0-9a-f-]{36}$/);
    expect(keys[1]).to.equal(keys[0]);
    expect(JSON.parse(requests[1]!.body)).to.deep.equal(ORDER_INPUT);
  });

  it('uses the Idempotency-Key given, and a repeat answers the first order (200, duplicate)', async () => {
    const { fetchFn, requests } = scripted([json(200, { data: { ...ORDER, duplicate: true } })]);
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn });
    expect((await client.orders.create(ORDER_INPUT, { idempotencyKey: 'shop-order-1001' })).duplicate).to.equal(true);
    expect(requests[0]!.headers.get('idempotency-key')).to.equal('shop-order-1001');
  });

  it('does not repeat a 5xx of a request that is not safe to repeat (POST /webhooks): a ServerError', async () => {
    const { fetchFn, requests } = scripted([json(500, { error: { code: 'internal_error', message: 'oops' } })]);
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn });
    const err = await client.webhooks
      .create({ url: 'https://hooks.example/print', events: ['*'] })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ServerError);
    expect(requests).to.have.length(1);
  });

  it('throws typed errors carrying the API code, message, details and request id', async () => {
    const details = [{ line: 0, field: 'lines[0].fileUrl', code: 'invalid_file_url', message: 'not https' }];
    const { fetchFn } = scripted([
      json(
        422,
        { error: { code: 'invalid_file_url', message: 'The file URL must be https.', details } },
        { 'x-request-id': 'req_42' },
      ),
      json(404, { error: { code: 'not_found', message: 'No order ord_x.' } }),
    ]);
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn });
    const invalid = await client.orders.create(ORDER_INPUT).catch((e: unknown) => e);
    expect(invalid).to.be.instanceOf(UnprocessableError).and.instanceOf(PrintApiError);
    expect(invalid).to.include({
      status: 422,
      code: 'invalid_file_url',
      message: 'The file URL must be https.',
      requestId: 'req_42',
    });
    expect((invalid as UnprocessableError).details).to.deep.equal(details);
    const missing = await client.orders.get('ord_x').catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(NotFoundError);
    expect((missing as NotFoundError).code).to.equal('not_found');
  });

  it('a service that cannot be reached is a ConnectionError naming the URL, after the retries of a safe request', async () => {
    const client = createClient({
      apiKey: 'prk_test_abc',
      baseUrl: 'http://127.0.0.1:9/api/reseller/v1',
      maxRetries: 1,
    });
    const err = await client.orders.get('ord_1').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ConnectionError);
    expect((err as Error).message).to.contain('http://127.0.0.1:9/api/reseller/v1/orders/ord_1');
  });

  it('iterates every page of a list by its cursor: for await (const order of client.orders.list())', async () => {
    const page = (ids: string[], nextCursor: string | null) =>
      json(200, {
        data: ids.map((id) => ({ ...ORDER, id })),
        nextCursor,
        limit: 2,
        maxLimit: 100,
        limitCapped: false,
        requestedLimit: 2,
      });
    const { fetchFn, requests } = scripted([page(['ord_3', 'ord_2'], 'c1'), page(['ord_1'], null)]);
    const client = createClient({ apiKey: 'prk_test_abc', fetch: fetchFn });
    const ids: string[] = [];
    for await (const order of client.orders.list({ state: 'SUBMITTED', limit: 2 })) ids.push(order.id);
    expect(ids).to.deep.equal(['ord_3', 'ord_2', 'ord_1']);
    expect(requests.map((r) => new URL(r.url).search)).to.deep.equal([
      '?state=SUBMITTED&limit=2',
      '?state=SUBMITTED&limit=2&cursor=c1',
    ]);
  });

  it("states the package's own version in its User-Agent", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(SDK_VERSION).to.equal(pkg.version);
  });
});
