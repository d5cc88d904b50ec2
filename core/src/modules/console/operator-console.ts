import type { Logger } from '../../infra/logger.ts';
import { operatorSsoPages, type OperatorSsoSettings } from './operator-sso.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { auditContextOf } from '../operators/operator-roles.ts';
import express, { type Request, type Response } from 'express';
import { constantTimeEqual, sha256Hex } from '../../infra/crypto.ts';
import { operatorOfSession, tokenFingerprint } from './operator-sessions.ts';
import { html, Layout, Field, CsrfField, sendPage, type Children } from '../../web/html.ts';
import { clearSessionCookie, setSessionCookie, type SessionCookieOptions } from '../sessions/session-cookies.ts';
import { csrfCheck, formBody, loadSession, refuseCrossSite } from '../sessions/session-middleware.ts';
import { clientAddress } from '../../web/client-address.ts';
import type { SignInLimiter } from '../sessions/sign-in-limiter.ts';
import type { BrowserSession, SessionStore } from '../sessions/session-store.ts';
import type { StoreHealth, StoreHealthView } from '../stores/health/store-health.ts';
import { Refusal } from '../../kernel/refusal.ts';
import { definePage, mountPages, type PageRouter, type PageSpec } from '../../web/page.ts';
import { ConsoleHome } from './console-home.ts';
import type { ConsoleLookup } from './console-lookup.ts';
import type { ConsoleOverview } from './console-overview.ts';
import { consolePages, SearchField, type ResellerSection } from './console-pages.ts';
import { inWords, STORE_FLAG_WORDS, type PlatformName } from '../code-words.ts';

export const CONSOLE_BASE = '/admin';

/** The cookie bull-board's client (axios) and the API docs read the CSRF token from, sent back as `X-XSRF-TOKEN`. */
export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_PATH = '/admin/v1';

export interface OperatorConsoleDeps {
  adminToken: string;
  publicUrl: string;
  sessions: SessionStore;
  cookie: SessionCookieOptions;
  limiter: SignInLimiter;
  health: StoreHealth;
  platforms: readonly string[];
  /** A platform's name, as its connector gives it (code-words.ts). */
  platformName: PlatformName;
  /** The home page's charts (issue 37): none, the home page lists its links only. */
  overview?: ConsoleOverview;
  /** The search field and the reseller and order pages: none, no search. */
  lookup?: ConsoleLookup;
  /** The reseller page's sections, in order (console-pages.ts' RESELLER_SECTIONS by default). */
  resellerSections?: ResellerSection[];
  /** Where sign-ins (and refused ones) are recorded. */
  audit: AuditLog;
  logger: Logger;
  /** Single sign-on, when OPERATOR_OIDC_* are set. */
  sso?: OperatorSsoSettings | undefined;
  /** More console pages (the reseller page's actions, the audit log), registered after these. */
  extraPages?: (add: (page: PageSpec) => void, page: ConsolePage) => void;
}

/** Renders a console page in its layout (navigation, sign-out). */
export type ConsolePage = (req: Request, title: string, body: Children) => unknown;

const NAV = [
  { href: '/admin', label: 'Home' },
  { href: '/admin/stores', label: 'Stores' },
  { href: '/admin/audit', label: 'Audit log' },
  { href: '/admin/v1/queues', label: 'Queues' },
  { href: '/admin/v1/docs', label: 'API docs' },
];

/**
 * The operators' console at `/admin`: sign-in with the admin token (a session cookie:
 * HttpOnly, SameSite=Strict, Secure on https), sign-out, the home page, and the store health
 * page. The queue dashboard and the API docs live under `/admin/v1`, which takes this session
 * as well as the Bearer token.
 */
