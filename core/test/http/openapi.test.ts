import { expect } from 'chai';
import type { RouteTable } from '../../src/http/route-table.ts';
import type { AnyRoute } from '../../src/http/route.ts';
import { describeEachBackend } from '../helpers/test-service.ts';

/** Every route mounted on the API router, as `METHOD /path/{param}`. */
function mountedRoutes(table: RouteTable<AnyRoute>): string[] {
  return table.routes.map((route) => `${route.method.toUpperCase()} ${route.path}`);
}

describeEachBackend('the OpenAPI description', (get) => {
  it('describes exactly the routes that are mounted', async () => {
    const t = get();
    const doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    const described = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const mounted = mountedRoutes(t.service.app.locals.apiRoutes);
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
