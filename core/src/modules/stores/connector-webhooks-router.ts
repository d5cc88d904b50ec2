import express from 'express';
import type { IngestionService } from './ingestion-service.ts';

/**
 * `POST /connectors/<platform>/webhooks/...`: the raw body is kept byte for byte (signatures
 * are computed over it), so this router is mounted before any JSON parsing.
 */
export function connectorWebhooksRouter(deps: { ingestion: IngestionService }): express.Router {
  const router = express.Router();
  router.post(
    '/:platform/webhooks{/*rest}',
    express.raw({ type: () => true, limit: '5mb' }),
    async (req, res, next) => {
      try {
        const rest = (req.params as { rest?: string[] }).rest ?? [];
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
        const result = await deps.ingestion.receiveWebhook(String(req.params.platform), {
          headers,
          rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
          path: rest.join('/'),
          query: Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined])),
        });
        res.status(result.status).json(result.body);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