export function operatorConsole(deps: OperatorConsoleDeps): PageRouter {
  const router = express.Router();
  const pages: PageSpec[] = [];
  const identify = operatorOfSession(deps.adminToken);
  router.use(formBody(), loadSession(deps.sessions, deps.cookie), (req, _res, next) => {
    const operator = req.browserSession && identify(req.browserSession);
    if (operator) req.operator = operator;
    else delete req.browserSession;
    next();
  });

  pages.push(
    definePage({
      method: 'get',
      path: '/',
      auth: 'public',
      csrf: 'none',
      handle: async (req, res, next) => {
        const session = req.browserSession;
        if (!session) return signInPage(res, { next: safeNext(req.query.next), sso: !!deps.sso });
        const who = req.operator!.actor;
        let overview;
        try {
          overview = deps.overview ? await deps.overview.read() : undefined;
        } catch (err) {
          return next(err);
        }
        sendPage(
          res,
          page(
            req,
            'Operations',
            html`
        ${overview ? html`<${ConsoleHome} overview=${overview} platformName=${deps.platformName} />` : null}
        <p data-signed-in-as>Signed in as <strong>${who.type === 'operator' ? (who.name ?? who.email ?? who.id) : 'the admin token'}</strong>${who.email && who.name ? ` (${who.email})` : ''}, role <strong data-role>${req.operator!.role}</strong>. Session ends ${session.expiresAt.toISOString()}.</p>
        <ul>
          <li><a href="/admin/stores">Store health</a>: which connected store is falling behind.</li>
          <li><a href="/admin/audit">Audit log</a>: who did what, when, from where; and whether the trail was edited.</li>
          <li><a href="/admin/v1/queues">Queue dashboard</a>: counts, failed jobs with their errors, retry, remove.</li>
          <li><a href="/admin/v1/docs">Back-office API reference</a> (<a href="/admin/v1/openapi.json">OpenAPI</a>).</li>
          <li><a href="/metrics">Prometheus metrics</a></li>
        </ul>
        <form method="post" action="/admin/sign-out">
          <${CsrfField} token=${session.csrfToken} />
          <input type="hidden" name="everywhere" value="1" />
          <button type="submit">Sign out every operator session</button>
        </form>`,
          ),
        );
      },
    }),
  );

  pages.push(
    definePage({
      method: 'post',
      path: '/sign-in',
      auth: 'public',
      csrf: 'origin',
      limit: 'sign-in',
      handle: async (req, res, next) => {
        try {
          // No session yet, so no token to check: a sign-in must at least come from this site (login CSRF).
          refuseCrossSite(req, deps.publicUrl, 'This sign-in comes from another site: it is refused.');
          const body = (req.body ?? {}) as Record<string, unknown>;
          const next_ = safeNext(body.next);
          const key = `ip:${clientAddress(req)}`;
          const token = typeof body.token === 'string' ? body.token.trim() : '';
          // The right token always signs in: failures are throttled per address, but a lockout must
          // not shut out the operators behind the same proxy as whoever is guessing.
          if (!token || !constantTimeEqual(token, deps.adminToken)) {
            if (token)
              await deps.audit.record(auditContextOf(req, { type: 'system', id: 'console-sign-in' }), {
                action: 'operator.sign_in_refused',
                target: { type: 'console', id: 'admin' },
                changes: { method: 'admin_token', reason: 'wrong_token' },
              });
            const blocked = token ? await deps.limiter.failed(key) : await deps.limiter.blockedFor(key);
            if (blocked > 0) {
              res.set('Retry-After', String(blocked));
              return signInPage(
                res,
                {
                  next: next_,
                  sso: !!deps.sso,
                  error: `Too many failed sign-ins from this address: a wrong token is refused for ${Math.ceil(blocked / 60)} more minute(s).`,
                },
                429,
              );
            }
            return signInPage(
              res,
              {
                next: next_,
                sso: !!deps.sso,
                error: token ? 'That is not the admin token.' : 'Enter the admin token.',
              },
              401,
            );
          }
          await deps.limiter.succeeded(key);
          const { token: sessionToken, session } = await deps.sessions.create(
            'operator',
            'admin',
            {
              ttlMs: deps.cookie.ttlMs,
              data: { tokenFingerprint: tokenFingerprint(deps.adminToken) },
              userAgent: req.get('user-agent'),
              ip: req.ip,
            },
            deps.audit.hook(auditContextOf(req, { type: 'admin_token', id: 'admin' }), (s) => ({
              action: 'operator.signed_in',
              target: { type: 'console', id: 'admin' },
              changes: { method: 'admin_token', role: 'admin', sessionId: s.id },
            })),
          );
          setSessionCookie(res, deps.cookie, sessionToken, session.expiresAt);
          res.append('Set-Cookie', xsrfCookie(deps.cookie, session.csrfToken, session.expiresAt));
          res.redirect(303, next_ ?? '/admin');
        } catch (err) {
          next(err);
        }
      },
    }),
  );

  pages.push(
    definePage({
      method: 'post',
      path: '/sign-out',
      auth: 'operator',
      csrf: 'token',
      guard: csrfCheck(deps.publicUrl),
      handle: async (req, res, next) => {
        try {
          const session = req.browserSession;
          if (session) {
            if ((req.body as Record<string, unknown> | undefined)?.everywhere === '1')
              await deps.sessions.revokeAll('operator', session.subject);
            else await deps.sessions.revoke(session.id);
          }
          clearSessionCookie(res, deps.cookie);
          res.append('Set-Cookie', xsrfCookie(deps.cookie, '', new Date(0)));
          res.redirect(303, '/admin');
        } catch (err) {
          next(err);
        }
      },
    }),
  );

  pages.push(
    definePage({
      method: 'get',
      path: '/stores',
      auth: 'operator',
      csrf: 'none',
      handle: async (req, res, next) => {
        try {
          if (!req.browserSession) return void res.redirect(303, `/admin?next=${encodeURIComponent(req.originalUrl)}`);
          const q = req.query as Record<string, string | undefined>;
          const filters = {
            platform: q.platform || undefined,
            resellerId: q.reseller || undefined,
            status:
              q.state === 'connected' || q.state === 'disconnected'
                ? (q.state as 'connected' | 'disconnected')
                : undefined,
          };
          let list;
          try {
            list = await deps.health.list({ ...filters, cursor: q.cursor || undefined, limit: 50 });
          } catch (err) {
            if (err instanceof Refusal && err.code === 'invalid_request') {
              return sendPage(
                res,
                page(
                  req,
                  'Store health',
                  html`<p class="error" role="alert">${err.message}</p><p><a href="/admin/stores">First page</a></p>`,
                ),
                400,
              );
            }
            throw err;
          }
          const params = new URLSearchParams(
            Object.entries({ platform: filters.platform, reseller: filters.resellerId, state: filters.status }).filter(
              (e): e is [string, string] => !!e[1],
            ),
          );
          const nextHref = list.nextCursor
            ? `/admin/stores?${new URLSearchParams([...params, ['cursor', list.nextCursor]])}`
            : null;
          const flagged = list.data.filter((s) => s.flags.length > 0).length;
          // Resellers by name (one query for the page), linked to their page where the console has one.
          const names = deps.lookup
            ? await deps.lookup.resellerNames(list.data.map((s) => s.resellerId))
            : new Map<string, string>();
          sendPage(
            res,
            page(
              req,
              'Store health',
              html`
          <form method="get" action="/admin/stores" aria-label="Filter stores" style="display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end">
            <div>
              <label for="platform">Platform</label>
              <select id="platform" name="platform">
                <option value="">All</option>
                ${deps.platforms.map((p) => html`<option value=${p} selected=${p.toLowerCase() === filters.platform?.toLowerCase()}>${deps.platformName(p)}</option>`)}
              </select>
            </div>
            <div>
              <label for="reseller">Reseller id</label>
              <input id="reseller" name="reseller" value=${filters.resellerId ?? ''} />
            </div>
            <div>
              <label for="state">State</label>
              <select id="state" name="state">
                <option value="">All</option>
                <option value="connected" selected=${filters.status === 'connected'}>connected</option>
                <option value="disconnected" selected=${filters.status === 'disconnected'}>disconnected</option>
              </select>
            </div>
            <div><button type="submit">Filter</button></div>
          </form>
          <p>${list.data.length} store(s) on this page, <strong>${flagged} flagged</strong>. Thresholds: ingest lag over ${deps.health.thresholds.ingestLagSeconds} s; failed share of the last 24 h at least ${Math.round(deps.health.thresholds.errorRate * 100)} %; an order ${Math.round(deps.health.thresholds.webhooksSilentSeconds / 60)} min after the last webhook; credentials expiring within ${Math.round(deps.health.thresholds.tokenExpirySeconds / 86400)} days.</p>
          <div class="table">
            <table>
              <thead>
                <tr><th>Store</th><th>Flags</th><th>Platform</th><th>Reseller</th><th>State</th><th>Last webhook</th><th>Last poll</th><th>Ingest lag</th><th>24 h placed / skipped / failed</th><th>Last platform error</th><th>Token expiry</th></tr>
              </thead>
              <tbody>
                ${list.data.map((s) => storeRow(s, names.get(s.resellerId), deps.platformName))}
              </tbody>
            </table>
          </div>
          ${list.data.length === 0 ? html`<p class="muted">No store matches.</p>` : null}
          ${nextHref ? html`<p><a href=${nextHref} rel="next">Next page</a></p>` : null}`,
            ),
          );
        } catch (err) {
          next(err);
        }
      },
    }),
  );

  if (deps.lookup) pages.push(...consolePages(deps.lookup, page, deps.platformName, deps.resellerSections));
  if (deps.sso) {
    pages.push(
      ...operatorSsoPages({
        settings: deps.sso,
        publicUrl: deps.publicUrl,
        sessions: deps.sessions,
        cookie: deps.cookie,
        audit: deps.audit,
        limiter: deps.limiter,
        logger: deps.logger,
        onSignedIn: (res, csrfToken, expiresAt) =>
          res.append('Set-Cookie', xsrfCookie(deps.cookie, csrfToken, expiresAt)),
      }),
    );
  }
  deps.extraPages?.((p) => pages.push(p), page);
  mountPages(router, pages);
  return { router, pages };

  function page(req: Request, title: string, body: Children) {
    const session = req.browserSession;
    const q = req.path === '/search' && typeof req.query.q === 'string' ? req.query.q : undefined;
    return html`<${Layout} title=${title} product="Print API operations" nav=${NAV} signOut=${session ? { action: '/admin/sign-out', csrfToken: session.csrfToken } : undefined}>
      <style>${CONSOLE_CSS}</style>
      ${session && deps.lookup ? html`<${SearchField} q=${q} />` : null}
      ${body}<//>`;
  }
}

