import type { NextFunction, Request, Response } from 'express';
import { randomToken } from '../../infra/ids.ts';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
  }
}

/** Every request gets an id, returned in `Request-Id` and written on its log lines. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.requestId = `req_${randomToken(12)}`;
    res.setHeader('Request-Id', req.requestId);
    next();
  };
}
