import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import { ApiError } from '../api-error.ts';
import { asServiceUnavailable } from '../service-unavailable.ts';

/** The one place that turns errors into HTTP: ApiErrors as they are, a dependency outage as 503, anything else as a logged 500. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      logger.error('error after the response started', { requestId: req.requestId, err });
      res.end();
      return;
    }
    if (err instanceof ApiError) {
      res.status(err.status).set(err.headers).json(err.toBody());
      return;
    }
    const unavailable = asServiceUnavailable(err);
    if (unavailable) {
      logger.warn('a dependency is unreachable: answered 503', { requestId: req.requestId, method: req.method, path: req.path, error: err instanceof Error ? err.message : String(err) });
      res.status(unavailable.status).set(unavailable.headers).json(unavailable.toBody());
      return;
    }
    logger.error('unhandled error', { requestId: req.requestId, method: req.method, path: req.path, error: err instanceof Error ? err.stack : String(err) });
    res.status(500).json({
      error: { code: 'internal_error', message: `Something went wrong on our side. Quote request id ${req.requestId} if you contact support.` },
    });
  };
}

/** Unknown routes: 404 in the error shape. */
export function notFoundHandler() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    next(new ApiError(404, 'route_not_found', `There is no route ${req.method} ${req.path}.`));
  };
}