function storeRow(s: StoreHealthView, resellerName: string | undefined, platformName: PlatformName) {
  const flagged = s.flags.length > 0;
  return html`<tr data-store=${s.id} class=${flagged ? 'flagged' : ''}>
    <td>${s.name}<br /><span class="muted">${s.id}${s.testMode ? ' · test' : ''}</span></td>
    <td class="flags">${flagged ? s.flags.map((f) => html`<span class="flag" data-flag=${f}>${inWords(STORE_FLAG_WORDS, f)}</span>`) : html`<span class="ok">ok</span>`}</td>
    <td>${platformName(s.platform)}</td>
    <td>${resellerName ? html`<a href=${`/admin/resellers/${s.resellerId}`}>${resellerName}</a>` : s.resellerId}</td>
    <td>${s.status}</td>
    <td>${when(s.lastWebhookAt)}</td>
    <td>${when(s.lastPolledAt)}</td>
    <td>${s.ingestLagSeconds > 0 ? `${s.ingestLagSeconds} s` : '—'}</td>
    <td>${s.last24h.placed} / ${s.last24h.skipped} / <span class=${s.last24h.failed ? 'error' : ''}>${s.last24h.failed}</span></td>
    <td class=${s.lastError ? 'error' : ''}>${s.lastError ?? '—'}${s.notices.map((n) => html`<p class="notice" data-notice>${n}</p>`)}</td>
    <td>${when(s.tokenExpiresAt)}</td>
  </tr>`;
}

