import type { NextFunction, Request, Response } from 'express';
import { constantTimeEqual } from '../../infra/crypto.ts';
import type { BrowserSession, SessionStore } from '../../modules/sessions/session-store.ts';
import { ApiError } from '../api-error.ts';
import { readCookie, type SessionCookieOptions } from '../../modules/sessions/session-cookies.ts';
import type { SignInLimiter } from '../../modules/sessions/sign-in-limiter.ts';
import { bearerToken } from './api-key-auth.ts';
import { refusedCredential } from './credential-failures.ts';

/**
 * The back-office API: one bearer token, compared in constant time; or, when `sessions` is
 * given, an operator's browser session (signed in at `/admin`; the router then checks CSRF on
 * state-changing requests). A browser asking for a page without either is sent to sign in.
 */
export function adminAuth(
  token: string,
  sessions?: {
    store: SessionStore;
    cookie: SessionCookieOptions;
    signInPath: string /** Whether a live session still counts (one opened with a token since rotated does not). */;
    accept?: (session: BrowserSession) => boolean;
  },
  /** Wrong tokens, counted per client address: past the limit a wrong one answers 429 (the right one never does). */
  failures?: SignInLimiter,
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const presented = bearerToken(req);
    if (presented || !sessions) {
      if (!presented || !constantTimeEqual(presented, token)) {
        const refusal = new ApiError(
          401,
          'unauthorized',
          'The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN>.',
        );
        if (!presented) return next(refusal);
        refusedCredential(failures, req, refusal, 'admin tokens').then(next, next);
        return;
      }
      next();
      return;
    }
    const cookie = readCookie(req, sessions.cookie.name);
    const found = cookie ? sessions.store.find('operator', cookie) : Promise.resolve(undefined);
    found.then((session) => {
      if (session && (sessions.accept?.(session) ?? true)) {
        req.browserSession = session;
        return next();
      }
      if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html') {
        return res.redirect(303, `${sessions.signInPath}?next=${encodeURIComponent(req.originalUrl)}`);
      }
      next(
        new ApiError(
          401,
          'unauthorized',
          `The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN>, or sign in at ${sessions.signInPath}.`,
        ),
      );
    }, next);
  };
}
