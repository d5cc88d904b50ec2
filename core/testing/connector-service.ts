import type { Connector } from '@print-api/connector-kit';
import type { ConformanceHarness, FakeHttpsServer } from '@print-api/connector-kit/testing';
import { startFakeHttpsServer } from './fake-platform-server.ts';
import { startFileServer } from './file-server.ts';
import { CONNECTOR_SUITE_RATE_LIMIT, startTestService } from './test-service.ts';

/** The reseller product every connector scenario sells: an A2 poster with its artwork. */
const POSTER_SKU = 'POSTER-TULIPS';
const WALLET_CENTS = 1_000_000;

/**
 * The real service on PostgreSQL + Redis (skips the suite when they are down, fails it under
 * REQUIRE_SERVICES=1) with `connectors` and their settings in `env`, and a print-file host.
 * Live orders wait for production (so a cancellation can come before it); test-mode orders
 * run through the production simulator every 50 ms, which ships them with tracking.
 */
export async function startConnectorService(
  ctx: Mocha.Context,
  opts: { connectors: Array<Connector<any, any>>; env: Record<string, string>; publicUrl: string },
): Promise<ConformanceHarness> {
  const files = await startFileServer();
  const t = await startTestService(
    ctx,
    'postgres+redis',
    {
      PUBLIC_URL: opts.publicUrl,
      PRODUCTION_SIMULATOR: 'off',
      PRODUCTION_SIMULATOR_STEP_MS: '50',
      RATE_LIMIT_PER_MINUTE: CONNECTOR_SUITE_RATE_LIMIT,
      ...opts.env,
    },
    { connectors: opts.connectors, maintenanceIntervalMs: 200 },
  ).catch(async (err: unknown) => {
    await files.close();
    throw err;
  });
  return {
    baseUrl: t.baseUrl,
    publicUrl: opts.publicUrl,
    sku: POSTER_SKU,
    toService: (url) => url.replace(opts.publicUrl, t.baseUrl),
    api: async (key, method, path, body) => {
      const res = await t.api(key, method, path, body);
      return { status: res.status, body: res.body };
    },
    async reseller(mode) {
      const r = await t.reseller({ mode });
      if (mode === 'live')
        await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: WALLET_CENTS, mode });
      const product = await t.api(r.key, 'POST', '/reseller-products', {
        sku: POSTER_SKU,
        title: 'Tulip poster A2',
        productId: 'posters',
        fileUrl: `${files.url}/art/flyer.pdf`,
      });
      if (product.status !== 201) throw new Error(`reseller product not created: ${JSON.stringify(product.body)}`);
      return { id: r.id, key: r.key, walletCents: mode === 'live' ? WALLET_CENTS : 0 };
    },
    async reportProduction(orderId, status) {
      await t.service.services.orders.reportProduction(orderId, status);
    },
    async close() {
      await t.close();
      await files.close();
    },
  };
}

/**
 * A fake platform on a local HTTPS server the service trusts, and the service (`startConnectorService`) with the
 * settings `serve` answers once it has started the fake on that server (`env` over them): the set-up of the kit's
 * conformance suite and of a platform's own end-to-end suites. `close` stops the service, then the server.
 */
export async function startFakePlatformService(
  ctx: Mocha.Context,
  serve: (server: FakeHttpsServer) => Promise<Record<string, string>> | Record<string, string>,
  opts: { connectors: Array<Connector<any, any>>; publicUrl: string; env?: Record<string, string> },
): Promise<ConformanceHarness & { server: FakeHttpsServer }> {
  const server = await startFakeHttpsServer();
  try {
    const settings = await serve(server);
    const h = await startConnectorService(ctx, {
      connectors: opts.connectors,
      env: { ...settings, ...opts.env },
      publicUrl: opts.publicUrl,
    });
    return {
      ...h,
      server,
      async close() {
        await h.close();
        await server.close();
      },
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}
