import type { ConnectorContext } from '@print-api/connector-kit';
import { createRateLimiter } from '../infra/rate-limit.ts';
import { createTokenBucket } from '../infra/token-bucket.ts';
import { connectorHttpClients } from '../modules/stores/outbound/connector-http.ts';
import { platformSlug } from '../modules/stores/connector-registry.ts';
import { StoreHealth } from '../modules/stores/health/store-health.ts';
import { registerStoreHealthMetrics } from '../modules/stores/health/store-health-metrics.ts';
import { ListingMargins } from '../modules/stores/catalogue/listing-margins.ts';
import { StoresModule } from '../modules/stores/stores-module.ts';
import { SandboxModule } from '../modules/sandbox/sandbox-module.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { CoreModules } from './modules.ts';

/** Stores, connectors and the ingestion pipeline, on top of the core modules; the operators' view of their health. */
export interface StoresArea {
  storesModule: StoresModule;
  /** The sandbox stores' platform. */
  sandbox: SandboxModule;
  health: StoreHealth;
}

/**
 * Builds the stores module with each connector's context, its call budgets shared through Redis,
 * and what it hears from the others: order.shipped (tracking back), the reseller products' link guard,
 * the queue back after an outage.
 */
export function composeStores(infra: Infrastructure, modules: CoreModules): StoresArea {
  const {
    database,
    queue,
    box,
    cursors,
    logger,
    connectors,
    metrics,
    redis,
    redisPrefix,
    onRateLimitFallback,
    publicUrl,
  } = infra;
  const { orders, resellerProducts, outbox } = modules;
  // Store URLs are typed by merchants: connectors reach them through the same guard as print files and webhooks.
  const connectorHttp = connectorHttpClients({ safeFetch: infra.safeFetch, metrics, logger });
  // The sandbox stores' platform: answers its connector in-process, hands its signed webhooks to the stores' receiver.
  const sandbox = new SandboxModule({
    db: database.db,
    box,
    logger,
    cursors,
    inbox: (slug, req) => storesModule.receiver.receive(slug, req),
    storeRow: (tenant, id) => storesModule.stores.connections.row(tenant, id),
  });
  const connectorContext = (platform: string): ConnectorContext => ({
    http: sandbox.http(connectorHttp(platform)),
    logger: logger.child({ connector: platform }),
    clock: () => new Date(),
    publicUrl,
    settings: connectors.settings(platform),
    webhookUrl: (storeId) =>
      `${publicUrl}/connectors/${platformSlug(platform)}/webhooks${storeId ? `/${encodeURIComponent(storeId)}` : ''}`,
  });
  const placedLag = metrics.histogram(
    'store_order_ingestion_lag_seconds',
    'Store order created -> print order placed',
    ['platform'],
    [1, 5, 15, 60, 300, 900, 3600, 86400],
  );
  const storesModule = new StoresModule({
    db: database.db,
    queue,
    box,
    cursors,
    logger,
    connectors,
    context: connectorContext,
    orders,
    resellerProducts,
    outbox,
    callLimiter: (platform, rate) =>
      createRateLimiter({
        points: rate.max,
        durationMs: rate.durationMs,
        redis,
        keyPrefix: `${redisPrefix}:store-calls:${platform}`,
        name: `store-calls:${platform}`,
        onFallback: onRateLimitFallback,
      }),
    pollBudget: (platform, budget) =>
      createTokenBucket({
        ...budget,
        redis,
        keyPrefix: `${redisPrefix}:poll-budget:${platform}`,
        name: `poll-budget:${platform}`,
        onFallback: onRateLimitFallback,
      }),
    checkUrl: (url) => infra.safeFetch.checkUrl(url),
    // Our price for one piece, quoted for the store's country, in the store's currency at the ECB's rate.
    margins: new ListingMargins({
      quoteEuroCents: async (tenant, sku, country) =>
        (
          await modules.quotes.price(tenant, {
            lines: [{ resellerSku: sku, quantity: 1 }],
            country,
            discountBps: tenant.discountBps,
          })
        ).quote.totals.totalCents,
      fromEuroCents: (cents, currency) => modules.exchangeRates.fromEuroCents(cents, currency),
    }),
    onPlaced: (platform, createdAt) =>
      placedLag.observe({ platform }, Math.max(0, (Date.now() - Date.parse(createdAt)) / 1000)),
  });
  resellerProducts.useLinkRegistry(storesModule.stores.links);
  // Tracking goes back to the store from the order.shipped event (the sweep catches what a crash lost).
  outbox.subscribe('order.shipped', (events) => storesModule.onOrdersShipped(events));
  // Redis back after an outage: stored webhooks it could not take (or lost) are queued at once, in every process.
  queue.onReconnected(() => storesModule.onQueueBack());

  const health = new StoreHealth({ db: database.db, box, cursors, connectors });
  registerStoreHealthMetrics(metrics, { db: database.db, health, webhooks: modules.webhooks.deliveries });
  return { storesModule, sandbox, health };
}
