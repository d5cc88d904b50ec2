import express from 'express';
import type { CredentialRequests } from './credential-requests.ts';

/**
 * The platform's side of a key-issuing connect flow (no API key: the sealed state in the
 * path is the authority). `POST /connectors/<platform>/credentials/<state>` receives the
 * credentials (raw body, checked by the connector) and answers 200 only once the store is
 * connected; `GET …/return` sends the merchant back to the reseller's `returnUrl`.
 */
export function connectorCredentialsRouter(deps: { credentialRequests: CredentialRequests }): express.Router {
  const router = express.Router();
  router.post('/:platform/credentials/:state', express.raw({ type: () => true, limit: '64kb' }), async (req, res, next) => {
    try {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const { storeId } = await deps.credentialRequests.receive(String(req.params.platform), String(req.params.state), { headers, rawBody });
      res.status(200).json({ connected: true, storeId });
    } catch (err) {
      next(err);
    }
  });
  router.get('/:platform/credentials/:state/return', (req, res) => {
    const rawQuery = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    const target = deps.credentialRequests.returnTarget(String(req.params.platform), String(req.params.state), rawQuery);
    if (target) return void res.redirect(303, target);
    res.status(200).type('text/plain').send('You can close this window: the store shows in your Print API account (GET /stores) once it is connected.\n');
  });
  return router;
}
