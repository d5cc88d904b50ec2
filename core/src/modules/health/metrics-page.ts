import express from 'express';
import { constantTimeEqual } from '../../infra/crypto.ts';
import type { Metrics } from '../../infra/metrics.ts';
import { definePage, mountPages, type PageRouter } from '../../web/page.ts';

/** `GET /metrics`: the metrics registry in Prometheus' text format, behind METRICS_TOKEN when one is set. */
export function metricsPage(metrics: Metrics, token: string | undefined): PageRouter {
  const router = express.Router();
  const page = definePage({
    method: 'get',
    path: '/metrics',
    auth: token ? 'token' : 'public',
    csrf: 'none',
    handle: async (req, res) => {
      if (token) {
        const presented = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!presented || !constantTimeEqual(presented, token)) {
          res
            .status(401)
            .json({ error: { code: 'unauthorized', message: 'Send Authorization: Bearer <METRICS_TOKEN>.' } });
          return;
        }
      }
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  });
  mountPages(router, [page]);
  return { router, pages: [page] };
}
