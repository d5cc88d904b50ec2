import { Refusal } from '../../kernel/refusal.ts';
import { definePage, type PageSpec } from '../../web/page.ts';
import type { SampleFiles } from './sample-files.ts';

/**
 * GET /api/reseller/v1/sample-files/{productId}/{file}: the sample print files, public (no key: a
 * browser opens them), immutable. Mounted under the API's base path before its key check.
 */
export function sampleFilePages(samples: SampleFiles): PageSpec[] {
  return [
    definePage({
      method: 'get',
      path: '/sample-files/{productId}/{file}',
      auth: 'public',
      csrf: 'none',
      handle: (req, res, next) => {
        const { productId, file } = req.params as { productId: string; file: string };
        const bytes = samples.bytesAt(`/api/reseller/v1/sample-files/${productId}/${file}`);
        if (!bytes) {
          return next(
            new Refusal(
              'not_found',
              `There is no sample file ${productId}/${file}; GET /products/{id} with a test key lists a product's sample files.`,
            ),
          );
        }
        res.setHeader('Content-Type', 'application/pdf');
        res.setHeader('Content-Length', String(bytes.length));
        res.setHeader('Cache-Control', 'public, max-age=86400');
        res.setHeader('Content-Disposition', `inline; filename="${productId}-${file}"`);
        res.end(req.method === 'HEAD' ? undefined : bytes);
      },
    }),
  ];
}
