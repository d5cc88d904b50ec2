import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import { ApiError } from '../api-error.ts';
import { isDependencyUnavailable, serviceUnavailable } from '../dependency-unavailable.ts';

/**
 * The one place that turns errors into HTTP: ApiErrors as they are, an unreachable dependency
 * (the database restarting) as a 503 to retry, anything else as a logged 500.
 */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      logger.error('error after the response started', { requestId: req.requestId, err });
      res.end();
      return;
    }
    if (isDependencyUnavailable(err)) {
      logger.warn('dependency unavailable', { requestId: req.requestId, method: req.method, path: req.path, error: (err as Error).message });
      err = serviceUnavailable();
    }
    if (err instanceof ApiError) {
      res.status(err.status).set(err.headers).json(err.toBody());
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
