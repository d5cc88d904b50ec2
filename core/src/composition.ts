import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import { AuthCache } from './modules/accounts/auth-cache.ts';
import { connectorEnv, type Config } from './config.ts';
import { API_BASE, createHttpApp } from './http/app.ts';
import { CursorCodec } from './http/pagination.ts';
import { SecretBox } from './infra/crypto.ts';
import { migrateToLatest, openDatabase, type DatabaseKind } from './infra/db/database.ts';
import { resolveLocalSecrets } from './infra/local-secrets.ts';
import { createLogger, type Logger } from './infra/logger.ts';
import { BullMqJobQueue } from './infra/queue/bullmq-queue.ts';
import { InProcessJobQueue } from './infra/queue/in-process-queue.ts';
import type { JobQueue } from './infra/queue/job-queue.ts';
import { createTokenBucket } from './infra/token-bucket.ts';
import { createRateLimiter, rateLimitFallbackReporter } from './infra/rate-limit.ts';
import { REQUEST_PATH_REDIS } from './infra/redis-options.ts';
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
import { adminLookupRoutes } from './modules/admin/admin-lookup-routes.ts';
import { loadCatalog } from './modules/catalog/catalog.ts';
import { catalogRoutes } from './modules/catalog/catalog-routes.ts';
import { Outbox } from './modules/events/outbox.ts';
import { EventStreams } from './modules/events/event-stream.ts';
import { adminEventStreamRoutes, eventStreamRoutes } from './modules/events/events-routes.ts';
import { Maintenance } from './modules/maintenance.ts';
import { OrderPayments } from './modules/orders/order-payments.ts';
import { ordersRoutes } from './modules/orders/orders-routes.ts';
import { OrdersService } from './modules/orders/orders-service.ts';
import { PrintFileChecker } from './modules/print-files/print-file-checker.ts';
import { SampleFiles } from './modules/print-files/sample-files.ts';
import { sampleFilesHandler } from './modules/print-files/sample-files-routes.ts';
import { DELIVERY_HEADERS, webhookEventDocs } from './modules/webhooks/webhook-event-docs.ts';
import { ProductionService } from './modules/production/production-service.ts';
import type { ProductionPartner } from './modules/production/production-partner.ts';
import { quotesRoutes } from './modules/quotes/quotes-routes.ts';
import { QuotesService } from './modules/quotes/quotes-service.ts';
import type { Connector, ConnectorContext } from '@print-api/connector-kit';
import { resellerProductsRoutes } from './modules/reseller-products/reseller-products-routes.ts';
import { ResellerProductsService } from './modules/reseller-products/reseller-products-service.ts';
import { configureConnectors, loadConnectors, platformSlug } from './modules/stores/connector-registry.ts';
import { connectorHttpClients } from './modules/stores/connector-http.ts';
import { StoresModule } from './modules/stores/stores-module.ts';
import { SandboxModule } from './modules/sandbox/sandbox-module.ts';
import type { StoresService } from './modules/stores/stores-service.ts';
import { WebhooksModule } from './modules/webhooks/webhooks-module.ts';
import { adminDashboardLinkRoutes, dashboardLinkRoutes } from './modules/dashboard/dashboard-links-routes.ts';
import { DashboardLinks } from './modules/dashboard/dashboard-links-service.ts';
import { SessionStore } from './modules/sessions/session-store.ts';
import { sessionCookieOptions } from './http/sessions/session-cookies.ts';
import { SignInLimiter } from './http/sessions/sign-in-limiter.ts';
import { acceptsOperatorSession, operatorConsole } from './modules/console/operator-console.ts';
import { adminStoreRoutes } from './modules/admin/admin-store-routes.ts';
import { StoreHealth } from './modules/stores/store-health.ts';
import { registerStoreHealthMetrics } from './modules/stores/store-health-metrics.ts';
import { DashboardApi } from './modules/dashboard/dashboard-api.ts';
import { platformForms } from './modules/dashboard/dashboard-platforms.ts';
import { dashboardRouter } from './modules/dashboard/dashboard-router.ts';
import { DashboardViews } from './modules/dashboard/dashboard-views.ts';
import { EventLog } from './modules/events/event-log.ts';
import { orderSources } from './modules/orders/order-states.ts';
import type { WebhooksOptions } from './modules/webhooks/webhooks-options.ts';

