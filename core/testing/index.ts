/**
 * `@print-api/core/testing`: what a connector's tests need of core without importing its
 * sources: the real service started with given connectors, and a local HTTPS server it trusts
 * (for a fake platform). The kit's `connectorConformance` loads this at run time.
 */
export { startConnectorService } from './connector-service.ts';
export { startHttpsServer } from '../test/helpers/https-server.ts';
