import { createRequire } from 'node:module';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from '../infra/logger.ts';
import type { RateLimiter } from '../infra/rate-limit.ts';
import type { AccountsService } from '../modules/accounts/accounts-service.ts';
import { adminAuth } from './middleware/admin-auth.ts';
import { apiKeyAuth } from './middleware/api-key-auth.ts';
import { browserErrorPage } from './middleware/browser-error-page.ts';
import { errorHandler, notFoundHandler } from './middleware/error-handler.ts';
import { jsonBody } from './middleware/json-body.ts';
import { requestId } from './middleware/request-id.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { rejectUnstorableUrl } from './middleware/unstorable-text.ts';
import { userAgentGuard } from './middleware/user-agent.ts';
import { mountRoutes, type MountOptions } from './mount-routes.ts';
import { EntryPoints } from './entry-points.ts';
import { definePage, mountPages, type PageAuth, type PageRouter, type PageSpec } from '../web/page.ts';
import { API_DESCRIPTION, API_LICENSE, API_TAGS, ERROR_REFERENCE_PATH } from './api-description.ts';
import { errorReferenceHtml } from './error-reference.ts';
import { favicon } from './favicon.ts';
import { buildOpenApi, docsPage, type DocumentedWebhook } from './openapi.ts';
import type { AnyRoute } from '../web/route.ts';
import { RouteTable } from '../web/route-table.ts';
import type { BrowserSession, SessionStore } from '../modules/sessions/session-store.ts';
import type { SessionCookieOptions } from '../modules/sessions/session-cookies.ts';
import { csrfCheck } from '../modules/sessions/session-middleware.ts';
import type { SignInLimiter } from '../modules/sessions/sign-in-limiter.ts';
import { requireRole, type Operator } from '../modules/operators/operator-roles.ts';
import type { OperatorTokens } from '../modules/operators/operator-tokens.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const API_BASE = '/api/reseller/v1';
export const ADMIN_BASE = '/admin/v1';

export interface HttpAppDeps {
  logger: Logger;
  accounts: AccountsService;
  rateLimiter: RateLimiter;
  adminToken: string;
  publicUrl: string;
  blockedUserAgents: string[];
  apiRoutes: AnyRoute[];
  adminRoutes: AnyRoute[];
  /** Declared pages outside the two APIs, each router at its path: health, metrics, the reseller dashboard. */
  rootPages?: Array<{ path: string } & PageRouter>;
  /**
   * Declared routes outside the two APIs, at their own paths: what platforms and merchants'
   * browsers call (`/connectors/...`: webhooks, install redirects and callbacks), and aliases
   * of API routes kept for clients of an older path. No JSON parsing before them (webhooks
   * are verified on their raw bytes); the `apiKey` ones get the API's edge (User-Agent check,
   * JSON body, key and rate limit).
   */
  rootRoutes?: AnyRoute[];
  /**
   * Public handlers under the API's base path, before its JSON body and key check (after the
   * User-Agent guard): the sample print files, the error reference.
   */
  apiPublicPages?: PageSpec[];
  /**
   * Operators' browser sessions: the back-office takes them besides the Bearer token (with a
   * CSRF check on state-changing requests); `console` is the operators' pages at `/admin`.
   */
  operatorSessions?: {
    store: SessionStore;
    cookie: SessionCookieOptions;
    /** The operator a live session acts as; undefined when it no longer counts. */
    identify: (session: BrowserSession) => Operator | undefined;
  };
  /** Operator tokens (`opt_…`), taken by the back-office besides the admin token. */
  operatorTokens?: OperatorTokens;
  console?: PageRouter;
  /** Declared back-office pages (the queue dashboard), each router at its path, behind the admin token. */
  adminPages?: Array<{ path: string } & PageRouter>;
  /** The events webhook endpoints receive and the headers of a delivery, for the OpenAPI `webhooks` section. */
  webhookDocs?: {
    events: Record<string, DocumentedWebhook>;
    headers: Array<{ name: string; description: string; example: string }>;
  };
  /** Which proxies' X-Forwarded-For names the client (TRUST_PROXY); none when unset: the socket's address. */
  trustProxy?: number | string[] | undefined;
  /** Wrong API keys and admin tokens, counted per client address. */
  credentialFailures?: SignInLimiter;
  /** Per-request hooks (metrics). */
  observe?: RequestHandler;
  checkResponses?: boolean;
}

const swaggerAssets = createRequire(import.meta.url)
  .resolve('swagger-ui-dist/package.json')
  .replace(/package\.json$/, '');
