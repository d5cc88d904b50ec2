import type { NextFunction, Request, Response } from 'express';
import { Refusal } from '../../kernel/refusal.ts';
import type { SampleFiles } from './sample-files.ts';

/**
 * GET /api/reseller/v1/sample-files/{productId}/{format}.pdf: the sample print files, public
 * (no key: a browser opens them), immutable. Mounted under the API's base path before its key
 * check.
 */
export function sampleFilesHandler(samples: SampleFiles) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const bytes = samples.bytesAt(`/api/reseller/v1/sample-files${req.path}`);
    if (!bytes) {
      return next(
        new Refusal(
          'not_found',
          `There is no sample file ${req.path.slice(1)}; GET /products/{id} with a test key lists a product's sample files.`,
        ),
      );
    }
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Length', String(bytes.length));
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('Content-Disposition', `inline; filename="${req.path.slice(1).replace('/', '-')}"`);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };
}
