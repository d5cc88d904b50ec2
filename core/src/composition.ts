import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import { AuthCache } from './modules/accounts/auth-cache.ts';
import type { Config } from './config.ts';
import { API_BASE, createHttpApp } from './http/app.ts';
import { CursorCodec } from './http/pagination.ts';
import { SecretBox } from './infra/crypto.ts';
import { migrateToLatest, openDatabase, type DatabaseKind } from './infra/db/database.ts';
import { resolveLocalSecrets } from './infra/local-secrets.ts';
import { createLogger, type Logger } from './infra/logger.ts';
import { BullMqJobQueue } from './infra/queue/bullmq-queue.ts';
import { InProcessJobQueue } from './infra/queue/in-process-queue.ts';
import type { JobQueue } from './infra/queue/job-queue.ts';
import { createRateLimiter } from './infra/rate-limit.ts';
import { Metrics } from './infra/metrics.ts';
import { queueDashboard } from './infra/queue/queue-dashboard.ts';
import { AccountsService } from './modules/accounts/accounts-service.ts';
import { adminAccountRoutes } from './modules/admin/admin-routes.ts';
import { healthRouter } from './modules/health/health-routes.ts';
import { meRoutes } from './modules/me/me-routes.ts';
import { migrations } from './modules/migrations.ts';
import type { PaymentGateway } from './modules/payments/payment-gateway.ts';
import { CardsService } from './modules/payments/cards-service.ts';
import { SandboxGateway } from './modules/payments/sandbox-gateway.ts';
import type { Db, Tables } from './modules/tables.ts';
import { walletRoutes } from './modules/wallet/wallet-routes.ts';
import { WalletService } from './modules/wallet/wallet-service.ts';
import { createSafeFetch, type HostLookup } from './infra/safe-fetch/safe-fetch.ts';
import { adminOrderRoutes } from './modules/admin/admin-order-routes.ts';
import { loadCatalog } from './modules/catalog/catalog.ts';
import { catalogRoutes } from './modules/catalog/catalog-routes.ts';
import { Outbox } from './modules/events/outbox.ts';
import { Maintenance } from './modules/maintenance.ts';
import { OrderPayments } from './modules/orders/order-payments.ts';
import { ordersRoutes } from './modules/orders/orders-routes.ts';
import { OrdersService } from './modules/orders/orders-service.ts';
import { PrintFileChecker } from './modules/print-files/print-file-checker.ts';
import { ProductionService } from './modules/production/production-service.ts';
import type { ProductionPartner } from './modules/production/production-partner.ts';
import { quotesRoutes } from './modules/quotes/quotes-routes.ts';
import { QuotesService } from './modules/quotes/quotes-service.ts';
import type { Connector, ConnectorContext } from '@print-api/connector-kit';
import { resellerProductsRoutes } from './modules/reseller-products/reseller-products-routes.ts';
import { ResellerProductsService } from './modules/reseller-products/reseller-products-service.ts';
import { ConnectorRegistry, loadConnectors, platformSlug } from './modules/stores/connector-registry.ts';
import { connectorWebhooksRouter } from './modules/stores/connector-webhooks-router.ts';
import { connectorCredentialsRouter } from './modules/stores/connector-credentials-router.ts';
import { connectorInstallRouter } from './modules/stores/connector-install-router.ts';
import { CredentialRequests } from './modules/stores/credential-requests.ts';
import { connectorHttpClients } from './modules/stores/connector-http.ts';
import { IngestionService } from './modules/stores/ingestion-service.ts';
import { storesRoutes } from './modules/stores/stores-routes.ts';
import { StoresService } from './modules/stores/stores-service.ts';
import { WebhooksModule } from './modules/webhooks/webhooks-module.ts';
import type { WebhooksOptions } from './modules/webhooks/webhooks-options.ts';

/** Replacements for tests: third-party edges only (never our own parts). */

