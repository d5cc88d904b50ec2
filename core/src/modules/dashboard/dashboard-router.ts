import type { AuditLog } from '../audit/audit-log.ts';
import { auditContextOf } from '../operators/operator-roles.ts';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Refusal } from '../../kernel/refusal.ts';
import { definePage, mountPages, type PageRouter, type PageSpec } from '../../web/page.ts';
import { html, sendPage } from '../../web/html.ts';
import {
  clearSessionCookie,
  readCookie,
  sessionCookieOptions,
  setSessionCookie,
  type SessionCookieOptions,
} from '../sessions/session-cookies.ts';
import { csrfCheck, formBody, loadSession, refuseCrossSite } from '../sessions/session-middleware.ts';
import { clientAddress } from '../../web/client-address.ts';
import type { SignInLimiter } from '../sessions/sign-in-limiter.ts';
import type { Logger } from '../../infra/logger.ts';
import type { RateLimiter } from '../../infra/rate-limit.ts';
import type { AccountsService } from '../accounts/accounts-service.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { BrowserSession, SessionStore } from '../sessions/session-store.ts';
import { sessionCaller, type DashboardApi } from './dashboard-api.ts';
import { redirect, type DashContext, type DashHandler } from './dashboard-context.ts';
import type { DashboardLinks, LinkRefusal } from './dashboard-links-service.ts';
import { canSwitchMode, grantAllows, otherModeHint, pageScope, type SessionGrant } from './dashboard-grants.ts';
import type { DashboardViews } from './dashboard-views.ts';
import type { PlatformName } from '../code-words.ts';
import { dashboardErrorPage, type AsUnavailable } from './dashboard-error-page.ts';
import { homePage } from './pages/home-page.ts';
import { merchantMessage } from './pages/words.ts';
import { ordersPages } from './pages/orders-pages.ts';
import { DashLayout, PlainLayout } from './pages/parts.ts';
import { productsPages } from './pages/products-pages.ts';
import { storesPages, type PlatformForms } from './pages/stores-pages.ts';
import { webhooksPages } from './pages/webhooks-pages.ts';

/** The HTTP status of a refusal (the error catalogue's, given by the composition root). */
export type StatusOf = (refusal: Refusal) => number;

export interface DashboardDeps {
  statusOf: StatusOf;
  /** An outage of a part we depend on, as the edge answers it (503 with Retry-After). */
  asServiceUnavailable: AsUnavailable;
  links: DashboardLinks;
  sessions: SessionStore;
  accounts: AccountsService;
  api: DashboardApi;
  publicUrl: string;
  logger: Logger;
  /**
   * The API's per-minute limit, counted per reseller for its dashboard pages (a page is one request, whatever it
   * calls).
   */
  rateLimiter?: RateLimiter;
  /** Failed link openings, per client address. */
  signInLimiter: SignInLimiter;
  /** Order sources for the orders filter (the API's and the loaded platforms). */
  sources: string[];
  /** The connect forms each loaded connector offers. */
  platforms: PlatformForms[];
  /** A platform's (or order source's) name, as its connector gives it (code-words.ts). */
  platformName: PlatformName;
  /** Read-only views the API has no route for (an order's events, where a product is sold). */
  views: DashboardViews;
  cookie?: Partial<Omit<SessionCookieOptions, 'kind'>>;
  /** Where sign-ins are recorded (a reseller's security events). */
  audit?: AuditLog;
}

/** Declares a signed-in page (`path` in the declarations' style, `/orders/{id}`) and registers its handler. */
export type Register = (method: 'get' | 'post', path: string, handler: DashHandler) => void;

const REFUSED: Record<LinkRefusal, { status: number; text: string }> = {
  unknown: { status: 404, text: 'This login link is not valid. Ask for a new one.' },
  used: { status: 410, text: 'This login link has been used already: each link signs in once. Ask for a new one.' },
  expired: { status: 410, text: 'This login link has expired: links are valid for 5 minutes. Ask for a new one.' },
  account_not_active: {
    status: 403,
    text: 'This account is not active: the dashboard is open to approved accounts only.',
  },
  key_revoked: {
    status: 410,
    text: 'The API key that made this login link has been revoked: the link no longer signs in.',
  },
};
/**
 * The pages' only script, an enhancement: every form works without it. It asks before a form
 * marked `data-confirm` (disconnect, delete, cancel) is sent.
 */
