import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../api-error.ts';
import { unstorableBody, unstorableTextIn } from './unstorable-text.ts';

const BODY_LIMIT = '1mb';

/**
 * JSON only: a body must say `Content-Type: application/json`, be at most `limit` (1 MB) and
 * parse, after its `Content-Encoding` (gzip, deflate, br) is undone, and hold only text the
 * database can store. Bodies on GET/DELETE are ignored. Every way a body can be wrong is the
 * client's: a 4xx in the error shape, never a 500.
 */
export function jsonBody(opts: { limit?: string } = {}) {
  const limit = opts.limit ?? BODY_LIMIT;
  const parse = express.json({ limit, type: () => true, strict: false });
  return (req: Request, res: Response, next: NextFunction): void => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') {
      next();
      return;
    }
    if (!req.is('application/json')) {
      next(
        new ApiError(
          415,
          'unsupported_media_type',
          `Send the request body as JSON with 'Content-Type: application/json'.`,
        ),
      );
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(bodyError(err, req, limit));
      const unstorable = unstorableTextIn(req.body);
      next(unstorable ? unstorableBody(unstorable) : undefined);
    });
  };
}

/** What went wrong reading a body, as the client's error. */
function bodyError(err: unknown, req: Request, limit: string): unknown {
  const { type, status } = err as { type?: string; status?: number };
  const encoding = req.headers['content-encoding'];
  switch (type) {
    case 'entity.too.large':
      return new ApiError(413, 'payload_too_large', `The request body is larger than ${limit}.`);
    case 'entity.parse.failed':
      return new ApiError(400, 'invalid_request', 'The request body is not valid JSON.');
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'The request body must be UTF-8 JSON.');
    case 'encoding.unsupported':
      return new ApiError(
        415,
        'unsupported_media_type',
        `The Content-Encoding '${encoding}' is not supported: send the body as it is, or as gzip, deflate or br.`,
      );
    case 'request.aborted':
      return new ApiError(400, 'invalid_request', 'The request body was not received completely.');
  }
  // The rest of what body-parser refuses (a compressed body that does not decompress, a
  // length that does not match) carries a 4xx status: the client's too.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const what =
      encoding && encoding !== 'identity' ? `does not decode as Content-Encoding '${encoding}'` : 'could not be read';
    return new ApiError(400, 'invalid_request', `The request body ${what}.`);
  }
  return err;
}
