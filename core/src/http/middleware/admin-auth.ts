import type { NextFunction, Request, Response } from 'express';
import { constantTimeEqual } from '../../infra/crypto.ts';
import { ApiError } from '../api-error.ts';
import { bearerToken } from './api-key-auth.ts';

/** The back-office API: one bearer token, compared in constant time. */
export function adminAuth(token: string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const presented = bearerToken(req);
    if (!presented || !constantTimeEqual(presented, token)) {
      next(new ApiError(401, 'unauthorized', 'The back-office token is missing or wrong: send Authorization: Bearer <ADMIN_TOKEN>.'));
      return;
    }
    next();
  };
}