const DASHBOARD_JS = `document.addEventListener('submit',function(e){var f=e.target;var q=f&&f.getAttribute&&f.getAttribute('data-confirm');if(q&&!window.confirm(q))e.preventDefault();});`;
const ASK_AGAIN =
  'To sign in again, open the dashboard from your own system (it asks us for a new login link), or ask us for a link.';

/**
 * The reseller dashboard at `/dashboard`: server-rendered pages over the reseller API. A
 * session starts from a single-use login link and lasts 12 hours; it is a reseller session
 * (its own cookie, never an operator's), acts in one mode, and ends at once when the account
 * is no longer approved.
 */
export function dashboardRouter(deps: DashboardDeps): PageRouter {
  const cookie = sessionCookieOptions('reseller', deps.publicUrl, deps.cookie);
  const router = express.Router();
  const pages: Array<PageSpec<unknown>> = [];
  /** Declares a page and registers it here, after the middleware used so far. */
  const page = (spec: PageSpec): void => {
    pages.push(definePage(spec));
    mountPages(router, [spec]);
  };
  router.use(formBody());
  page({
    method: 'get',
    path: '/assets/dashboard.js',
    auth: 'public',
    csrf: 'none',
    handle: (_req, res) =>
      void res
        .set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' })
        .type('js')
        .send(DASHBOARD_JS),
  });

  // Signing in: no session is read here (a link opens a new one, whatever the browser had).
  page({
    method: 'get',
    path: '/login/{token}',
    auth: 'public',
    csrf: 'none',
    handle: (req, res, next) => {
      void (async () => {
        const checked = await deps.links.check(String(req.params.token));
        if (!checked.ok) return refused(res, checked.reason);
        sendPage(
          res,
          html`<${PlainLayout} title="Sign in">
          <p>Sign in to the dashboard of <strong>${checked.resellerName}</strong>, in <strong>${checked.mode}</strong> mode.</p>
          <form method="post" action=${`/dashboard/login/${encodeURIComponent(String(req.params.token))}`}>
            <button type="submit" autofocus>Sign in</button>
          </form>
          <p class="muted">The link signs in once and is valid for 5 minutes. The session lasts 12 hours.</p>
        <//>`,
        );
      })().catch(next);
    },
  });
  // Failed openings are throttled per address (signInLimiter).
  page({
    method: 'post',
    path: '/login/{token}',
    auth: 'public',
    csrf: 'origin',
    limit: 'sign-in',
    handle: (req, res, next) => {
      void (async () => {
        // Login CSRF: another site's page could post a link of the attacker's and sign the
        // reseller into the attacker's dashboard. Only a form of this site starts a session.
        try {
          refuseCrossSite(req, deps.publicUrl, 'This sign-in was sent by another site: it is refused.');
        } catch {
          return sendPage(
            res,
            html`<${PlainLayout} title="Cannot sign in"><p role="alert" class="error">This sign-in was sent by another site: it is refused. Open the login link itself in your browser and press Sign in there.</p><//>`,
            403,
          );
        }
        const who = `dashboard-link:${clientAddress(req)}`;
        // A link that opens always opens: failures are throttled per address, never a right link.
        const opened = await deps.links.open(String(req.params.token));
        if (!opened.ok) {
          const wait = await deps.signInLimiter.failed(who);
          if (wait > 0) {
            res.set('Retry-After', String(wait));
            return sendPage(
              res,
              html`<${PlainLayout} title="Too many attempts"><p role="alert">Too many links that did not open from this address. A wrong one is refused for ${wait} more seconds; a valid link still opens.</p><//>`,
              429,
            );
          }
          return refused(res, opened.reason);
        }
        await deps.signInLimiter.succeeded(who);
        // A browser signed in already (as this reseller or another) gives that session up.
        const prior = await deps.sessions.find('reseller', readCookie(req, cookie.name));
        if (prior) await deps.sessions.revoke(prior.id);
        await startSession(
          req,
          res,
          opened.link.resellerId,
          { mode: opened.link.mode, keyId: opened.link.keyId },
          cookie.ttlMs,
          true,
        );
        redirect(res, '/dashboard');
      })().catch(next);
    },
  });
  page({
    method: 'get',
    path: '/signed-out',
    auth: 'public',
    csrf: 'none',
    handle: (req, res) => {
      const why =
        req.query.reason === 'inactive'
          ? 'The account is not active any more: you have been signed out.'
          : req.query.reason === 'key-revoked'
            ? 'The API key that opened this session has been revoked: you have been signed out.'
            : 'You are signed out.';
      sendPage(
        res,
        html`<${PlainLayout} title="Signed out">
        <p role="status">${why}</p>
        <p class="muted">${ASK_AGAIN}</p>
      <//>`,
      );
    },
  });

  // The signed-in pages: a reseller session (requireReseller, which also counts the rate limit), CSRF-checked forms.
  const signedIn = { auth: 'reseller', limit: 'rate-limit' } as const;
  router.use(loadSession(deps.sessions, cookie));
  router.use(requireReseller);
  router.use(csrfCheck(deps.publicUrl));

  page({
    ...signedIn,
    method: 'post',
    path: '/sign-out',
    csrf: 'token',
    handle: (req, res, next) => {
      deps.sessions.revoke(req.browserSession!.id).then(() => {
        clearSessionCookie(res, cookie);
        redirect(res, '/dashboard/signed-out');
      }, next);
    },
  });
  // The live/test switch: a new session in the other mode replaces this one (same expiry). Only
  // a back-office link's session switches: a key's acts in the key's mode, never past it.
  page({
    ...signedIn,
    method: 'post',
    path: '/mode',
    csrf: 'token',
    handle: (req, res, next) => {
      void (async () => {
        const session = req.browserSession!;
        const grant = res.locals.grant as SessionGrant;
        const asked: unknown = req.body?.mode;
        if (asked !== 'live' && asked !== 'test')
          return pageError(
            deps.statusOf,
            new Refusal('invalid_request', 'mode must be live or test.'),
            contextOf(req, res),
            next,
          );
        const mode: Mode = asked;
        if (mode === grant.mode) return redirect(res, '/dashboard');
        if (!canSwitchMode(grant))
          return pageError(
            deps.statusOf,
            new Refusal('insufficient_scope', otherModeHint(grant.mode)),
            contextOf(req, res),
            next,
          );
        const left = session.expiresAt.getTime() - Date.now();
        await deps.sessions.revoke(session.id);
        await startSession(req, res, session.subject, { mode, keyId: grant.keyId }, Math.max(left, 60_000));
        redirect(res, '/dashboard?done=mode-switched');
      })().catch(next);
    },
  });

  const register: Register = (method, path, handler) => {
    const scope = pageScope(method, path);
    page({
      ...signedIn,
      method,
      path,
      csrf: method === 'post' ? 'token' : 'none',
      handle: (req: Request, res: Response, next: NextFunction) => {
        const d = contextOf(req, res);
        if (scope && !d.page.can(scope)) {
          return pageError(
            deps.statusOf,
            new Refusal(
              'insufficient_scope',
              `This session was opened with an API key without the scope '${scope}': this ${method === 'get' ? 'page' : 'form'} is not open to it.`,
            ),
            d,
            next,
          );
        }
        handler(d).catch((err: unknown) => pageError(deps.statusOf, err, d, next));
      },
    });
  };
  homePage(register);
  const { platformName } = deps;
  storesPages(register, { platforms: deps.platforms, publicUrl: deps.publicUrl, platformName });
  productsPages(register, { views: deps.views, platformName });
  ordersPages(register, { views: deps.views, sources: deps.sources, platformName });
  webhooksPages(register);
  router.use((req, res) => {
    sendPage(res, html`<${PlainLayout} title="Not found"><p>No such page. <a href="/dashboard">Home</a></p><//>`, 404);
  });
  router.use(dashboardErrorPage(deps.logger, deps.asServiceUnavailable));
  return { router, pages };

  async function startSession(
    req: Request,
    res: Response,
    resellerId: string,
    opened: { mode: Mode; keyId: string | null },
    ttlMs: number,
    signIn = false,
  ): Promise<BrowserSession> {
    // `keyId` ties the session to its key: the key's mode and scopes bound it, its revocation ends it.
    const data = opened.keyId ? { mode: opened.mode, keyId: opened.keyId } : { mode: opened.mode };
    // A sign-in is one of the reseller's security events: recorded with the session, in its transaction.
    const audit =
      signIn && deps.audit
        ? deps.audit.hook<BrowserSession>(
            auditContextOf(
              req,
              opened.keyId ? { type: 'api_key', id: opened.keyId } : { type: 'system', id: 'back-office-login-link' },
            ),
            (s) => ({
              action: 'dashboard.signed_in',
              target: { type: 'reseller', id: resellerId },
              changes: { sessionId: s.id, mode: opened.mode },
            }),
          )
        : undefined;
    const { token, session } = await deps.sessions.create(
      'reseller',
      resellerId,
      { ttlMs, data, userAgent: req.get('user-agent'), ip: clientAddress(req) },
      audit,
    );
    setSessionCookie(res, cookie, token, session.expiresAt);
    return session;
  }

  /** Only a reseller session whose account is still approved goes on; a suspended one ends here. */
  function requireReseller(req: Request, res: Response, next: NextFunction): void {
    const session = req.browserSession;
    if (!session || session.kind !== 'reseller') {
      if (req.method === 'GET') {
        sendPage(
          res,
          html`<${PlainLayout} title="Sign in"><p>Sign in with a login link to see this page.</p><p class="muted">${ASK_AGAIN}</p><//>`,
          401,
        );
        return;
      }
      return next(new Refusal('unauthorized', 'Sign in first: this page needs a dashboard session.'));
    }
    deps.accounts.resellerRow(session.subject).then(async (reseller) => {
      if (reseller.status !== 'approved') {
        await deps.sessions.revokeAll('reseller', reseller.id);
        clearSessionCookie(res, cookie);
        return redirect(res, '/dashboard/signed-out?reason=inactive');
      }
      const grant = await grantOf(session);
      if (!grant) {
        await deps.sessions.revoke(session.id);
        clearSessionCookie(res, cookie);
        return redirect(res, '/dashboard/signed-out?reason=key-revoked');
      }
      res.locals.reseller = reseller;
      res.locals.grant = grant;
      const decision = deps.rateLimiter ? await deps.rateLimiter.consume(`dashboard:${reseller.id}`) : undefined;
      if (decision && !decision.allowed) {
        res.set('Retry-After', String(decision.resetSeconds));
        return sendPage(
          res,
          html`<${PlainLayout} title="Too many requests"><p role="alert">Too many pages at once: at most ${decision.limit} a minute. Try again in ${decision.resetSeconds} seconds.</p><//>`,
          429,
        );
      }
      next();
    }, next);
  }

  /**
   * What the session may do now: its key's mode and scopes (undefined once the key is revoked), or a back-office
   * link's.
   */
  async function grantOf(session: BrowserSession): Promise<SessionGrant | undefined> {
    const keyId = typeof session.data.keyId === 'string' ? session.data.keyId : null;
    const sessionMode: Mode = session.data.mode === 'test' ? 'test' : 'live';
    if (!keyId) return { mode: sessionMode, scopes: null, keyId: null };
    const key = await deps.accounts.apiKeyGrant(keyId);
    if (!key || key.revoked || key.resellerId !== session.subject) return undefined;
    return { mode: key.mode, scopes: key.scopes, keyId };
  }

  function contextOf(req: Request, res: Response): DashContext {
    const session = req.browserSession!;
    const reseller = res.locals.reseller as Awaited<ReturnType<AccountsService['resellerRow']>>;
    const grant = res.locals.grant as SessionGrant;
    const mode = grant.mode;
    const caller = sessionCaller({
      sessionId: session.id,
      resellerId: reseller.id,
      resellerName: reseller.name,
      discountBps: reseller.discount_bps,
      mode,
      scopes: grant.scopes,
    });
    const body = (req.body ?? {}) as Record<string, unknown>;
    return {
      req,
      res,
      session,
      caller,
      page: {
        resellerName: reseller.name,
        mode,
        csrfToken: session.csrfToken,
        switchable: canSwitchMode(grant),
        can: (scope) => grantAllows(grant, scope),
      },
      api: (method, path, input) => deps.api.call(caller, { req, res }, method, path, input),
      form: Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string')),
    };
  }
}

function refused(res: Response, reason: LinkRefusal): void {
  const r = REFUSED[reason];
  sendPage(
    res,
    html`<${PlainLayout} title="Cannot sign in"><p role="alert" class="error">${r.text}</p><p class="muted">${ASK_AGAIN}</p><//>`,
    r.status,
  );
}

/** A page whose API call was refused: the API's own message (a 404 for another reseller's id). */
function pageError(statusOf: StatusOf, err: unknown, d: DashContext, next: NextFunction): void {
  if (!(err instanceof Refusal) || d.res.headersSent) return next(err);
  const status = statusOf(err);
  if (status >= 500) return next(err);
  const title = status === 404 ? 'Not found' : 'Refused';
  sendPage(
    d.res,
    html`<${DashLayout} title=${title} session=${d.page} error=${merchantMessage(err.code, err.message, err.details)}><p><a href="/dashboard">Back to the dashboard</a></p><//>`,
    status,
  );
}
