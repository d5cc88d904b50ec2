import type { NextFunction, Request, Response } from 'express';
import { constantTimeEqual } from '../../infra/crypto.ts';
import type { OperatorTokens } from '../../modules/operators/operator-tokens.ts';
import type { BrowserSession, SessionStore } from '../../modules/sessions/session-store.ts';
import { ApiError } from '../api-error.ts';
import type { Operator } from '../../modules/operators/operator-roles.ts';
import { readCookie, type SessionCookieOptions } from '../../modules/sessions/session-cookies.ts';
import type { SignInLimiter } from '../../modules/sessions/sign-in-limiter.ts';
import { bearerToken } from './api-key-auth.ts';
import { refusedCredential } from './credential-failures.ts';

const ADMIN_TOKEN_OPERATOR: Operator = Object.freeze({
  role: 'admin',
  actor: Object.freeze({ type: 'admin_token', id: 'admin' }),
}) as Operator;

/**
 * The back-office API: a bearer credential (the admin token, compared in constant time, with the role admin; or an
 * operator token `opt_…` with its role), or, when `sessions` is given, an operator's browser session (signed in at
 * `/admin`; the router then checks CSRF on state-changing requests). Sets `req.operator`; the routes check its role
 * (operator-roles.ts). A browser asking for a page without a credential is sent to sign in.
 */
export function adminAuth(opts: {
  adminToken: string;
  tokens?: OperatorTokens | undefined;
  sessions?:
    | {
        store: SessionStore;
        cookie: SessionCookieOptions;
        signInPath: string;
        /** The operator a live session acts as, or undefined when it no longer counts. */
        identify: (session: BrowserSession) => Operator | undefined;
      }
    | undefined;
  /** Wrong tokens, counted per client address: past the limit a wrong one answers 429 (the right one never does). */
  failures?: SignInLimiter | undefined;
}) {
  const { sessions, failures } = opts;
  return (req: Request, res: Response, next: NextFunction): void => {
    const presented = bearerToken(req);
    if (presented || !sessions) {
      const refuse = (message: string) => {
        const refusal = new ApiError(401, 'unauthorized', message);
        if (!presented) return next(refusal);
        refusedCredential(failures, req, refusal, 'admin tokens').then(next, next);
      };
      const wrong =
        'The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN or operator token>.';
      if (!presented) return refuse(wrong);
      if (constantTimeEqual(presented, opts.adminToken)) {
        req.operator = ADMIN_TOKEN_OPERATOR;
        return next();
      }
      if (!opts.tokens || !presented.startsWith('opt_')) return refuse(wrong);
      opts.tokens.authenticate(presented).then((found) => {
        if (found.ok) {
          req.operator = { role: found.role, actor: found.actor };
          return next();
        }
        refuse(
          found.reason === 'unknown'
            ? wrong
            : `This operator token has been ${found.reason === 'revoked' ? 'revoked' : 'expired'}: ask an admin for a new one.`,
        );
      }, next);
      return;
    }
    const cookie = readCookie(req, sessions.cookie.name);
    const found = cookie ? sessions.store.find('operator', cookie) : Promise.resolve(undefined);
    found.then((session) => {
      const operator = session && sessions.identify(session);
      if (session && operator) {
        req.browserSession = session;
        req.operator = operator;
        return next();
      }
      if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html') {
        return res.redirect(303, `${sessions.signInPath}?next=${encodeURIComponent(req.originalUrl)}`);
      }
      next(
        new ApiError(
          401,
          'unauthorized',
          `The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN or operator token>, or sign in at ${sessions.signInPath}.`,
        ),
      );
    }, next);
  };
}