/** How long an authenticated key is trusted without asking the database (revocations clear it at once). */
const AUTH_CACHE_TTL_MS = 30_000;
export interface Overrides {
  logger?: Logger;
  gateway?: PaymentGateway;
  checkResponses?: boolean;
  /** Key prefix of BullMQ queues and rate-limit counters (tests isolate runs with it). */
  redisPrefix?: string;
  /** Extra CA certificates trusted for outbound HTTPS (tests' self-signed local servers). */
  outboundCa?: string[];
  /** DNS for outbound HTTPS (tests resolve the platforms they put behind nock); the OS resolver otherwise. */
  outboundLookup?: HostLookup;
  /** How often the maintenance sweeps run (ms). */
  maintenanceIntervalMs?: number;
  /** Connectors to load instead of CONNECTORS (tests' reference connector). */
  connectors?: Array<Connector<any>>;
  /** Per-platform app settings (API keys and secrets of the platforms' apps). */
  connectorSettings?: Record<string, Record<string, string | undefined>>;
  /** Webhook delivery tunables (timeout, retry schedule, lease…); tests shorten them. */
  webhooks?: Partial<WebhooksOptions>;
  /** The print facility live orders are handed to (a third party: tests stand one in). */
  productionPartner?: ProductionPartner;
}



/** The platforms' app credentials from configuration, per platform (`secret` verifies app-signed webhooks). */
function appSettingsFromConfig(config: Config): Record<string, Record<string, string | undefined>> {
  return {
    SHOPIFY: { apiKey: config.SHOPIFY_API_KEY, secret: config.SHOPIFY_API_SECRET },
  };
}

export interface Service {
  config: Config;
  app: Express;
  db: Db;
  databaseKind: DatabaseKind;
  metrics: Metrics;
  queue: JobQueue;
  logger: Logger;
  adminToken: string;
  generatedAdminToken: boolean;
  services: {
    accounts: AccountsService;
    wallet: WalletService;
    cards: CardsService;
    orders: OrdersService;
    production: ProductionService;
    quotes: QuotesService;
    outbox: Outbox;
    webhooks: WebhooksModule;
    resellerProducts: ResellerProductsService;
    stores: StoresService;
    ingestion: IngestionService;
    maintenance: Maintenance;
  };
  /** Starts job processing (ROLE=all|worker). */
  startWorkers(): Promise<void>;
  /** Listens on config HOST:PORT (ROLE=all|api). */
  listen(): Promise<Server>;
  /** Graceful stop: no new connections, finish in-flight requests and jobs, close pools. */
  close(): Promise<void>;
}

/**
 * The composition root: config -> adapters -> modules -> routes. The only place that
 * constructs a database pool, a Redis client or a queue.
 */
