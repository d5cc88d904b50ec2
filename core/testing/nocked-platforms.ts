import type { HttpClient } from '@print-api/connector-kit';
import nock from 'nock';
import { createSafeFetch, type HostLookup } from '../src/infra/safe-fetch/safe-fetch.ts';
import { systemLookup } from '../src/infra/safe-fetch/target-resolver.ts';
import { testConnectorHttp, type TestConnectorHttpOptions } from './fake-platform-server.ts';

/** The names tests put platforms behind nock at: `*.example`, `*.example.com`, `*.myshopify.com`. */
const NOCKED_NAME = /(^|\.)(example|example\.com|myshopify\.com)$/;

/**
 * A public address (example.com's) the nocked names resolve to. The outbound guard checks
 * every host after DNS, and these names resolve nowhere offline; nock answers the request
 * before any socket connects (and refuses net connections to anything but loopback), so the
 * address is only ever checked, never contacted.
 */
export const NOCKED_PLATFORM_ADDRESS = '93.184.215.14';

/** DNS for tests: nocked platform names get the public address above, the rest the OS resolver. */
export const nockedPlatformLookup: HostLookup = async (hostname) =>
  NOCKED_NAME.test(hostname.toLowerCase()) ? [{ address: NOCKED_PLATFORM_ADDRESS, family: 4 }] : systemLookup(hostname);

/**
 * Core's connector HTTP client as composition builds it (the guard included), for platforms
 * behind nock (which answers before any socket connects). Like every test client it does not
 * wait out a Retry-After (`testConnectorHttp`); the waiting itself is tested on a real server
 * (core/test/stores/connector-http-retry-after.test.ts) and in the connectors' end-to-end suites.
 */
export function nockedConnectorHttp(
  userAgent = 'print-api-tests/1.0',
  options: TestConnectorHttpOptions = {},
): HttpClient {
  return testConnectorHttp(
    createSafeFetch({ allowedHosts: [], userAgent, lookup: nockedPlatformLookup }),
    userAgent,
    options,
  );
}

/**
 * The hooks of a suite that calls platforms behind nock, registered on the calling suite: no real connection made
 * while it runs, the interceptors cleared after each test. `ready` receives core's connector HTTP client for them
 * (`nockedConnectorHttp`) once the suite starts.
 */
export function nockedPlatformSuite(ready: (http: HttpClient) => void): void {
  before(() => {
    nock.disableNetConnect();
    ready(nockedConnectorHttp());
  });
  afterEach(() => nock.cleanAll());
  after(() => nock.enableNetConnect());
}
