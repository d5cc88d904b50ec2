import { expect } from 'chai';
import type { HttpClient } from '@print-api/connector-kit';
import { createSafeFetch } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { createConnectorHttp, type ConnectorHttpDeps } from '../../src/modules/stores/outbound/connector-http.ts';
import { retryAfterMs } from '../../src/modules/stores/outbound/retry-after.ts';
import { connectorFailure as failure } from '../helpers/connector-failure.ts';
import { startHttpsServer, type TestHandler, type TestHttpsServer } from '../helpers/https-server.ts';

describe("the connector HTTP client waits out a platform's Retry-After", () => {
  let server: TestHttpsServer;
  /** When each request arrived, by path. */
  const arrivals = new Map<string, number[]>();
  const client = (deps: Omit<ConnectorHttpDeps, 'safeFetch'> = {}): HttpClient =>
    createConnectorHttp({
      safeFetch: createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent: 'test' }),
      ...deps,
    });
  /** Answers `status` with `headers` the first `times` requests, then 200 with the body it got. */
  const refuse = (path: string, status: number, headers: Record<string, string>, times = Infinity): void => {
    arrivals.set(path, []);
    const handler: TestHandler = (_req, res, body) => {
      const seen = arrivals.get(path)!;
      seen.push(Date.now());
      if (seen.length <= times)
        void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{"errors":"slow down"}');
      else
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ attempt: seen.length, body: body.toString() }));
    };
    server.route(path, handler);
  };
  /** A sleep that records the wait and returns at once (the waits are asserted, not sat through). */
  const recordedSleep = (waits: number[]) => async (ms: number) => void waits.push(ms);

  before(async () => {
    server = await startHttpsServer();
  });
  after(() => server.close());

  it('waits Retry-After seconds, then sends the same request again and answers that', async () => {
    refuse('/orders', 429, { 'retry-after': '1' }, 1);
    const res = await client().request({
      method: 'POST',
      url: `${server.url}/orders?page=1`,
      headers: { 'content-type': 'application/json' },
      body: '{"q":1}',
    });
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.body)).to.deep.equal({ attempt: 2, body: '{"q":1}' });
    const [first, second] = arrivals.get('/orders')!;
    expect(second! - first!).to.be.at.least(900);
  });

  it('reads Retry-After as an HTTP date too, and honours it on a 503', async () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    refuse('/maintenance', 503, { 'retry-after': new Date(now + 3000).toUTCString() }, 1);
    const waits: number[] = [];
    const res = await client({ now: () => now, sleep: recordedSleep(waits) }).request({
      method: 'GET',
      url: `${server.url}/maintenance`,
    });
    expect(res.status).to.equal(200);
    expect(waits).to.deep.equal([3000]);
  });

  it('retries at most twice, then fails as rate_limited (at least a second, so the queue does not spin)', async () => {
    refuse('/always', 429, { 'retry-after': '0' });
    const waits: number[] = [];
    const err = await failure(
      client({ sleep: recordedSleep(waits) }).request({ method: 'GET', url: `${server.url}/always` }),
    );
    expect(err).to.include({ kind: 'rate_limited', status: 429, retryAfterMs: 1000 });
    expect(err.message).to.equal(`GET localhost:${server.port}: rate limit reached (429), Retry-After 0 s`);
    expect(waits).to.deep.equal([0, 0]);
    expect(server.hits('/always')).to.equal(3);
  });

  it("fails at once as rate_limited with the platform's wait when it does not fit the call's budget or the cap", async () => {
    const waits: number[] = [];
    refuse('/long', 429, { 'retry-after': '20' });
    expect(
      await failure(
        client({ sleep: recordedSleep(waits) }).request({
          method: 'GET',
          url: `${server.url}/long`,
          timeoutMs: 15_000,
        }),
      ),
    ).to.include({ kind: 'rate_limited', retryAfterMs: 20_000, status: 429 });
    // Within a budget of 21 s the retry would have less than a second left.
    expect(
      await failure(
        client({ sleep: recordedSleep(waits) }).request({
          method: 'GET',
          url: `${server.url}/long`,
          timeoutMs: 20_500,
        }),
      ),
    ).to.include({ kind: 'rate_limited', retryAfterMs: 20_000 });
    refuse('/longer', 503, { 'retry-after': '40' });
    const err = await failure(
      client({ sleep: recordedSleep(waits) }).request({
        method: 'GET',
        url: `${server.url}/longer`,
        timeoutMs: 120_000,
      }),
    );
    expect(err).to.include({ kind: 'rate_limited', retryAfterMs: 40_000, status: 503 });
    expect(err.message).to.contain('unavailable (503), Retry-After 40 s');
    expect(waits).to.deep.equal([]);
    expect(server.hits('/long') + server.hits('/longer')).to.equal(3);
  });

  it('waits within a budget given by the request, and never when told not to retry', async () => {
    refuse('/budget', 429, { 'retry-after': '20' }, 1);
    const waits: number[] = [];
    expect(
      (
        await client({ sleep: recordedSleep(waits) }).request({
          method: 'GET',
          url: `${server.url}/budget`,
          timeoutMs: 60_000,
        })
      ).status,
    ).to.equal(200);
    expect(waits).to.deep.equal([20_000]);
    refuse('/no-retry', 429, { 'retry-after': '1' }, 1);
    expect(
      await failure(client({ retry: { maxRetries: 0 } }).request({ method: 'GET', url: `${server.url}/no-retry` })),
    ).to.include({ kind: 'rate_limited', retryAfterMs: 1000 });
    expect(server.hits('/no-retry')).to.equal(1);
  });

  it('leaves a 429 or 503 without a readable Retry-After to the connector (platforms signal limits their own ways)', async () => {
    for (const [path, status, headers] of [
      ['/bucket', 429, {}],
      ['/down', 503, {}],
      ['/odd', 429, { 'retry-after': 'soon' }],
    ] as const) {
      refuse(path, status, headers);
      const res = await client().request({ method: 'GET', url: `${server.url}${path}` });
      expect(res.status, path).to.equal(status);
      expect(server.hits(path), path).to.equal(1);
    }
  });

  it('reads Retry-After values as platforms write them', () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect(retryAfterMs('120', now)).to.equal(120_000);
    expect(retryAfterMs(' 2.0 ', now)).to.equal(2000);
    expect(retryAfterMs('Thu, 01 Jan 2026 10:00:30 GMT', now)).to.equal(30_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 09:59:00 GMT', now)).to.equal(0);
    for (const unreadable of [undefined, '', 'soon', '-1', '2026-01-01T10:00:30Z', '1e3'])
      expect(retryAfterMs(unreadable, now), String(unreadable)).to.equal(null);
  });
});
