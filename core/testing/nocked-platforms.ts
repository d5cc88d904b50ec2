import type { HttpClient } from '@print-api/connector-kit';
import { createSafeFetch, type HostLookup } from '../src/infra/safe-fetch/safe-fetch.ts';
import { systemLookup } from '../src/infra/safe-fetch/target-resolver.ts';
import { createConnectorHttp, type ConnectorHttpDeps } from '../src/modules/stores/connector-http.ts';

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
 * behind nock. It does not wait out a Retry-After: a nocked 429 answers once, and these tests
 * look at what the pipeline gets when waiting does not fit (`rate_limited` with the wait). The
 * waiting itself is tested on a real server (core/test/stores/connector-http-retry-after.test.ts)
 * and in the connectors' end-to-end suites; `options` can turn it back on (with a recording `sleep`).
 */
export function nockedConnectorHttp(userAgent = 'print-api-tests/1.0', options: Omit<ConnectorHttpDeps, 'safeFetch' | 'userAgent'> = {}): HttpClient {
  return createConnectorHttp({ safeFetch: createSafeFetch({ allowedHosts: [], userAgent, lookup: nockedPlatformLookup }), userAgent, retry: { maxRetries: 0 }, ...options });
}