/** Replacements for tests: third-party edges only (never our own parts). */

/** How long an authenticated key is trusted without asking the database (revocations clear it at once). */
const AUTH_CACHE_TTL_MS = 30_000;
/** How long the server keeps an idle keep-alive connection: longer than clients and proxies do (AWS's load balancers: 60 s). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

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
  /** Connectors to load instead of CONNECTORS (a test's variant of a connector). */
  connectors?: Array<Connector<any, any>>;
  /** Where connectors' `CONNECTOR_<PLATFORM>_*` variables are read (tests: their own environment); the process environment otherwise. */
  connectorEnv?: (platform: string) => Record<string, string>;
  /** Webhook delivery tunables (timeout, retry schedule, lease…); tests shorten them. */
  webhooks?: Partial<WebhooksOptions>;
  /** The print facility live orders are handed to (a third party: tests stand one in). */
  productionPartner?: ProductionPartner;
  /** A new embedded database starts from this data directory (tests: a migrated template) instead of being initialised. */
  pgliteTemplate?: Blob;
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
    /** The connected stores themselves (the stores module's service). */
    stores: StoresService;
    /** Stores, connectors and the ingestion pipeline. */
    storesModule: StoresModule;
    /** The sandbox stores' platform. */
    sandbox: SandboxModule;
    maintenance: Maintenance;
    /** Login links to the reseller dashboard. */
    dashboardLinks: DashboardLinks;
    /** Browser sessions of the operators' console and the resellers' dashboard. */
    sessions: SessionStore;
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
  // First: a connector's wrong setting stops start-up (ConfigError) before anything is opened.
  const connectors = configureConnectors({
    connectors: overrides.connectors ?? (await loadConnectors(config.CONNECTORS)),
    env: overrides.connectorEnv ?? ((platform) => connectorEnv(platform)),
    logger,
    named: overrides.connectors !== undefined || config.CONNECTORS.trim() !== 'all',
  });
  const secrets = resolveLocalSecrets(config.DATA_DIR, { adminToken: config.ADMIN_TOKEN, encryptionKey: config.ENCRYPTION_KEY });
  const box = new SecretBox(secrets.encryptionKey);
  const cursors = new CursorCodec(createHmac('sha256', Buffer.from(secrets.encryptionKey, 'base64')).update('cursor-signing').digest());

  const database = await openDatabase<Tables>({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    pgliteTemplate: overrides.pgliteTemplate,
    onConnectionError: (err) => logger.warn('a database connection failed; the pool replaces it', { error: err.message }),
  });
  const db = database.db;
  const applied = await migrateToLatest(db, migrations);
  if (applied.length > 0) logger.info('migrations applied', { migrations: applied });

  const redisPrefix = overrides.redisPrefix ?? config.REDIS_PREFIX;
  // Requests wait for this client (rate-limit counters, revocations, /readyz), never for long:
  // see REQUEST_PATH_REDIS. Auto-pipelining: the commands of concurrent requests share one write.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { ...REQUEST_PATH_REDIS, enableAutoPipelining: true }) : undefined;
  redis?.on('error', (err) => logger.warn('redis connection error', { error: err.message }));
  // Authenticated keys are cached for a few seconds when every process can be told of a
  // revocation: through Redis, or trivially with the embedded database (one process).
  const authCache = new AuthCache({ ttlMs: AUTH_CACHE_TTL_MS, enabled: !config.DATABASE_URL || redis !== undefined });
  // The subscription is no request's wait: it keeps its offline queue (subscribing at start-up
  // waits for the connection) and has no command timeout; its socket timeout finds a hung Redis.
  const authSubscriber = redis?.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true, commandTimeout: undefined });
  authSubscriber?.on('error', (err) => logger.warn('redis subscriber error', { error: err.message }));
  if (redis && authSubscriber) await authCache.connect(redis, authSubscriber, `${redisPrefix}:auth-invalidate`);
  // Counted from the first request on through Redis, not in memory while the client still connects.
  if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const queue: JobQueue = config.REDIS_URL
    ? new BullMqJobQueue({ connection: { url: config.REDIS_URL }, prefix: redisPrefix, logger })
    : new InProcessJobQueue({ db, logger });
  const metrics = new Metrics({ queue });
  const rateLimitFallbacks = metrics.counter('rate_limit_fallback_total', 'Requests a rate limiter counted in this process because Redis was unreachable', ['limiter']);
  const onRateLimitFallback = rateLimitFallbackReporter({ logger, count: (limiter) => rateLimitFallbacks.inc({ limiter }) });
  const rateLimiter = createRateLimiter({ perMinute: config.RATE_LIMIT_PER_MINUTE, redis, keyPrefix: `${redisPrefix}:rl`, onFallback: onRateLimitFallback });

  const accounts = new AccountsService({ db, cache: authCache });
  const sessions = new SessionStore({ db });
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
  // Where clients reach us: PUBLIC_URL, else the address `listen` got (PORT=0 picks one).
  let listeningOrigin: string | undefined;
  const samples = new SampleFiles({ catalog, origin: () => config.PUBLIC_URL ?? listeningOrigin ?? publicUrl });
  const files = new PrintFileChecker({ safeFetch, samples });
  const resellerProducts = new ResellerProductsService({ db, catalog, files, cursors });
  const quotes = new QuotesService({ catalog, skus: resellerProducts });
  const outbox = new Outbox();
  const webhooks = new WebhooksModule({ db, queue, outbox, box, safeFetch, logger, cursors, databaseKind: database.kind, ...(overrides.webhooks ? { options: overrides.webhooks } : {}) });
  const eventStreams = new EventStreams({ db, outbox, logger });
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
  // Store URLs are typed by merchants: connectors reach them through the same guard as print files and webhooks.
  const connectorHttp = connectorHttpClients({ safeFetch, metrics, logger });
  // The sandbox stores' platform: answers its connector in-process, hands its signed webhooks to the stores' receiver.
  const sandbox = new SandboxModule({ db, box, logger, cursors, inbox: (slug, req) => storesModule.receiver.receive(slug, req), storeRow: (tenant, id) => storesModule.stores.row(tenant, id) });
  const connectorContext = (platform: string): ConnectorContext => ({
    http: sandbox.http(connectorHttp(platform)),
    logger: logger.child({ connector: platform }),
    clock: () => new Date(),
    publicUrl,
    settings: connectors.settings(platform),
    webhookUrl: (storeId) => `${publicUrl}/connectors/${platformSlug(platform)}/webhooks${storeId ? `/${encodeURIComponent(storeId)}` : ''}`,
  });
  const placedLag = metrics.histogram('store_order_ingestion_lag_seconds', 'Store order created -> print order placed', ['platform'], [1, 5, 15, 60, 300, 900, 3600, 86400]);
  const storesModule = new StoresModule({
    db,
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
      createRateLimiter({ points: rate.max, durationMs: rate.durationMs, redis, keyPrefix: `${redisPrefix}:store-calls:${platform}`, name: `store-calls:${platform}`, onFallback: onRateLimitFallback }),
    pollBudget: (platform, budget) =>
      createTokenBucket({ ...budget, redis, keyPrefix: `${redisPrefix}:poll-budget:${platform}`, name: `poll-budget:${platform}`, onFallback: onRateLimitFallback }),
    checkUrl: (url) => safeFetch.checkUrl(url),
    onPlaced: (platform, createdAt) => placedLag.observe({ platform }, Math.max(0, (Date.now() - Date.parse(createdAt)) / 1000)),
  });
  const stores = storesModule.stores;
  resellerProducts.useLinkRegistry(stores);
  // Tracking goes back to the store from the order.shipped event (the sweep catches what a crash lost).
  outbox.subscribe('order.shipped', (events) => storesModule.onOrdersShipped(events));
  wallet.onFundsAdded(async (resellerId, mode) => {
    await payments.releaseAwaitingFunds(resellerId, mode);
  });
  const dashboardLinks = new DashboardLinks({ db, accounts, publicUrl });
  // Redis back after an outage: stored webhooks it could not take (or lost) are queued at once, in every process.
  queue.onReconnected(() => storesModule.onQueueBack());
  const maintenance = new Maintenance({ logger, intervalMs: overrides.maintenanceIntervalMs ?? 15_000 });
  maintenance.add('production hand-off sweep', () => production!.sweep());
  maintenance.add('interrupted card charges', () => payments.recoverInterruptedCharges(30_000));
  for (const [name, run] of storesModule.maintenanceTasks()) maintenance.add(name, run);
  maintenance.add('webhooks sweep', () => webhooks.sweep());
  maintenance.add('expired dashboard links', () => dashboardLinks.purgeExpired());
  maintenance.add('expired credential requests', () => storesModule.credentialRequests.purgeExpired());
  maintenance.add('ended browser sessions', () => sessions.sweep());
  maintenance.add('expired idempotency keys', () => orders.upkeep.purgeExpiredIdempotencyKeys());

  const storeHealth = new StoreHealth({
    db,
    box,
    cursors,
    notices: (row) => {
      const connector = connectors.get(row.platform);
      if (!connector?.storeNotices || row.status !== 'connected') return [];
      return connector.storeNotices({ externalId: row.external_id, name: row.name, credentials: row.credentials }, new Date());
    },
  });
  registerStoreHealthMetrics(metrics, { db, health: storeHealth, webhooks: webhooks.deliveries });
  const operatorCookie = sessionCookieOptions('operator', publicUrl);

  const apiRoutes = [
    ...meRoutes(),
    ...catalogRoutes({ catalog, cursors, samples }),
    ...quotesRoutes({ quotes }),
    ...ordersRoutes({ orders, sources: connectors.platforms() }),
    ...walletRoutes({ wallet }),
    ...resellerProductsRoutes({ resellerProducts }),
    ...storesModule.routes((tenant, idOrSku) => resellerProducts.get(tenant, idOrSku)),
    ...sandbox.routes(),
    ...webhooks.routes(),
    ...eventStreamRoutes({ streams: eventStreams }),
    ...dashboardLinkRoutes({ links: dashboardLinks }),
  ];
  // Revoking a key ends its dashboard sessions and unused login links at once, in every process (both live in the database).
  accounts.onKeyRevoked(async (keyId) => {
    await sessions.revokeForKey(keyId);
    await dashboardLinks.revokeForKey(keyId);
  });
  // The reseller dashboard: pages over the API's own routes, called in-process.
  const dashboard = dashboardRouter({
    links: dashboardLinks,
    sessions,
    accounts,
    api: new DashboardApi({ routes: apiRoutes, logger }),
    publicUrl,
    logger,
    rateLimiter,
    signInLimiter: new SignInLimiter({ redis, keyPrefix: `${redisPrefix}:dashboard-sign-in` }),
    sources: orderSources(connectors.platforms()),
    platforms: platformForms(connectors),
    views: new DashboardViews({ events: new EventLog({ db }), resellerProducts, publishing: storesModule.publishing }),
  });

  const app = createHttpApp({
    logger,
    accounts,
    rateLimiter,
    trustProxy: config.TRUST_PROXY,
    // Wrong API keys and admin tokens per address: 30 per 15 minutes, then a wrong one answers 429 (a right one never does).
    credentialFailures: new SignInLimiter({ redis, keyPrefix: `${redisPrefix}:bearer-failures`, points: 30 }),
    adminToken: secrets.adminToken,
    publicUrl,
    blockedUserAgents: config.BLOCKED_USER_AGENTS,
    checkResponses: overrides.checkResponses ?? false,
    observe: metrics.observe(),
    rootPages: [
      { path: '/', ...healthRouter({ db, redis }) },
      { path: '/', ...metrics.router(config.METRICS_TOKEN) },
      { path: '/dashboard', ...dashboard },
    ],
    apiPublicHandlers: [{ path: '/sample-files', handler: sampleFilesHandler(samples) }],
    webhookDocs: { events: webhookEventDocs(connectors.platforms()), headers: DELIVERY_HEADERS },
    rootRoutes: storesModule.connectorRoutes(),
    adminPages: [{ path: '/queues', ...queueDashboard(queue, '/admin/v1/queues') }],
    operatorSessions: { store: sessions, cookie: operatorCookie, accept: acceptsOperatorSession(secrets.adminToken) },
    console: operatorConsole({
      adminToken: secrets.adminToken,
      publicUrl,
      sessions,
      cookie: operatorCookie,
      // Failed sign-ins per address: 10 per 15 minutes, shared by every process through Redis when there is one.
      limiter: new SignInLimiter({ redis, keyPrefix: `${redisPrefix}:signin:operator` }),
      health: storeHealth,
      platforms: connectors.platforms(),
    }),
    apiRoutes,
    adminRoutes: [
      ...adminAccountRoutes({ accounts, wallet, cards }),
      ...adminOrderRoutes({ orders, sources: connectors.platforms() }),
      ...adminEventStreamRoutes({ streams: eventStreams, accounts }),
      ...adminLookupRoutes({
        accounts,
        orders,
        wallet,
        endpoints: webhooks.endpoints,
        deliveries: webhooks.deliveries,
        stores,
        cursors,
        sources: connectors.platforms(),
      }),
      ...adminStoreRoutes({ health: storeHealth }),
      ...adminDashboardLinkRoutes({ links: dashboardLinks }),
    ],
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
    services: { accounts, wallet, cards, orders, production, quotes, outbox, webhooks, maintenance, resellerProducts, stores, storesModule, sandbox, dashboardLinks, sessions },
    startWorkers: async () => {
      await queue.startWorkers();
      maintenance.start();
    },
    listen: () =>
      new Promise<Server>((resolve, reject) => {
        const s = app.listen(config.PORT, config.HOST, (err?: Error) => {
          if (err) return reject(err);
          const address = s.address();
          if (address && typeof address === 'object') listeningOrigin = `http://${/^(0\.0\.0\.0|::)$/.test(config.HOST) ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${address.port}`;
          resolve(s);
        });
        // An idle keep-alive connection is closed by the client, not under its feet: Node's 5 s
        // default lets a busy client (or a proxy with a 60 s idle timeout) send on a socket the
        // server is closing, and that request fails with a reset nobody caused.
        s.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
        s.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
        s.on('connection', (socket) => {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        });
        server = s;
      }),
    close: async () => {
      // Open event streams end now (their clients reconnect elsewhere with Last-Event-ID), not at the socket timeout.
      eventStreams.close();
      if (server) {
        const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), config.SHUTDOWN_TIMEOUT_MS);
        await closing;
        clearTimeout(timer);
      }
      await maintenance.stop();
      // What waits for its batch is queued while the queue still takes jobs (the sweepers would find it, later).
      await Promise.all([production!.flush(), storesModule.flush()]);
      await queue.close();
      // Jobs stop waiting for slow sends; what those sends answer is still recorded.
      await webhooks.close();
      authCache.close();
      redis?.disconnect();
      authSubscriber?.disconnect();
      await database.close();
    },
  };
}

export { API_BASE };
