import type { Express } from 'express';
import type { Config } from '../config.ts';
import { createHttpApp } from '../http/app.ts';
import { httpAnswer } from '../http/error-catalogue.ts';
import { asServiceUnavailable } from '../http/service-unavailable.ts';
import { sessionCookieOptions } from '../modules/sessions/session-cookies.ts';
import { SignInLimiter } from '../modules/sessions/sign-in-limiter.ts';
import { queueDashboard } from '../modules/console/queue-dashboard.ts';
import { adminLookupRoutes } from '../modules/admin/admin-lookup-routes.ts';
import { adminOrderRoutes } from '../modules/admin/admin-order-routes.ts';
import { adminAccountRoutes } from '../modules/admin/admin-routes.ts';
import { adminStoreRoutes } from '../modules/admin/admin-store-routes.ts';
import { catalogRoutes } from '../modules/catalog/catalog-routes.ts';
import { operatorConsole } from '../modules/console/operator-console.ts';
import { loadAlertThresholds } from '../modules/console/alert-thresholds.ts';
import { ConsoleLookup } from '../modules/console/console-lookup.ts';
import { ConsoleOverview } from '../modules/console/console-overview.ts';
import { actionsSection, resellerActionPages } from '../modules/console/console-reseller-actions.ts';
import { RESELLER_SECTIONS } from '../modules/console/console-pages.ts';
import { auditLogPage } from '../modules/console/console-audit-page.ts';
import { operatorOfSession } from '../modules/console/operator-sessions.ts';
import { adminOperatorRoutes } from '../modules/admin/admin-operator-routes.ts';
import { DashboardApi } from '../modules/dashboard/dashboard-api.ts';
import { adminDashboardLinkRoutes, dashboardLinkRoutes } from '../modules/dashboard/dashboard-links-routes.ts';
import { platformForms } from '../modules/dashboard/dashboard-platforms.ts';
import { platformNamer } from '../modules/code-words.ts';
import { dashboardRouter } from '../modules/dashboard/dashboard-router.ts';
import { DashboardViews } from '../modules/dashboard/dashboard-views.ts';
import { EventLog } from '../modules/events/event-log.ts';
import { adminEventStreamRoutes, eventStreamRoutes } from '../modules/events/events-routes.ts';
import { healthRouter } from '../modules/health/health-routes.ts';
import { metricsPage } from '../modules/health/metrics-page.ts';
import { meRoutes } from '../modules/me/me-routes.ts';
import { ordersRoutes } from '../modules/orders/orders-routes.ts';
import { sampleFilePages } from '../modules/print-files/sample-files-routes.ts';
import { quotesRoutes } from '../modules/quotes/quotes-routes.ts';
import { resellerProductsRoutes } from '../modules/reseller-products/reseller-products-routes.ts';
import { walletRoutes } from '../modules/wallet/wallet-routes.ts';
import { DELIVERY_HEADERS, webhookEventDocs } from '../modules/webhooks/webhook-event-docs.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { CoreModules } from './modules.ts';
import type { Overrides } from './overrides.ts';
import type { StoresArea } from './stores.ts';
import type { OperatorSsoSettings } from '../modules/console/operator-sso.ts';

/** Single sign-on of operators, when OPERATOR_OIDC_ISSUER, _CLIENT_ID and _CLIENT_SECRET are all set. */
function operatorSso(config: Config, overrides: Overrides): OperatorSsoSettings | undefined {
  const { OPERATOR_OIDC_ISSUER: issuer, OPERATOR_OIDC_CLIENT_ID: clientId } = config;
  const clientSecret = config.OPERATOR_OIDC_CLIENT_SECRET;
  if (!issuer || !clientId || !clientSecret) return undefined;
  return {
    issuer,
    clientId,
    clientSecret,
    rolesClaim: config.OPERATOR_OIDC_ROLES_CLAIM,
    ...(overrides.oidcAllowInsecureRequests ? { allowInsecureRequests: true } : {}),
  };
}

/**
 * The HTTP side: the reseller API's and the back-office's routes, the dashboard, the console, health and metrics, in
 * one express app.
 */