export async function composeService(config: Config, overrides: Overrides = {}): Promise<Service> {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, { service: 'print-api', role: config.ROLE });
  const secrets = resolveLocalSecrets(config.DATA_DIR, { adminToken: config.ADMIN_TOKEN, encryptionKey: config.ENCRYPTION_KEY });
  const box = new SecretBox(secrets.encryptionKey);
  const cursors = new CursorCodec(createHmac('sha256', Buffer.from(secrets.encryptionKey, 'base64')).update('cursor-signing').digest());

  const database = await openDatabase<Tables>({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    onConnectionError: (err) => logger.warn('a database connection failed; the pool replaces it', { error: err.message }),
  });
  const db = database.db;
  const applied = await migrateToLatest(db, migrations);
  if (applied.length > 0) logger.info('migrations applied', { migrations: applied });

  const redisPrefix = overrides.redisPrefix ?? config.REDIS_PREFIX;
  // Auto-pipelining: the commands of concurrent requests (rate-limit counters) share one write.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableOfflineQueue: true, enableAutoPipelining: true }) : undefined;
  redis?.on('error', (err) => logger.warn('redis connection error', { error: err.message }));
  // Authenticated keys are cached for a few seconds when every process can be told of a
  // revocation: through Redis, or trivially with the embedded database (one process).
  const authCache = new AuthCache({ ttlMs: AUTH_CACHE_TTL_MS, enabled: !config.DATABASE_URL || redis !== undefined });
  const authSubscriber = redis?.duplicate({ enableAutoPipelining: false });
  authSubscriber?.on('error', (err) => logger.warn('redis subscriber error', { error: err.message }));
  if (redis && authSubscriber) await authCache.connect(redis, authSubscriber, `${redisPrefix}:auth-invalidate`);
  const queue: JobQueue = config.REDIS_URL
    ? new BullMqJobQueue({ connection: { url: config.REDIS_URL }, prefix: redisPrefix, logger })
    : new InProcessJobQueue({ db, logger });
  const metrics = new Metrics({ queue });
  const rateLimiter = createRateLimiter({ perMinute: config.RATE_LIMIT_PER_MINUTE, redis, keyPrefix: `${redisPrefix}:rl` });

  const accounts = new AccountsService({ db, cache: authCache });
  const wallet = new WalletService({ db, cursors });
  // Stripe's SDK (a megabyte of code) is loaded only where a key uses it.
  const gateway =
    overrides.gateway ??
    (config.STRIPE_SECRET_KEY ? new (await import('./modules/payments/stripe-gateway.ts')).StripeGateway({ secretKey: config.STRIPE_SECRET_KEY }) : new SandboxGateway());
  const cards = new CardsService({ db, gateway, box });
  const catalog = loadCatalog();
  const safeFetch = createSafeFetch({
    allowedHosts: config.OUTBOUND_ALLOWED_HOSTS,
    userAgent: 'print-api/1.0 (+outbound)',
    ...(overrides.outboundCa ? { ca: overrides.outboundCa } : {}),
    ...(overrides.outboundLookup ? { lookup: overrides.outboundLookup } : {}),
  });
  const files = new PrintFileChecker({ safeFetch });
  const resellerProducts = new ResellerProductsService({ db, catalog, files, cursors });
  const quotes = new QuotesService({ catalog, skus: resellerProducts });
  const outbox = new Outbox();
  const webhooks = new WebhooksModule({ db, queue, outbox, box, safeFetch, logger, cursors, databaseKind: database.kind, ...(overrides.webhooks ? { options: overrides.webhooks } : {}) });
  let production: ProductionService | undefined;
  const payments = new OrderPayments({
    db,
    wallet,
    cards,
    outbox,
    logger,
    onSubmitted: (orderId) => production?.enqueueHandoff(orderId),
  });
  const orders = new OrdersService({ db, quotes, files, accounts, wallet, payments, outbox, cursors });
  production = new ProductionService({ queue, orders, accounts, logger, simulate: config.PRODUCTION_SIMULATOR, stepMs: config.PRODUCTION_SIMULATOR_STEP_MS, ...(overrides.productionPartner ? { livePartner: overrides.productionPartner } : {}) });
  const publicUrl = config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
  const connectors = new ConnectorRegistry(overrides.connectors ?? (await loadConnectors(config.CONNECTORS)));
  // Store URLs are typed by merchants: connectors reach them through the same guard as print files and webhooks.
  const connectorHttp = connectorHttpClients({ safeFetch, metrics, logger });
  const connectorContext = (platform: string): ConnectorContext => ({
    http: connectorHttp(platform),
    logger: logger.child({ connector: platform }),
    clock: () => new Date(),
    publicUrl,
    webhookUrl: (storeId) => `${publicUrl}/connectors/${platformSlug(platform)}/webhooks${storeId ? `/${encodeURIComponent(storeId)}` : ''}`,
    appSettings: overrides.connectorSettings?.[platform] ?? appSettingsFromConfig(config)[platform] ?? {},
  });
  let ingestion: IngestionService | undefined;
  const stores = new StoresService({
    db,
    box,
    cursors,
    connectors,
    context: connectorContext,
    onConnected: async (store) => ingestion!.onStoreConnected(store),
  });
  resellerProducts.useLinkRegistry(stores);
  const credentialRequests = new CredentialRequests({ stores, connectors, box, context: connectorContext });
  const placedLag = metrics.histogram('store_order_ingestion_lag_seconds', 'Store order created -> print order placed', ['platform'], [1, 5, 15, 60, 300, 900, 3600, 86400]);
  ingestion = new IngestionService({
    db,
    queue,
    stores,
    connectors,
    resellerProducts,
    orders,
    logger,
    context: connectorContext,
    callLimiter: (platform, rate) => createRateLimiter({ points: rate.max, durationMs: rate.durationMs, redis, keyPrefix: `${redisPrefix}:store-calls:${platform}` }),
    onPlaced: (platform, createdAt) => placedLag.observe({ platform }, Math.max(0, (Date.now() - Date.parse(createdAt)) / 1000)),
  });
  outbox.onWritten(() => ingestion!.queueShipmentsSoon((err) => logger.warn('shipment push not queued; the sweeper will retry', { error: err.message })));
  wallet.onFundsAdded(async (resellerId, mode) => {
    await payments.releaseAwaitingFunds(resellerId, mode);
  });
  const maintenance = new Maintenance({ logger, intervalMs: overrides.maintenanceIntervalMs ?? 15_000 });
  maintenance.add('production hand-off sweep', () => production!.sweep());
  maintenance.add('interrupted card charges', () => payments.recoverInterruptedCharges(30_000));
  maintenance.add('store webhooks sweep', () => ingestion!.sweepEvents());
  maintenance.add('store polling', () => ingestion!.schedulePolls());
  maintenance.add('store shipments', () => ingestion!.queueShipments());
  maintenance.add('webhooks sweep', () => webhooks.sweep());
  maintenance.add('expired idempotency keys', () =>
    db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(Date.now() - 30 * 24 * 3600 * 1000)).execute(),
  );

  const app = createHttpApp({
    logger,
    accounts,
    rateLimiter,
    adminToken: secrets.adminToken,
    publicUrl,
    blockedUserAgents: config.BLOCKED_USER_AGENTS,
    checkResponses: overrides.checkResponses ?? false,
    observe: metrics.observe(),
    rootHandlers: [
      { path: '/', handler: healthRouter({ db, redis }) },
      { path: '/', handler: metrics.router(config.METRICS_TOKEN) },
      { path: '/connectors', handler: connectorWebhooksRouter({ ingestion }) },
      { path: '/connectors', handler: connectorCredentialsRouter({ credentialRequests }) },
      { path: '/connectors', handler: connectorInstallRouter({ accounts, stores, connectors, box, context: connectorContext }) },
    ],
    adminHandlers: [{ path: '/queues', handler: queueDashboard(queue, '/admin/v1/queues') }],
    apiRoutes: [
      ...meRoutes(),
      ...catalogRoutes({ catalog, cursors }),
      ...quotesRoutes({ quotes }),
      ...ordersRoutes({ orders }),
      ...walletRoutes({ wallet }),
      ...resellerProductsRoutes({ resellerProducts }),
      ...storesRoutes({ stores, credentialRequests, resolveProduct: (resellerId, idOrSku) => resellerProducts.get(resellerId, idOrSku) }),
      ...webhooks.routes(),
    ],
    adminRoutes: [...adminAccountRoutes({ accounts, wallet, cards }), ...adminOrderRoutes({ orders })],
  });

  let server: Server | undefined;
  const sockets = new Set<import('node:net').Socket>();
  return {
    config,
    app,
    db,
    databaseKind: database.kind,
    metrics,
    queue,
    logger,
    adminToken: secrets.adminToken,
    generatedAdminToken: secrets.generatedAdminToken,
    services: { accounts, wallet, cards, orders, production, quotes, outbox, webhooks, maintenance, resellerProducts, stores, ingestion },
    startWorkers: async () => {
      await queue.startWorkers();
      maintenance.start();
    },
    listen: () =>
      new Promise<Server>((resolve, reject) => {
        const s = app.listen(config.PORT, config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
        s.on('connection', (socket) => {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        });
        server = s;
      }),
    close: async () => {
      if (server) {
        const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), config.SHUTDOWN_TIMEOUT_MS);
        await closing;
        clearTimeout(timer);
      }
      await maintenance.stop();
      // What waits for its batch is queued while the queue still takes jobs (the sweepers would find it, later).
      await Promise.all([production!.flush(), ingestion!.flush()]);
      await queue.close();
      redis?.disconnect();
      authSubscriber?.disconnect();
      await database.close();
    },
  };
}

export { API_BASE };
