import assert from 'node:assert/strict';
import {
  eventually,
  publishingScenarios,
  type ConformanceHarness,
  type FakeHttpsServer,
  type FakeRequestHandler,
} from '@print-api/connector-kit/testing';
import { startConnectorService, startHttpsServer, scaled } from '@print-api/core/testing';
import { wixConnector } from '../src/index.ts';
import { FakeWix, takeContractViolations } from './fake-wix.ts';

const PUBLIC_URL = 'https://print-api.example.com';

// The kit's publishing scenarios (conformance.test.ts runs them on a Catalog V1 site, as part of the whole suite) on
// sites running Catalog V3, as every Wix site made since 2025 does: real PostgreSQL + Redis, the fake Wix over HTTPS.
describe("Wix publishing end to end on a Catalog V3 site (the connector kit's publishing scenarios)", function () {
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  this.timeout(scaled(90_000));
  let h: ConformanceHarness;
  let server: Omit<FakeHttpsServer, 'fallback'>;
  const wix = new FakeWix({ catalogVersion: 'V3_CATALOG' });

  before(async function () {
    let fallback: FakeRequestHandler | undefined;
    server = await startHttpsServer((req, res, body) =>
      fallback ? fallback(req, res, body) : void res.writeHead(404).end(),
    );
    const settings = await wix.start({ ...server, fallback: (handler) => void (fallback = handler) });
    h = await startConnectorService(this, { connectors: [wixConnector], env: settings, publicUrl: PUBLIC_URL });
  });
  after(async () => {
    const wroteV3 = [...wix.sites.values()].some((s) => s.seen('createProductWithInventory').length > 0);
    await h?.close();
    await server?.close();
    assert.ok(wroteV3, 'the scenarios wrote Catalog V3 products');
  });

  publishingScenarios({
    service: () => h,
    connected: async () => {
      const r = await h.reseller('live');
      return { key: r.key, store: await wix.connect(h, r.key) };
    },
    eventually,
    publishYields: 'active',
  });
});