export function composeHttpApp(
  infra: Infrastructure,
  modules: CoreModules,
  storesArea: StoresArea,
  config: Config,
  overrides: Overrides,
): Express {
  const { logger, connectors, cursors, redis, redisPrefix, rateLimiter, secrets, publicUrl, metrics, queue } = infra;
  const {
    accounts,
    wallet,
    cards,
    catalog,
    samples,
    quotes,
    orders,
    resellerProducts,
    webhooks,
    eventStreams,
    dashboardLinks,
    sessions,
    audit,
    operatorTokens,
  } = modules;
  const { storesModule, sandbox, health } = storesArea;
  const platforms = connectors.platforms();
  const platformName = platformNamer(connectors.all().map((c) => c.manifest));
  const apiRoutes = [
    ...meRoutes(),
    ...catalogRoutes({ catalog, cursors, samples }),
    ...quotesRoutes({ quotes }),
    ...ordersRoutes({ orders, sources: platforms }),
    ...walletRoutes({ wallet }),
    ...resellerProductsRoutes({ resellerProducts }),
    ...storesModule.routes((tenant, idOrSku) => resellerProducts.get(tenant, idOrSku)),
    ...sandbox.routes(),
    ...webhooks.routes(),
    ...eventStreamRoutes({ streams: eventStreams }),
    ...dashboardLinkRoutes({ links: dashboardLinks }),
  ];
  // The reseller dashboard: pages over the API's own routes, called in-process.
  const dashboard = dashboardRouter({
    statusOf: (refusal) => httpAnswer(refusal).status,
    asServiceUnavailable,
    audit,
    links: dashboardLinks,
    sessions,
    accounts,
    api: new DashboardApi({ routes: apiRoutes, logger }),
    publicUrl,
    logger,
    rateLimiter,
    signInLimiter: new SignInLimiter({ redis, keyPrefix: `${redisPrefix}:dashboard-sign-in` }),
    // The order source filter lists the loaded connectors' platforms: the same list as the console's Stores page.
    sources: ['API', 'DASHBOARD', ...platforms],
    platforms: platformForms(connectors),
    platformName,
    views: new DashboardViews({
      events: new EventLog({ db: infra.database.db }),
      resellerProducts,
      publishing: storesModule.publishing,
      margins: storesModule.margins,
    }),
  });
  const operatorCookie = sessionCookieOptions('operator', publicUrl);

  return createHttpApp({
    logger,
    accounts,
    rateLimiter,
    trustProxy: config.TRUST_PROXY,
    // Wrong API keys and admin tokens per address: 30 per 15 minutes, then a wrong one answers 429 (a right one never
    // does).
    credentialFailures: new SignInLimiter({ redis, keyPrefix: `${redisPrefix}:bearer-failures`, points: 30 }),
    adminToken: secrets.adminToken,
    publicUrl,
    blockedUserAgents: config.BLOCKED_USER_AGENTS,
    checkResponses: overrides.checkResponses ?? false,
    observe: metrics.observe(),
    rootPages: [
      { path: '/', ...healthRouter({ db: infra.database.db, redis }) },
      { path: '/', ...metricsPage(metrics, config.METRICS_TOKEN) },
      { path: '/dashboard', ...dashboard },
    ],
    apiPublicPages: sampleFilePages(samples),
    webhookDocs: { events: webhookEventDocs(platforms), headers: DELIVERY_HEADERS },
    rootRoutes: storesModule.connectorRoutes(),
    adminPages: [{ path: '/queues', ...queueDashboard(queue, '/admin/v1/queues') }],
    operatorSessions: { store: sessions, cookie: operatorCookie, identify: operatorOfSession(secrets.adminToken) },
    operatorTokens,
    console: operatorConsole({
      audit,
      logger,
      sso: operatorSso(config, overrides),
      // The reseller page: its facts, and the actions the signed-in operator's role allows after the account.
      resellerSections: [RESELLER_SECTIONS[0]!, actionsSection, ...RESELLER_SECTIONS.slice(1)],
      extraPages: (add, page) => {
        for (const p of resellerActionPages({ publicUrl, accounts, wallet, links: dashboardLinks, audit }, page))
          add(p);
        for (const p of auditLogPage({ audit, cursors }, page)) add(p);
      },
      adminToken: secrets.adminToken,
      publicUrl,
      sessions,
      cookie: operatorCookie,
      // Failed sign-ins per address: 10 per 15 minutes, shared by every process through Redis when there is one.
      limiter: new SignInLimiter({ redis, keyPrefix: `${redisPrefix}:signin:operator` }),
      health,
      platforms,
      platformName,
      overview: new ConsoleOverview({
        db: infra.database.db,
        health,
        queue,
        platforms,
        thresholds: loadAlertThresholds(),
      }),
      lookup: new ConsoleLookup({ db: infra.database.db, accounts, orders, wallet, cursors }),
    }),
    apiRoutes,
    adminRoutes: [
      ...adminAccountRoutes({ accounts, wallet, cards, audit }),
      ...adminOrderRoutes({ orders, sources: platforms, audit }),
      ...adminEventStreamRoutes({ streams: eventStreams, accounts }),
      ...adminLookupRoutes({
        accounts,
        orders,
        wallet,
        endpoints: webhooks.endpoints,
        deliveries: webhooks.deliveries,
        stores: storesModule.stores,
        cursors,
        sources: platforms,
      }),
      ...adminStoreRoutes({ health }),
      ...adminDashboardLinkRoutes({ links: dashboardLinks, audit }),
      ...adminOperatorRoutes({ tokens: operatorTokens, audit, cursors }),
    ],
  });
}
