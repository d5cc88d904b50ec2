import type { NextFunction, Request, Response } from 'express';
import type { RateLimiter } from '../../infra/rate-limit.ts';
import type { AccountsService } from '../../modules/accounts/accounts-service.ts';
import { ApiError } from '../api-error.ts';
import type { AuthContext } from '../../kernel/auth-context.ts';
import type { SignInLimiter } from '../../modules/sessions/sign-in-limiter.ts';
import { refusedCredential } from './credential-failures.ts';

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : header;
}

/**
 * Authenticates the API key, then counts the request against the key's per-minute limit. Wrong
 * keys are counted per client address (`failures`): past the limit a wrong one answers 429.
 */
export function apiKeyAuth(deps: {
  accounts: AccountsService;
  rateLimiter: RateLimiter;
  failures?: SignInLimiter | undefined;
}) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const presented = bearerToken(req);
      const auth = await deps.accounts.authenticate(presented).catch(async (refusal: unknown) => {
        throw presented ? await refusedCredential(deps.failures, req, refusal, 'keys') : refusal;
      });
      req.auth = auth;
      const decision = await deps.rateLimiter.consume(auth.keyId);
      res.setHeader('RateLimit-Limit', String(decision.limit));
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) {
        throw new ApiError(
          429,
          'rate_limited',
          `Too many requests: at most ${decision.limit} per minute per API key. Retry after ${decision.resetSeconds} seconds.`,
          undefined,
          { 'Retry-After': String(decision.resetSeconds) },
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