/** The console's own styles: the search field, and store health rows that fit 1280 px (long errors wrap). */
const CONSOLE_CSS = `.console-search{display:flex;flex-wrap:wrap;gap:.25rem .5rem;align-items:center;margin:0 0 1rem}
.console-search label{margin:0}td.flags{min-width:7rem}td.flags .flag{display:inline-block;white-space:nowrap;margin:.1rem .25rem .1rem 0}
td.error{max-width:22rem;overflow-wrap:anywhere}code.code{font-size:11px;opacity:.75}`;

function when(iso: string | null) {
  return iso ? html`<time datetime=${iso}>${iso.replace('T', ' ').slice(0, 19)} UTC</time>` : '—';
}

function signInPage(
  res: Response,
  opts: { next?: string | undefined; error?: string; sso?: boolean },
  status = 200,
): void {
  res.set('Cache-Control', 'no-store');
  const ssoHref = `/admin/oidc/start${opts.next ? `?next=${encodeURIComponent(opts.next)}` : ''}`;
  sendPage(
    res,
    html`<${Layout} title="Sign in" product="Print API operations">
      ${opts.sso ? html`<p><a class="button" href=${ssoHref} data-sso>Sign in with single sign-on</a></p><p class="muted">Or, in an emergency, with the admin token:</p>` : null}
      <form method="post" action="/admin/sign-in">
        <${Field} name="token" label="Admin token" type="password" autocomplete="current-password" required=${true} error=${opts.error} />
        ${opts.next ? html`<input type="hidden" name="next" value=${opts.next} />` : null}
        <p><button type="submit">Sign in</button></p>
      </form>
      <p class="muted">The ADMIN_TOKEN of this deployment (scripts keep sending it as <code>Authorization: Bearer</code>).</p>
    <//>`,
    status,
  );
}

/** A path inside the console to return to after signing in; anything else (another site) is ignored. */
function safeNext(value: unknown): string | undefined {
  return typeof value === 'string' &&
    /^\/admin(\/|$|\?)/.test(value) &&
    !value.startsWith('//') &&
    !/[\\\r\n]/.test(value)
    ? value
    : undefined;
}

/** Whether a session still counts (see operatorOfSession). */
export function acceptsOperatorSession(adminToken: string): (session: BrowserSession) => boolean {
  const identify = operatorOfSession(adminToken);
  return (session) => identify(session) !== undefined;
}

/** The readable copy of the CSRF token for the dashboard's and docs' scripts (not HttpOnly: they read it). */
export function xsrfCookie(cookie: SessionCookieOptions, token: string, expires: Date): string {
  return [
    `${XSRF_COOKIE}=${token}`,
    `Path=${XSRF_PATH}`,
    `Expires=${expires.toUTCString()}`,
    `Max-Age=${Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000))}`,
    'SameSite=Strict',
    ...(cookie.secure ? ['Secure'] : []),
  ].join('; ');
}
