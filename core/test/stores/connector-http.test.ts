import { expect } from 'chai';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ConnectorError, type HttpClient } from '@print-api/connector-kit';
import { createSafeFetch, SafeFetchError, type HostLookup } from '../../src/infra/safe-fetch/safe-fetch.ts';
import {
  createConnectorHttp,
  refusedPrivateHost,
  type ConnectorHttpDeps,
} from '../../src/modules/stores/outbound/connector-http.ts';
import { connectorFailure as failure } from '../helpers/connector-failure.ts';
import { neverAnswer, redirectTo, sendBytes, startHttpsServer, type TestHttpsServer } from '../helpers/https-server.ts';

describe('the connector HTTP client (on SafeFetch)', () => {
  let server: TestHttpsServer;
  /** Core's client; only `localhost` (the test server) is exempt from the private-address block. */
  const client = (
    opts: { allowedHosts?: string[]; lookup?: HostLookup } & Omit<ConnectorHttpDeps, 'safeFetch'> = {},
  ): HttpClient => {
    const { allowedHosts = ['localhost'], lookup, ...rest } = opts;
    return createConnectorHttp({
      safeFetch: createSafeFetch({
        allowedHosts,
        ca: [server.ca],
        userAgent: 'safe-fetch-default/1',
        ...(lookup ? { lookup } : {}),
      }),
      ...rest,
    });
  };

  before(async () => {
    server = await startHttpsServer();
    server.route(
      '/echo',
      (req, res, body) =>
        void res
          .writeHead(200, { 'content-type': 'application/json', 'x-total': '3' })
          .end(JSON.stringify({ method: req.method, url: req.url, body: body.toString(), headers: req.headers })),
    );
    server.route('/cookies', (_req, res) => void res.writeHead(200, { 'set-cookie': ['a=1', 'b=2'] }).end());
    server.route('/moved', redirectTo('/echo', 301));
  });
  after(() => server.close());

  describe('what it sends and answers', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      it(`sends a ${method} with the connector's headers and body, and answers status, headers and text`, async () => {
        const body = method === 'GET' ? undefined : '{"status":"completed"}';
        const res = await client().request({
          method,
          url: `${server.url}/echo?page=2`,
          headers: { authorization: 'Basic Y2s6Y3M=', 'content-type': 'application/json' },
          ...(body ? { body } : {}),
        });
        expect(res.status).to.equal(200);
        expect(res.headers['x-total']).to.equal('3');
        const seen = JSON.parse(res.body) as {
          method: string;
          url: string;
          body: string;
          headers: Record<string, string>;
        };
        expect(seen).to.include({ method, url: '/echo?page=2', body: body ?? '' });
        expect(seen.headers).to.include({
          authorization: 'Basic Y2s6Y3M=',
          'user-agent': 'print-api-connectors/1.0',
          'accept-encoding': 'gzip, deflate, br',
        });
      });
    }

    it("lets a connector name itself, and joins repeated response headers as fetch's Headers did", async () => {
      const seen = JSON.parse(
        (
          await client().request({
            method: 'GET',
            url: `${server.url}/echo`,
            headers: { 'User-Agent': 'Shopify API Library' },
          })
        ).body,
      ) as { headers: Record<string, string> };
      expect(seen.headers['user-agent']).to.equal('Shopify API Library');
      expect((await client().request({ method: 'GET', url: `${server.url}/cookies` })).headers['set-cookie']).to.equal(
        'a=1, b=2',
      );
    });

    it('does not follow redirects: the 3xx is the answer, and its target is never asked', async () => {
      const echoes = server.hits('/echo');
      const res = await client().request({
        method: 'GET',
        url: `${server.url}/moved`,
        headers: { authorization: 'Basic Y2s6Y3M=' },
      });
      expect(res.status).to.equal(301);
      expect(res.headers.location).to.equal('/echo');
      expect(server.hits('/echo')).to.equal(echoes);
    });

    it('decodes gzip and brotli answers, and hands on headers that match the decoded body', async () => {
      const json = JSON.stringify({ orders: Array.from({ length: 200 }, (_, i) => ({ id: i })) });
      server.route(
        '/gzip',
        (_req, res) =>
          void res
            .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
            .end(gzipSync(json)),
      );
      server.route(
        '/br',
        (_req, res) =>
          void res
            .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' })
            .end(brotliCompressSync(json)),
      );
      for (const path of ['/gzip', '/br']) {
        const res = await client().request({ method: 'GET', url: `${server.url}${path}` });
        expect(res.body, path).to.equal(json);
        expect(res.headers, path).to.not.have.property('content-encoding');
      }
    });
  });

  describe('limits', () => {
    it('fails an answer larger than the body limit as invalid_payload, without reading it all', async () => {
      server.route('/huge', sendBytes(Buffer.alloc(4 * 1024 * 1024, 0x61), 'application/json'));
      server.route('/exact', sendBytes(Buffer.alloc(1000, 0x61), 'application/json'));
      const err = await failure(client({ maxBodyBytes: 1000 }).request({ method: 'GET', url: `${server.url}/huge` }));
      expect(err.kind).to.equal('invalid_payload');
      expect(err.message).to.contain('larger than 1000 bytes');
      expect(
        (await client({ maxBodyBytes: 1000 }).request({ method: 'GET', url: `${server.url}/exact` })).body,
      ).to.have.length(1000);
    });

    it('fails a small compressed answer that decodes beyond the limit (a compression bomb)', async () => {
      server.route(
        '/bomb',
        (_req, res) =>
          void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(20 * 1024 * 1024))),
      );
      const err = await failure(
        client({ maxBodyBytes: 64 * 1024 }).request({ method: 'GET', url: `${server.url}/bomb` }),
      );
      expect(err.kind).to.equal('invalid_payload');
      expect(err.message).to.contain('larger than 65536 bytes');
    });

    it('times out (upstream_unavailable) after the request timeout, or the default one', async () => {
      server.route('/silent', neverAnswer());
      // The server never answers and the client's default is an hour: only the request's own 300 ms can end
      // the first request within the test's timeout, however busy the machine.
      const started = Date.now();
      const err = await failure(
        client({ defaultTimeoutMs: 3_600_000 }).request({ method: 'GET', url: `${server.url}/silent`, timeoutMs: 300 }),
      );
      expect(err.kind).to.equal('upstream_unavailable');
      expect(err.message).to.equal(`GET localhost:${server.port}: timed out`);
      expect(Date.now() - started).to.be.at.least(250);
      expect(
        (await failure(client({ defaultTimeoutMs: 300 }).request({ method: 'GET', url: `${server.url}/silent` })))
          .message,
      ).to.contain('timed out');
    });

    it('reports a refused connection as upstream_unavailable with the error code only', async () => {
      const gone = await startHttpsServer();
      await gone.close();
      const err = await failure(client().request({ method: 'GET', url: `https://localhost:${gone.port}/` }));
      expect(err.kind).to.equal('upstream_unavailable');
      expect(err.message).to.equal(`GET localhost:${gone.port}: the connection failed (ECONNREFUSED)`);
    });
  });

  describe('the guard', () => {
    // Each points at the test server's port: its connection count proves the refusal came first.
    const hostile = [
      '127.0.0.1',
      'localhost',
      '0x7f000001',
      '2130706433',
      '127.1',
      '0177.0.0.1',
      '0.0.0.0',
      '[::1]',
      '[::ffff:127.0.0.1]',
      'loopback.store.example',
    ];
    const lookup: HostLookup = async (host) =>
      host === 'loopback.store.example'
        ? [{ address: '127.0.0.1', family: 4 }]
        : [
            { address: '127.0.0.1', family: 4 },
            { address: '::1', family: 6 },
          ];
    for (const host of hostile) {
      it(`refuses https://${host} before connecting: invalid_payload caused by address_blocked, no address named`, async () => {
        const before = server.connections();
        const url = `https://${host}:${server.port}/wp-json/wc/v3/webhooks?per_page=1`;
        const err = await failure(client({ allowedHosts: [], lookup }).request({ method: 'GET', url }));
        expect(err.kind).to.equal('invalid_payload');
        expect(err.cause).to.be.instanceOf(SafeFetchError);
        expect((err.cause as SafeFetchError).code).to.equal('address_blocked');
        const shownHost = new URL(url).host;
        expect(err.message).to.equal(`GET ${shownHost}: ${shownHost} is not a public internet address`);
        if (!/^[\d.]+:|^\[/.test(shownHost)) expect(err.message).to.not.contain('127.0.0.1');
        expect(refusedPrivateHost(err)).to.equal(shownHost);
        expect(server.connections()).to.equal(before);
      });
    }

    for (const host of [
      '169.254.169.254',
      '10.0.0.1',
      '192.168.1.1',
      '172.16.0.1',
      '100.64.0.1',
      '[fd00::1]',
      '[fe80::1]',
    ]) {
      it(`refuses https://${host}: invalid_payload caused by address_blocked`, async () => {
        const err = await failure(
          client({ allowedHosts: [] }).request({
            method: 'POST',
            url: `https://${host}/latest/meta-data/`,
            body: '{}',
            timeoutMs: 10_000,
          }),
        );
        expect(err.kind).to.equal('invalid_payload');
        expect(refusedPrivateHost(err)).to.equal(host);
      });
    }

    it('refuses plain http and URLs carrying credentials (invalid_payload, not a private-address refusal)', async () => {
      for (const url of [`http://localhost:${server.port}/echo`, `https://u:p@localhost:${server.port}/echo`]) {
        const err = await failure(client().request({ method: 'GET', url }));
        expect(err.kind, url).to.equal('invalid_payload');
        expect(refusedPrivateHost(err), url).to.equal(undefined);
      }
    });

    it('finds the refusal through errors a connector wrapped around it', async () => {
      const err = await failure(client({ allowedHosts: [] }).request({ method: 'GET', url: 'https://10.1.2.3/' }));
      const wrapped = new ConnectorError('invalid_payload', 'There is no WooCommerce REST API', {
        cause: new Error('library', { cause: err }),
      });
      expect(refusedPrivateHost(wrapped)).to.equal('10.1.2.3');
      expect(refusedPrivateHost(new ConnectorError('upstream_unavailable', 'down'))).to.equal(undefined);
    });
  });
});
