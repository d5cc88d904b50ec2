/**
 * `@print-api/core/testing`: what a connector's tests need of core without importing its
 * sources or test folders: the real service started with given connectors, a local HTTPS
 * server it trusts (for a fake platform), and, for a platform's own end-to-end and client
 * tests, the shared set-up and core's connector HTTP client for platforms behind nock. The
 * kit's `connectorConformance` loads this at run time (the kit takes no build dependency on core).
 * The environment lives here, in the package source; core's own tests reach it through
 * `core/test/helpers`, which re-exports these files.
 */
export { startConnectorService, startFakePlatformService } from './connector-service.ts';
export { redirectTo, sendBytes, startHttpsServer, type TestHttpsServer } from './https-server.ts';
export { tinyHtml, tinyJpeg, tinyPdf, tinyPng } from './print-file-fixtures.ts';
export { startTestService, type TestService } from './test-service.ts';
export {
  connectorE2eService,
  eventually,
  listingsSyncedAt,
  pollNow,
  posterReseller,
  POSTER_SKU,
} from './connector-e2e.ts';
export { nockedConnectorHttp, nockedPlatformLookup, nockedPlatformSuite } from './nocked-platforms.ts';
export { startFakeHttpsServer, startFakePlatformServer, type FakePlatformServer } from './fake-platform-server.ts';
export { connectorFailure } from './connector-failure.ts';
export { waitFor, waitForProgress } from './wait.ts';
export { scaled, TIME_SCALE } from './time-scale.ts';
export type { HostLookup } from '../src/infra/safe-fetch/safe-fetch.ts';
