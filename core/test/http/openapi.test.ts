import { expect } from 'chai';
import { API_BASE } from '../../src/http/app.ts';
import { entryPointsOf } from '../../src/http/entry-points.ts';
import { describeEachBackend } from '../helpers/test-service.ts';

/** Every route mounted on the API router (from the app's table of entry points), as `METHOD /path/{param}`. */
function mountedRoutes(app: Parameters<typeof entryPointsOf>[0]): string[] {
  return entryPointsOf(app)
    .routes(API_BASE)
    .map((route) => `${route.method.toUpperCase()} ${route.path}`);
}

describeEachBackend('the OpenAPI description', (get) => {
  it('describes exactly the routes that are mounted', async () => {
    const t = get();
    const doc = (await t.api(undefined, 'GET', '/openapi.json')).body;
    const described = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const mounted = mountedRoutes(t.service.app);
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
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
      Object.values(ops).map((o) => o.operationId),
    );
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
