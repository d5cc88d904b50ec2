import { unstorableBody, unstorableTextIn } from '../../web/unstorable-text.ts';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { constantTimeEqual } from '../../infra/crypto.ts';
import type { BrowserSession, SessionStore } from './session-store.ts';
import { Refusal } from '../../kernel/refusal.ts';
import { CSRF_FIELD } from '../../web/html.ts';

export { CSRF_FIELD };
import { readCookie, type SessionCookieOptions } from './session-cookies.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The browser session of the kind the router loads (operator or reseller), when there is one. */
    browserSession?: BrowserSession;
  }
}

/**
 * Loads the session of `cookie.kind` from its cookie into `req.browserSession` (left unset when
 * there is none, or it expired or was revoked). Requiring one is `requireSession`'s job.
 */
export function loadSession(store: SessionStore, cookie: SessionCookieOptions): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const token = readCookie(req, cookie.name);
    if (!token) return next();
    store.find(cookie.kind, token).then((session) => {
      if (session) req.browserSession = session;
      next();
    }, next);
  };
}

/**
 * Lets only requests with a session of `kind` through. Without one: `onMissing` (a page
 * redirects to its sign-in), or a 401 in the error shape.
 */
export function requireSession(
  kind: BrowserSession['kind'],
  onMissing?: (req: Request, res: Response) => void,
): RequestHandler {
  return (req, res, next) => {
    if (req.browserSession?.kind === kind) return next();
    if (onMissing) return onMissing(req, res);
    next(new Refusal('unauthorized', 'Sign in first: this page needs a session.'));
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The header scripts of the pages send the session's CSRF token in; forms send the field `_csrf`. */
export const CSRF_HEADER = 'x-csrf-token';
/** The header axios (bull-board's client) sends the `XSRF-TOKEN` cookie back in. */
export const XSRF_HEADER = 'x-xsrf-token';

/**
 * Refuses a state-changing request (anything but GET, HEAD, OPTIONS) of a session unless it
 * carries the session's CSRF token (form field `_csrf`, header `X-CSRF-Token` or `X-XSRF-Token`) and, when the
 * browser says where it comes from (`Origin`, or `Sec-Fetch-Site`), comes from this site: the
 * deployment's `origin` (PUBLIC_URL) or the host the request was sent to.
 * Requests without a browser session (a Bearer script) are not its business. Put it after the
 * form body parser (`formBody`) and `loadSession`.
 */
export function csrfCheck(origin: string): RequestHandler {
  return (req, _res, next) => {
    const session = req.browserSession;
    if (!session || SAFE_METHODS.has(req.method)) return next();
    try {
      refuseCrossSite(req, origin, 'This request comes from another site: it is refused.');
    } catch (err) {
      return next(err);
    }
    const body = req.body as Record<string, unknown> | undefined;
    const presented =
      req.get(CSRF_HEADER) ??
      req.get(XSRF_HEADER) ??
      (body && typeof body[CSRF_FIELD] === 'string' ? (body[CSRF_FIELD] as string) : undefined);
    if (!presented || !constantTimeEqual(presented, session.csrfToken)) {
      return next(
        new Refusal('csrf_failed', 'The form is missing its CSRF token or it is stale: reload the page and try again.'),
      );
    }
    next();
  };
}

/**
 * Throws 403 `csrf_failed` when the browser says the request was started by another site:
 * `Sec-Fetch-Site` other than same-origin (or none: typed in, a bookmark), or an `Origin` that
 * is neither the deployment's (`origin`, PUBLIC_URL) nor the host the request was sent to
 * (`Origin: null`, from a sandboxed frame or a privacy redirect, is foreign too). A request
 * that says neither comes from no browser (a script, curl), which cannot be a login CSRF.
 * Sign-ins (no session, so no CSRF token yet) rely on it alone.
 */
export function refuseCrossSite(req: Request, origin: string, message: string): void {
  const site = req.headers['sec-fetch-site'];
  const from = req.headers.origin;
  if (
    (typeof site === 'string' && site !== 'same-origin' && site !== 'none') ||
    (typeof from === 'string' && !sameSite(from, new URL(origin).origin, req.headers.host))
  ) {
    throw new Refusal('csrf_failed', message);
  }
}

function sameSite(from: string, expected: string, host: string | undefined): boolean {
  if (from === expected) return true;
  try {
    return host !== undefined && new URL(from).host === host;
  } catch {
    return false;
  }
}

/** Parses HTML form posts (application/x-www-form-urlencoded, small), leaving other bodies alone. */
export function formBody(): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 100 });
  // The API's guard, for forms too: text that cannot be stored (a NUL character) is a 400 `nul_character`, not a 500.
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const detail = unstorableTextIn(req.body);
      next(detail ? unstorableBody(detail) : undefined);
    });
}
