import { expect } from 'chai';
import client from 'prom-client';
import type { HttpClient } from '@print-api/connector-kit';
import { createSafeFetch } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { connectorHttpClients } from '../../src/modules/stores/outbound/connector-http.ts';
import { neverAnswer, startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';

/** The counter and histogram helpers of core's Metrics, on a registry of this test's own. */
function metricsOn(registry: client.Registry) {
  return {
    counter: <L extends string>(name: string, help: string, labelNames: L[]) =>
      new client.Counter<L>({ name, help, labelNames, registers: [registry] }),
    histogram: <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) =>
      new client.Histogram<L>({ name, help, labelNames, buckets, registers: [registry] }),
  };
}

describe('the connector HTTP client logs and measures every call', () => {
  let server: TestHttpsServer;
  let registry: client.Registry;
  let logs: Array<{ message: string; meta: Record<string, unknown> }>;
  let clientFor: (platform: string) => HttpClient;

  const counted = async (labels: Record<string, string>): Promise<number> => {
    const metric = (await registry.getSingleMetric('connector_http_requests_total')!.get()).values;
    return metric
      .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
      .reduce((sum, v) => sum + v.value, 0);
  };
  const timed = async (labels: Record<string, string>): Promise<number> => {
    const metric = (await registry.getSingleMetric('connector_http_request_duration_seconds')!.get()).values;
    return (
      metric.find(
        (v) =>
          'metricName' in v &&
          v.metricName === 'connector_http_request_duration_seconds_count' &&
          Object.entries(labels).every(([k, value]) => v.labels[k] === value),
      )?.value ?? 0
    );
  };

  before(async () => {
    server = await startHttpsServer();
    server.route(
      '/v3/orders',
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('[]'),
    );
    server.route('/v3/missing', (_req, res) => void res.writeHead(404).end());
    server.route('/slow', neverAnswer());
  });
  beforeEach(() => {
    registry = new client.Registry();
    logs = [];
    clientFor = connectorHttpClients({
      safeFetch: createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent: 'test' }),
      metrics: metricsOn(registry),
      logger: { debug: (message, meta = {}) => void logs.push({ message, meta }) },
    });
  });
  after(() => server.close());

  it('counts calls by platform, operation (the method when none is named) and status, and times them', async () => {
    const woo = clientFor('WOOCOMMERCE');
    await woo.request({ method: 'GET', url: `${server.url}/v3/orders`, operation: 'listOrders' });
    await woo.request({ method: 'GET', url: `${server.url}/v3/orders`, operation: 'listOrders' });
    await woo.request({ method: 'GET', url: `${server.url}/v3/missing` });
    await clientFor('ETSY').request({ method: 'POST', url: `${server.url}/v3/orders`, body: '{}' });
    expect(await counted({ platform: 'WOOCOMMERCE', operation: 'listOrders', status: '200' })).to.equal(2);
    expect(await counted({ platform: 'WOOCOMMERCE', operation: 'GET', status: '404' })).to.equal(1);
    expect(await counted({ platform: 'ETSY', operation: 'POST', status: '200' })).to.equal(1);
    expect(await timed({ platform: 'WOOCOMMERCE', operation: 'listOrders' })).to.equal(2);
    expect(clientFor('WOOCOMMERCE')).to.equal(woo);
  });

  it('counts calls that got no answer as timeout, refused or unreachable', async () => {
    const shop = clientFor('SHOPIFY');
    await shop.request({ method: 'GET', url: `${server.url}/slow`, timeoutMs: 200 }).catch(() => undefined);
    await shop.request({ method: 'GET', url: 'https://10.0.0.1/admin' }).catch(() => undefined);
    const gone = await startHttpsServer();
    await gone.close();
    await shop.request({ method: 'GET', url: `https://localhost:${gone.port}/` }).catch(() => undefined);
    expect(await counted({ platform: 'SHOPIFY', status: 'timeout' })).to.equal(1);
    expect(await counted({ platform: 'SHOPIFY', status: 'refused' })).to.equal(1);
    expect(await counted({ platform: 'SHOPIFY', status: 'unreachable' })).to.equal(1);
  });

  it('logs method, host, path, status and duration at debug level: never the query, headers or body', async () => {
    const secret = 'cs_0a1b2c3d4e5f60718293a4b5c6d7e8f901234567';
    await clientFor('WOOCOMMERCE').request({
      method: 'POST',
      url: `${server.url}/v3/orders?consumer_secret=${secret}`,
      headers: { authorization: `Basic ${Buffer.from(`ck:${secret}`).toString('base64')}`, 'x-api-key': secret },
      body: JSON.stringify({ secret }),
      operation: 'createOrder',
    });
    expect(logs).to.have.length(1);
    expect(logs[0]!.message).to.equal('connector call');
    expect(logs[0]!.meta).to.include({
      platform: 'WOOCOMMERCE',
      operation: 'createOrder',
      method: 'POST',
      host: `localhost:${server.port}`,
      path: '/v3/orders',
      status: '200',
    });
    expect(logs[0]!.meta.durationMs).to.be.a('number');
    expect(JSON.stringify(logs)).not.to.contain(secret);
    expect(JSON.stringify(logs)).not.to.contain(Buffer.from(`ck:${secret}`).toString('base64'));
  });

  it('counts and logs each exchange of a call that waited for Retry-After', async () => {
    let n = 0;
    server.route(
      '/limited',
      (_req, res) => void (++n === 1 ? res.writeHead(429, { 'retry-after': '0' }).end() : res.writeHead(200).end('{}')),
    );
    await clientFor('ETSY').request({ method: 'GET', url: `${server.url}/limited`, operation: 'getReceipt' });
    expect(await counted({ platform: 'ETSY', operation: 'getReceipt', status: '429' })).to.equal(1);
    expect(await counted({ platform: 'ETSY', operation: 'getReceipt', status: '200' })).to.equal(1);
    expect(logs.map((l) => l.message)).to.deep.equal([
      'connector call',
      'connector call waits for Retry-After',
      'connector call',
    ]);
  });
});
