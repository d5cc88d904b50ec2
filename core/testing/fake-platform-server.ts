import type { ConnectorContext, HttpClient } from '@print-api/connector-kit';
import type { FakeHttpsServer, FakeRequestHandler } from '@print-api/connector-kit/testing';
import { createSafeFetch, type SafeFetch } from '../src/infra/safe-fetch/safe-fetch.ts';
import { createConnectorHttp, type ConnectorHttpDeps } from '../src/modules/stores/outbound/connector-http.ts';
import { startHttpsServer } from './https-server.ts';

/** Options of core's connector HTTP client in tests (its guard and user agent are the helper's). */
export type TestConnectorHttpOptions = Omit<ConnectorHttpDeps, 'safeFetch' | 'userAgent'>;

/**
 * Core's connector HTTP client over `safeFetch`, as composition builds it, except that it does
 * not wait out a Retry-After: a 429 answers at once, and these tests look at what the pipeline
 * gets when waiting does not fit (`rate_limited` with the wait). `options` can turn waiting back on.
 */
export function testConnectorHttp(
  safeFetch: SafeFetch,
  userAgent: string,
  options: TestConnectorHttpOptions = {},
): HttpClient {
  return createConnectorHttp({ safeFetch, userAgent, retry: { maxRetries: 0 }, ...options });
}

/** A fake platform's server, and core's connector HTTP client trusting it. */
export interface FakePlatformServer extends FakeHttpsServer {
  /**
   * Core's connector HTTP client (the outbound guard included) trusting the server's certificate: a ConnectorContext's
   * `http`.
   */
  http: HttpClient;
  /** A connector's context calling through `http`, as core gives it (`publicUrl` ours, a silent logger). */
  context<S>(platform: string, settings: S, publicUrl?: string): ConnectorContext<S>;
}

/**
 * A real local HTTPS server for a fake platform, trusted by the service under test: what no route answers goes to the
 * handler its `fallback` sets (a platform with ids in its paths, or shops under prefixes), else 404. `ca` is the PEM
 * of the run's test CA.
 */
export async function startFakeHttpsServer(): Promise<FakeHttpsServer & { ca: string }> {
  let fallback: FakeRequestHandler | undefined;
  const server = await startHttpsServer((req, res, body) =>
    fallback ? fallback(req, res, body) : void res.writeHead(404).end(),
  );
  return {
    url: server.url,
    ca: server.ca,
    route: server.route,
    close: server.close,
    fallback: (handler) => void (fallback = handler),
  };
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A real local HTTPS server for a fake platform (`https://localhost:PORT`, a certificate of the
 * run's test CA; `fallback` answers what no route does, as `FakePlatform.start` expects) and the
 * connector HTTP client that reaches it, for a connector's tests that call the connector
 * directly (`ConnectorContext.http`) over the wire instead of behind nock.
 *
 * @example
 * ```ts
 * const server = await startFakePlatformServer();
 * const settings = await new FakeWix().start(server);
 * const ctx = server.context('wix', settings);
 * ```
 */
export async function startFakePlatformServer(
  userAgent = 'print-api-tests/1.0',
  options: TestConnectorHttpOptions = {},
): Promise<FakePlatformServer> {
  const server = await startFakeHttpsServer();
  const safeFetch = createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent });
  const http = testConnectorHttp(safeFetch, userAgent, options);
  return {
    url: server.url,
    route: server.route,
    close: server.close,
    fallback: server.fallback,
    http,
    context: (platform, settings, publicUrl = 'https://print-api.example.com') => ({
      http,
      logger: silent,
      clock: () => new Date(),
      publicUrl,
      webhookUrl: () => `${publicUrl}/connectors/${platform}/webhooks`,
      settings,
    }),
  };
}
