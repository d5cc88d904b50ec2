import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../api-error.ts';

const BODY_LIMIT = '1mb';

/**
 * JSON only: a body must say `Content-Type: application/json`, be at most 1 MB and parse.
 * Bodies on GET/DELETE are ignored.
 */
export function jsonBody() {
  const parse = express.json({ limit: BODY_LIMIT, type: () => true, strict: false });
  return (req: Request, res: Response, next: NextFunction): void => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') {
      next();
      return;
    }
    if (!req.is('application/json')) {
      next(new ApiError(415, 'unsupported_media_type', `Send the request body as JSON with 'Content-Type: application/json'.`));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new ApiError(413, 'payload_too_large', `The request body is larger than ${BODY_LIMIT}.`));
      if (type === 'entity.parse.failed') return next(new ApiError(400, 'invalid_request', 'The request body is not valid JSON.'));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported')
        return next(new ApiError(415, 'unsupported_media_type', 'The request body must be UTF-8 JSON.'));
      if (type === 'request.aborted') return next(new ApiError(400, 'invalid_request', 'The request body was not received completely.'));
      next(err);
    });
  };
}
