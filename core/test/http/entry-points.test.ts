import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ADMIN_BASE, API_BASE } from '../../src/http/app.ts';
import { entryPointsOf, type EntryPoints } from '../../src/http/entry-points.ts';
import { QUEUE_BOARD_ROUTES } from '../../src/modules/console/queue-dashboard.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe("the app's table of entry points", function () {
  this.timeout(scaled(120_000));
  let t: TestService;
  let table: EntryPoints;
  before(async function () {
    t = await startTestService(this, 'pglite');
    table = entryPointsOf(t.service.app);
  });
  after(() => t?.close());

  it('lists every API route, connector route and page once, with its full path', async () => {
    const names = table.entries.map((e) => `${e.method.toUpperCase()} ${e.path}`);
    expect(new Set(names).size, 'each once').to.equal(names.length);
    const api = (await t.api(undefined, 'GET', '/openapi.json')).body;
    const admin = (await t.admin('GET', '/openapi.json')).body;
    const described = (doc: { paths: Record<string, object> }, base: string) =>
      Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${base}${p}`));
    expect(names).to.include.members([...described(api, API_BASE), ...described(admin, ADMIN_BASE)]);
    expect(names).to.include.members([
      'POST /connectors/{platform}/webhooks/{target}',
      'GET /healthz',
      'POST /dashboard/mode',
      'POST /admin/sign-in',
      'GET /favicon.ico',
    ]);
  });

  it('gives each its kind, caller, CSRF defence and limit', () => {
    const find = (method: string, p: string) => table.entries.find((e) => e.method === method && e.path === p);
    expect(find('get', `${API_BASE}/orders`)).to.include({
      kind: 'api',
      auth: 'apiKey',
      csrf: 'none',
      scope: 'orders:read',
      limit: 'rate-limit',
    });
    expect(find('post', `${ADMIN_BASE}/resellers`)).to.include({ kind: 'api', auth: 'admin', csrf: 'token' });
    expect(find('post', '/dashboard/mode')).to.include({
      kind: 'page',
      auth: 'reseller',
      csrf: 'token',
      limit: 'rate-limit',
    });
    expect(find('post', '/admin/sign-in')).to.include({
      kind: 'page',
      auth: 'public',
      csrf: 'origin',
      limit: 'sign-in',
    });
    expect(table.routes('').map((r) => r.path)).to.include('/connectors/{platform}/callback');
  });

  it('lists the sample files, the API reference assets, /metrics and every route of the queue dashboard', () => {
    const names = table.entries.map((e) => `${e.kind} ${e.method.toUpperCase()} ${e.path}`);
    expect(names).to.include.members([
      `page GET ${API_BASE}/sample-files/{productId}/{file}`,
      `page GET ${API_BASE}/docs/assets/{file}`,
      `page GET ${ADMIN_BASE}/docs/assets/{file}`,
      'page GET /metrics',
      `page GET ${ADMIN_BASE}/queues`,
      `mounted PUT ${ADMIN_BASE}/queues/api/queues/{queueName}/{jobId}/retry`,
      `mounted GET ${ADMIN_BASE}/queues/static/{asset}`,
    ]);
    const retry = table.entries.find(
      (e) => e.path === `${ADMIN_BASE}/queues/api/queues/{queueName}/retry/{queueStatus}`,
    );
    expect(retry).to.include({ kind: 'mounted', method: 'put', auth: 'operator', csrf: 'token' });
  });

  it("declares the queue dashboard's routes as the installed bull-board does (appRoutes)", async () => {
    const { appRoutes } = (await import('@bull-board/api/dist/routes.js')) as unknown as {
      appRoutes: { entryPoint: { route: string[] }; api: Array<{ method: string; route: string }> };
    };
    const theirs = [
      ...appRoutes.entryPoint.route.map((route) => `get ${route}`),
      ...appRoutes.api.map((r) => `${r.method} ${r.route}`),
    ]
      .filter((r) => r !== 'get /')
      .map((r) => r.replace(/:(\w+)/g, '{$1}'));
    const ours = QUEUE_BOARD_ROUTES.filter((r) => !r.path.startsWith('/static/')).map((r) => `${r.method} ${r.path}`);
    expect(ours).to.have.members(theirs);
  });

  it('is in the repository as docs/routes.md, up to date (npm run docs:routes)', async () => {
    await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/routes.ts'), '--check'], { cwd: ROOT });
  });
});
