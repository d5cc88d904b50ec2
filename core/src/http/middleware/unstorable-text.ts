import type { NextFunction, Request, Response } from 'express';
import { ApiError, type ErrorDetail } from '../api-error.ts';
import { EXPLAIN, MAX_BODY_DEPTH, unstorableBody, unstorableTextIn } from '../../web/unstorable-text.ts';

export { MAX_BODY_DEPTH, unstorableBody, unstorableTextIn };

/**
 * A NUL in the URL, in a path segment or a query parameter (name or value), is a 400 before any
 * router decodes it: for every route, the connector webhooks (raw bodies) included.
 */
export function rejectUnstorableUrl() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const url = req.url;
    if (!url.includes('%00')) return next();
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    let detail: ErrorDetail = { field: 'query', code: 'nul_character', message: EXPLAIN.nul_character };
    let message = `The query string ${EXPLAIN.nul_character} (%00).`;
    if (path.includes('%00')) {
      detail = { ...detail, field: 'path' };
      message = `The path segment '${path.split('/').find((s) => s.includes('%00'))}' ${EXPLAIN.nul_character} (%00).`;
    } else {
      for (const [name, value] of new URLSearchParams(url.slice(queryAt + 1))) {
        if (name.includes('\u0000') || value.includes('\u0000')) {
          detail = { ...detail, field: name };
          message = `The query parameter '${name}' ${EXPLAIN.nul_character} (%00).`;
          break;
        }
      }
    }
    next(new ApiError(400, 'invalid_request', message, [detail]));
  };
}
