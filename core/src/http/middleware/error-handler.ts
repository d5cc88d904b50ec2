import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import { Refusal } from '../../kernel/refusal.ts';
import { ApiError } from '../api-error.ts';
import { httpAnswer } from '../error-catalogue.ts';
import { asServiceUnavailable } from '../service-unavailable.ts';

/**
 * The one place that turns errors into HTTP: refusals as the error catalogue answers them, a dependency outage as 503,
 * anything else as a logged 500.
 */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      logger.error('error after the response started', { requestId: req.requestId, err });
      res.end();
      return;
    }
    const refusal = err instanceof Refusal ? err : requestError(err);
    if (refusal) {
      const { status, headers } = httpAnswer(refusal);
      res.status(status).set(headers).json(refusal.toBody());
      return;
    }
    const unavailable = asServiceUnavailable(err);
    if (unavailable) {
      logger.warn('a dependency is unreachable: answered 503', {
        requestId: req.requestId,
        method: req.method,
        path: loggedPath(req),
        error: err instanceof Error ? err.message : String(err),
      });
      res.status(unavailable.status).set(unavailable.headers).json(unavailable.toBody());
      return;
    }
    logger.error('unhandled error', {
      requestId: req.requestId,
      method: req.method,
      path: loggedPath(req),
      error: err instanceof Error ? err.stack : String(err),
    });
    res.status(500).json({
      error: {
        code: 'internal_error',
        message: `Something went wrong on our side. Quote request id ${req.requestId} if you contact support.`,
      },
    });
  };
}

/**
 * The path as logged: without its query, and without the secrets some paths carry (a login
 * link's token, a credential request's sealed state), which are credentials while they live.
 */
function loggedPath(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '';
  return path
    .replace(/^(\/dashboard\/login\/)[^/]+/, '$1[redacted]')
    .replace(/^(\/connectors\/[^/]+\/credentials\/)[^/]+/, '$1[redacted]');
}

const CODES: Record<number, string> = { 413: 'payload_too_large', 415: 'unsupported_media_type' };

/**
 * What express's own parts raise about a malformed request, in the error shape with its 4xx:
 * the router's URIError for a path parameter that is not valid percent-encoding, body-parser's
 * http-errors (`expose` set: a body too large or not decodable, in the routers that read raw
 * bodies). Nothing else with a `status` (an upstream's error) counts.
 */
function requestError(err: unknown): ApiError | undefined {
  if (!(err instanceof Error)) return undefined;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (err instanceof URIError)
    return new ApiError(400, 'invalid_request', `The path is not valid percent-encoding: ${err.message}.`);
  if (expose !== true) return undefined;
  return new ApiError(status, CODES[status] ?? 'invalid_request', `The request cannot be read: ${err.message}.`);
}

/** Unknown routes: 404 in the error shape. */
export function notFoundHandler() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    next(new ApiError(404, 'route_not_found', `There is no route ${req.method} ${req.path}.`));
  };
}