const DOCS_INIT = `const s=document.currentScript.dataset.spec;window.ui=SwaggerUIBundle({url:s,dom_id:'#ui',deepLinking:true});`;
// The back-office docs are used signed in: "Try it out" sends the session's CSRF token (the XSRF-TOKEN cookie) back.
const ADMIN_DOCS_INIT = `const s=document.currentScript.dataset.spec;window.ui=SwaggerUIBundle({url:s,dom_id:'#ui',deepLinking:true,requestInterceptor:(r)=>{const m=document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]+)/);if(m)r.headers['X-XSRF-TOKEN']=decodeURIComponent(m[1]);return r;}});`;

/** The express application: edge checks, the reseller API, the back-office, health. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // First of all: every response, from any router or handler (a 404 included), carries them.
  app.use(securityHeaders({ https: deps.publicUrl.startsWith('https:') }));
  app.set('etag', false);
  app.set('query parser', 'simple');
  // The client's address (lockouts, logs) is the socket's unless TRUST_PROXY names the proxies in front.
  app.set('trust proxy', deps.trustProxy ?? false);
  app.use(requestId());
  if (deps.observe) app.use(deps.observe);
  // Before every router: the connector routes decode their paths and queries themselves.
  app.use(rejectUnstorableUrl());
  // Every entry point, recorded as it is mounted (the fuzzers, the OpenAPI tests and the route listing read it).
  const entries = new EntryPoints();
  app.locals.entryPoints = entries;
  const mountOptions = (basePath: string) => ({
    logger: deps.logger,
    basePath,
    checkResponses: deps.checkResponses ?? false,
  });

  const openapi = buildOpenApi({
    title: 'Reseller Print API',
    description: API_DESCRIPTION,
    serverUrl: `${deps.publicUrl}${API_BASE}`,
    routes: deps.apiRoutes,
    tags: API_TAGS,
    license: API_LICENSE,
    ...(deps.webhookDocs ? { webhooks: { ...deps.webhookDocs, operationTags: ['Webhook events'] } } : {}),
  });
  const errorReference = errorReferenceHtml();
  app.locals.apiOpenApi = openapi;
  const api = express.Router();
  api.use(userAgentGuard(deps.blockedUserAgents));
  const apiDocs = docsPages({ openapi, base: API_BASE, init: DOCS_INIT, auth: 'public', errors: errorReference });
  mountPages(api, apiDocs);
  entries.addPages(API_BASE, apiDocs);
  mountPages(api, deps.apiPublicPages ?? []);
  entries.addPages(API_BASE, deps.apiPublicPages ?? []);
  api.use(jsonBody());
  api.use(apiKeyAuth({ accounts: deps.accounts, rateLimiter: deps.rateLimiter, failures: deps.credentialFailures }));
  mountRoutes(api, deps.apiRoutes, mountOptions(API_BASE));
  entries.addRoutes(API_BASE, deps.apiRoutes);
  app.use(API_BASE, api);

  const adminOpenapi = buildOpenApi({
    title: 'Print API back-office',
    description:
      'The back-office operations. Scripts send Authorization: Bearer ADMIN_TOKEN; operators signed in at /admin use their session (with the X-CSRF-Token or X-XSRF-Token header on changes).',
    serverUrl: `${deps.publicUrl}${ADMIN_BASE}`,
    routes: deps.adminRoutes,
  });
  const admin = express.Router();
  // Everything here is an operator's view of private data: no cache keeps it (the pages, the queue dashboard, JSON).
  admin.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  admin.use(
    adminAuth({
      adminToken: deps.adminToken,
      tokens: deps.operatorTokens,
      sessions: deps.operatorSessions ? { ...deps.operatorSessions, signInPath: '/admin' } : undefined,
      failures: deps.credentialFailures,
    }),
  );
  if (deps.operatorSessions) admin.use(csrfCheck(deps.publicUrl));
  // The pages' own state-changing requests (bull-board's retry and remove) need the role the table gives them.
  admin.use('/queues', (req, _res, next) => {
    try {
      if (!SAFE_METHODS.has(req.method)) requireRole(req, req.method, `${ADMIN_BASE}/queues${req.path}`);
      next();
    } catch (err) {
      next(err);
    }
  });
  const adminDocs = docsPages({
    openapi: adminOpenapi,
    base: ADMIN_BASE,
    init: ADMIN_DOCS_INIT,
    auth: 'operator',
    title: 'Print API back-office reference',
  });
  mountPages(admin, adminDocs);
  entries.addPages(ADMIN_BASE, adminDocs);
  for (const { path, router, pages, mounted } of deps.adminPages ?? []) {
    admin.use(path, router);
    entries.addPages(`${ADMIN_BASE}${path}`, pages);
    if (mounted) entries.addMounted(`${ADMIN_BASE}${path}`, mounted);
  }
  admin.use(jsonBody());
  mountRoutes(admin, deps.adminRoutes, {
    ...mountOptions(ADMIN_BASE),
    authorize: (route, req) => void requireRole(req, route.method, `${ADMIN_BASE}${route.path}`),
  });
  entries.addRoutes(ADMIN_BASE, deps.adminRoutes, { sessionCsrf: deps.operatorSessions !== undefined });
  app.use(ADMIN_BASE, admin);
  if (deps.console) {
    app.use('/admin', deps.console.router);
    entries.addPages('/admin', deps.console.pages);
  }

  // After the two APIs, whose paths they never share: an API request does not walk their stacks
  // (routers mounted at '/' are entered by every request that reaches them). The connector
  // webhooks still get their raw bodies: only the API routers parse JSON.
  for (const { path, router, pages } of deps.rootPages ?? []) {
    app.use(path, router);
    entries.addPages(path === '/' ? '' : path, pages);
  }
  if (deps.rootRoutes?.length) {
    app.use(rootRouter(deps, deps.rootRoutes, mountOptions('')));
    entries.addRoutes('', deps.rootRoutes);
  }

  const rootPages = [
    definePage({ method: 'get', path: '/favicon.ico', auth: 'public', csrf: 'none', handle: favicon }),
  ];
  mountPages(app, rootPages);
  entries.addPages('', rootPages);

  app.use(notFoundHandler());
  app.use(browserErrorPage('/connectors/', { href: '/dashboard/stores', label: 'Back to your stores' }));
  app.use(errorHandler(deps.logger));
  return app;
}

/** The description, its reference page, the errors page (the API's) and the script that starts the reference. */
function docsPages(opts: {
  openapi: unknown;
  base: string;
  init: string;
  auth: PageAuth;
  errors?: string;
  title?: string;
}): PageSpec[] {
  const { base, errors } = opts;
  const page = (path: string, handle: RequestHandler) =>
    definePage({ method: 'get', path, auth: opts.auth, csrf: 'none', handle });
  return [
    page('/openapi.json', (_req, res) => void res.json(opts.openapi)),
    page(
      '/docs',
      (_req, res) =>
        void res
          .type('html')
          .send(
            docsPage(
              `${base}/openapi.json`,
              `${base}/docs/assets`,
              errors === undefined ? undefined : ERROR_REFERENCE_PATH,
              opts.title,
            ),
          ),
    ),
    ...(errors === undefined ? [] : [page('/docs/errors', (_req, res) => void res.type('html').send(errors))]),
    page('/docs/assets/docs-init.js', (_req, res) => void res.type('js').send(opts.init)),
    // Swagger UI's own files (a flat folder), served as they are.
    page('/docs/assets/{file}', (req, res, next) =>
      res.sendFile(req.params.file as string, { root: swaggerAssets, dotfiles: 'deny', maxAge: '1d' }, (err) =>
        next((err as { status?: number } | undefined)?.status === 404 ? undefined : err),
      ),
    ),
  ];
}

/** The root routes, the API's edge in front of those that take an API key. */
function rootRouter(deps: HttpAppDeps, routes: AnyRoute[], options: MountOptions): express.Router {
  const keyed = new RouteTable(routes.filter((route) => route.auth === 'apiKey'));
  const apiEdge = express.Router();
  apiEdge.use(
    userAgentGuard(deps.blockedUserAgents),
    jsonBody(),
    apiKeyAuth({ accounts: deps.accounts, rateLimiter: deps.rateLimiter, failures: deps.credentialFailures }),
  );
  const root = express.Router();
  root.use((req, res, next) => {
    try {
      if (!keyed.find(req.method, req.path)) return next();
    } catch (err) {
      return next(err);
    }
    apiEdge(req, res, next);
  });
  mountRoutes(root, routes, options);
  return root;
}

/** The OpenAPI document the app serves (tests compare it with the mounted routes). */
export function apiOpenApi(routes: AnyRoute[], publicUrl: string) {
  return buildOpenApi({ title: 'Reseller Print API', description: '', serverUrl: `${publicUrl}${API_BASE}`, routes });
}
