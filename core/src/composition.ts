import type { Express } from 'express';
import type { Config } from './config.ts';
import { API_BASE } from './http/app.ts';
import type { DatabaseKind } from './infra/db/database.ts';
import type { Logger } from './infra/logger.ts';
import type { Metrics } from './infra/metrics.ts';
import type { JobQueue } from './infra/queue/job-queue.ts';
import type { AccountsService } from './modules/accounts/accounts-service.ts';
import type { DashboardLinks } from './modules/dashboard/dashboard-links-service.ts';
import type { Outbox } from './modules/events/outbox.ts';
import type { Maintenance } from './modules/maintenance.ts';
import type { OrdersService } from './modules/orders/orders-service.ts';
import type { CardsService } from './modules/payments/cards-service.ts';
import type { ProductionService } from './modules/production/production-service.ts';
import type { QuotesService } from './modules/quotes/quotes-service.ts';
import type { ResellerProductsService } from './modules/reseller-products/reseller-products-service.ts';
import type { SessionStore } from './modules/sessions/session-store.ts';
import type { SandboxModule } from './modules/sandbox/sandbox-module.ts';
import type { StoresModule } from './modules/stores/stores-module.ts';
import type { StoresService } from './modules/stores/stores-service.ts';
import type { Db } from './modules/tables.ts';
import type { AuditLog } from './modules/audit/audit-log.ts';
import type { OperatorTokens } from './modules/operators/operator-tokens.ts';
import type { WalletService } from './modules/wallet/wallet-service.ts';
import type { WebhooksModule } from './modules/webhooks/webhooks-module.ts';
import { composeHttpApp } from './composition/http.ts';
import { openInfrastructure } from './composition/infrastructure.ts';
import { serviceLifecycle, type Lifecycle } from './composition/lifecycle.ts';
import { scheduleMaintenance } from './composition/maintenance-tasks.ts';
import { composeCoreModules } from './composition/modules.ts';
import type { Overrides } from './composition/overrides.ts';
import { composeStores } from './composition/stores.ts';

export type { Overrides } from './composition/overrides.ts';

/** The composed service: its parts, and how it starts (workers, listening) and stops (Lifecycle). */
export interface Service extends Lifecycle {
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
    /** The tamper-evident audit trail. */
    audit: AuditLog;
    /** The back-office credentials of machines (opt_…). */
    operatorTokens: OperatorTokens;
  };
}

/**
 * The composition root: config -> adapters -> modules -> routes -> start and stop. The only
 * place that constructs a database pool, a Redis client or a queue; each area is wired in its
 * own part (core/src/composition/), read here in the order they are built.
 */
export async function composeService(config: Config, overrides: Overrides = {}): Promise<Service> {
  const infra = await openInfrastructure(config, overrides);
  const { logger, queue, database } = infra;
  // Where clients reach us: PUBLIC_URL, else the address `listen` got (PORT=0 picks one).
  let listeningOrigin: string | undefined;
  const origin = () => config.PUBLIC_URL ?? listeningOrigin ?? infra.publicUrl;
  const modules = await composeCoreModules(infra, config, overrides, origin);
  const stores = composeStores(infra, modules);
  const maintenance = scheduleMaintenance({
    logger,
    intervalMs: overrides.maintenanceIntervalMs ?? 15_000,
    auditRetentionDays: config.AUDIT_RETENTION_DAYS,
    modules,
    stores,
  });
  const app = composeHttpApp(infra, modules, stores, config, overrides);

  const {
    accounts,
    wallet,
    cards,
    orders,
    production,
    quotes,
    outbox,
    webhooks,
    resellerProducts,
    dashboardLinks,
    sessions,
    eventStreams,
    audit,
    operatorTokens,
  } = modules;
  const { storesModule, sandbox } = stores;
  const lifecycle = serviceLifecycle({
    config,
    app,
    logger,
    onListening: (address) => (listeningOrigin = address),
    start: [() => queue.startWorkers(), () => maintenance.start()],
    stop: {
      // Open event streams end now (their clients reconnect elsewhere with Last-Event-ID), not at the socket timeout.
      first: [['event streams', () => eventStreams.close()]],
      after: [
        ['maintenance', () => maintenance.stop()],
        // What waits for its batch is queued while the queue still takes jobs (the sweepers would find it, later).
        ['batches queued', () => Promise.all([production.flush(), storesModule.flush()])],
        ['job queue', () => queue.close()],
        // Jobs stop waiting for slow sends; what those sends answer is still recorded.
        ['webhook sends', () => webhooks.close()],
        [
          'Redis connections',
          () => {
            infra.authCache.close();
            infra.redis?.disconnect();
            infra.authSubscriber?.disconnect();
          },
        ],
        ['database', () => database.close()],
      ],
    },
  });

  return {
    config,
    app,
    db: database.db,
    databaseKind: database.kind,
    metrics: infra.metrics,
    queue,
    logger,
    adminToken: infra.secrets.adminToken,
    generatedAdminToken: infra.secrets.generatedAdminToken,
    services: {
      accounts,
      wallet,
      cards,
      orders,
      production,
      quotes,
      outbox,
      webhooks,
      maintenance,
      resellerProducts,
      stores: storesModule.stores,
      storesModule,
      sandbox,
      dashboardLinks,
      sessions,
      audit,
      operatorTokens,
    },
    ...lifecycle,
  };
}

export { API_BASE };
