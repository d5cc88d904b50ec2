import type { NextFunction, Request, Response } from 'express';
import { constantTimeEqual } from '../../infra/crypto.ts';
import type { SessionStore } from '../../modules/sessions/session-store.ts';
import { ApiError } from '../api-error.ts';
import { readCookie, type SessionCookieOptions } from '../sessions/session-cookies.ts';
import { bearerToken } from './api-key-auth.ts';

/**
 * The back-office API: one bearer token, compared in constant time; or, when `sessions` is
 * given, an operator's browser session (signed in at `/admin`; the router then checks CSRF on
 * state-changing requests). A browser asking for a page without either is sent to sign in.
 */
export function adminAuth(token: string, sessions?: { store: SessionStore; cookie: SessionCookieOptions; signInPath: string }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const presented = bearerToken(req);
    if (presented || !sessions) {
      if (!presented || !constantTimeEqual(presented, token)) {
        next(new ApiError(401, 'unauthorized', 'The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN>.'));
        return;
      }
      next();
      return;
    }
    const cookie = readCookie(req, sessions.cookie.name);
    const found = cookie ? sessions.store.find('operator', cookie) : Promise.resolve(undefined);
    found.then((session) => {
      if (session) {
        req.browserSession = session;
        return next();
      }
      if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html') {
        return res.redirect(303, `${sessions.signInPath}?next=${encodeURIComponent(req.originalUrl)}`);
      }
      next(new ApiError(401, 'unauthorized', `The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN>, or sign in at ${sessions.signInPath}.`));
    }, next);
  };
}
