import type { Config } from '../config.ts';
import { AccountsService } from '../modules/accounts/accounts-service.ts';
import { loadCatalog, type Catalog } from '../modules/catalog/catalog.ts';
import { DashboardLinks } from '../modules/dashboard/dashboard-links-service.ts';
import { EventStreams } from '../modules/events/event-stream.ts';
import { Outbox } from '../modules/events/outbox.ts';
import { OrderPayments } from '../modules/orders/order-payments.ts';
import { OrdersService } from '../modules/orders/orders-service.ts';
import { CardsService } from '../modules/payments/cards-service.ts';
import { SandboxGateway } from '../modules/payments/sandbox-gateway.ts';
import { PrintFileChecker } from '../modules/print-files/print-file-checker.ts';
import { SampleFiles } from '../modules/print-files/sample-files.ts';
import { ProductionService } from '../modules/production/production-service.ts';
import { ExchangeRates } from '../modules/exchange-rates/exchange-rates.ts';
import { QuotesService } from '../modules/quotes/quotes-service.ts';
import { ResellerProductsService } from '../modules/reseller-products/reseller-products-service.ts';
import { SessionStore } from '../modules/sessions/session-store.ts';
import { WalletService } from '../modules/wallet/wallet-service.ts';
import { WebhooksModule } from '../modules/webhooks/webhooks-module.ts';
import { AuditLog } from '../modules/audit/audit-log.ts';
import { OperatorTokens } from '../modules/operators/operator-tokens.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { Overrides } from './overrides.ts';

/** The modules of the reseller API and the back-office (the stores are composed on top of them). */
export interface CoreModules {
  accounts: AccountsService;
  sessions: SessionStore;
  wallet: WalletService;
  cards: CardsService;
  catalog: Catalog;
  samples: SampleFiles;
  resellerProducts: ResellerProductsService;
  quotes: QuotesService;
  outbox: Outbox;
  webhooks: WebhooksModule;
  eventStreams: EventStreams;
  payments: OrderPayments;
  orders: OrdersService;
  production: ProductionService;
  dashboardLinks: DashboardLinks;
  /** The ECB's euro reference rates (margins in a store's currency). */
  exchangeRates: ExchangeRates;
  audit: AuditLog;
  operatorTokens: OperatorTokens;
}

/**
 * Builds the modules, each given the services it calls, and wires what one module tells
 * another (funds added, a key revoked). `origin`: where clients reach us (the sample files' URLs).
 */
export async function composeCoreModules(
  infra: Infrastructure,
  config: Config,
  overrides: Overrides,
  origin: () => string,
): Promise<CoreModules> {
  const { database, box, cursors, queue, logger, safeFetch, publicUrl } = infra;
  const db = database.db;
  const accounts = new AccountsService({ db, cache: infra.authCache });
  const audit = new AuditLog({ db });
  const operatorTokens = new OperatorTokens({ db, audit });
  const sessions = new SessionStore({ db });
  const wallet = new WalletService({ db, cursors });
  // Stripe's SDK (a megabyte of code) is loaded only where a key uses it.
  const gateway =
    overrides.gateway ??
    (config.STRIPE_SECRET_KEY
      ? new (await import('../modules/payments/stripe-gateway.ts')).StripeGateway({
          secretKey: config.STRIPE_SECRET_KEY,
        })
      : new SandboxGateway());
  const cards = new CardsService({ db, gateway, box });
  const catalog = loadCatalog();
  const samples = new SampleFiles({ catalog, origin });
  const files = new PrintFileChecker({ safeFetch, samples });
  const resellerProducts = new ResellerProductsService({ db, catalog, files, cursors });
  const quotes = new QuotesService({ catalog, skus: resellerProducts });
  const exchangeRates = new ExchangeRates({
    db,
    safeFetch,
    logger,
    url: config.ECB_RATES_URL === 'off' ? null : config.ECB_RATES_URL,
  });
  const outbox = new Outbox();
  const webhooks = new WebhooksModule({
    db,
    queue,
    outbox,
    box,
    safeFetch,
    logger,
    cursors,
    databaseKind: database.kind,
    ...(overrides.webhooks ? { options: overrides.webhooks } : {}),
  });
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
  production = new ProductionService({
    queue,
    orders,
    accounts,
    logger,
    simulate: config.PRODUCTION_SIMULATOR,
    stepMs: config.PRODUCTION_SIMULATOR_STEP_MS,
    ...(overrides.productionPartner ? { livePartner: overrides.productionPartner } : {}),
  });
  wallet.onFundsAdded(async (resellerId, mode) => {
    await payments.releaseAwaitingFunds(resellerId, mode);
  });
  const dashboardLinks = new DashboardLinks({ db, accounts, publicUrl });
  // Revoking a key ends its dashboard sessions and unused login links at once, in every process (both live in the
  // database).
  accounts.onKeyRevoked(async (keyId) => {
    await sessions.revokeForKey(keyId);
    await dashboardLinks.revokeForKey(keyId);
  });
  return {
    accounts,
    sessions,
    wallet,
    cards,
    catalog,
    samples,
    resellerProducts,
    quotes,
    outbox,
    webhooks,
    eventStreams,
    payments,
    orders,
    production,
    dashboardLinks,
    exchangeRates,
    audit,
    operatorTokens,
  };
}
