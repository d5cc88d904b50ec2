import { expect } from 'chai';
import type { Router } from 'express';
import { describeEachBackend } from '../helpers/test-service.ts';

/** Every route mounted on the API router, as `METHOD /path/{param}`. */
function mountedRoutes(router: Router): string[] {
  return ((router as any).stack as any[])
    .filter((layer) => layer.route)
    .flatMap((layer) => Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`));
}

describeEachBackend('the OpenAPI description', (get) => {
  it('describes exactly the routes that are mounted', async () => {
    const t = get();
    const doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    const described = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const mounted = mountedRoutes(t.service.app.locals.apiRouter).filter((r) => !/openapi\.json|\/docs/.test(r));
    expect(mounted.sort()).to.deep.equal(described.sort());
    for (const route of described) {
      const [method, path] = route.split(' ');
      const res = await t.api(undefined, method!, path!.replace(/\{\w+\}/g, 'x'));
      expect(res.status, route).not.to.equal(404);
    }
  });

  it('documents the error shape, the bearer scheme and each operation id once', async () => {
    const doc = (await get().api(undefined, 'GET', '/openapi.json')).body;
    expect(doc.components.schemas.Error.properties.error).to.be.an('object');
    expect(doc.components.securitySchemes.bearerAuth.scheme).to.equal('bearer');
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
