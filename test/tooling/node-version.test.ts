import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { scaled } from '@print-api/core/testing';

const ROOT = path.resolve(import.meta.dirname, '../..');
const check = createRequire(import.meta.url)('../../scripts/check-node.cjs') as {
  nodeProblem(versions: { node: string }, execPath?: string, doing?: string): string | undefined;
};
const run = promisify(execFile);

/** An old Node.js to run the check under: OLD_NODE_BIN, or the machine's own node when it is older than 22.20. */
const OLD_NODE = [process.env.OLD_NODE_BIN, '/usr/bin/node', '/usr/local/bin/node'].find(
  (p): p is string => !!p && existsSync(p),
);

describe('the Node.js version check (npm install, npm start, npm test and mocha on an old Node.js)', () => {
  it('names the Node.js needed and the one that ran, in one line', () => {
    const problem = check.nodeProblem({ node: '20.20.2' }, '/usr/bin/node', 'npm test');
    expect(problem).to.equal(
      'print-api needs Node.js >=22.20 (it runs TypeScript natively), but npm test ran on Node.js 20.20.2 ' +
        '(/usr/bin/node); put a newer node first on PATH (.nvmrc names the version the project uses)',
    );
    expect(check.nodeProblem({ node: '18.20.8' })).to.match(
      /^print-api needs Node\.js >=22\.20 .* this is Node\.js 18\.20\.8;/,
    );
    expect(check.nodeProblem({ node: '22.19.9' })).to.contain('Node.js 22.19.9');
  });

  it('lets 22.20 and every later Node.js pass', () => {
    for (const node of ['22.20.0', '22.21.1', '23.0.0', '24.11.0', process.versions.node])
      expect(check.nodeProblem({ node }), node).to.equal(undefined);
  });

  it('runs before npm install, npm start and npm test, and in the image before npm ci', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const script of ['preinstall', 'prestart', 'pretest'])
      expect(pkg.scripts[script], script).to.equal('node scripts/check-node.cjs');
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile.indexOf('COPY scripts/check-node.cjs scripts/')).to.be.within(
      0,
      dockerfile.indexOf('RUN npm ci'),
    );
  });

  describe('run by an old Node.js', function () {
    this.timeout(scaled(60_000));
    let old: string | undefined;
    before(async function () {
      if (OLD_NODE) {
        const { stdout } = await run(OLD_NODE, ['-p', 'process.versions.node']);
        const [major = 0, minor = 0] = stdout.trim().split('.').map(Number);
        if (major < 22 || (major === 22 && minor < 20)) old = OLD_NODE;
      }
      // Nothing to run it on: this machine has no Node.js older than 22.20 (OLD_NODE_BIN names one).
      if (!old) this.skip();
    });

    const failsWithOneLine = async (args: string[], doing: string) => {
      const err = await run(old!, args, { cwd: ROOT, env: { ...process.env, npm_lifecycle_event: '' } }).then(
        () => expect.fail(`${args.join(' ')} should fail on ${old}`),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(err.code).to.equal(1);
      expect(err.stdout).to.equal('');
      const lines = err.stderr.trimEnd().split('\n');
      expect(lines, err.stderr).to.have.length(1);
      expect(lines[0]).to.match(new RegExp(`^print-api needs Node\\.js >=22\\.20 .*${doing}Node\\.js 2?\\d\\.`));
    };

    it('the preinstall/prestart/pretest script exits 1 with the one line', async () => {
      await failsWithOneLine(['scripts/check-node.cjs'], 'this is ');
    });

    it('mocha says the same one line instead of a SyntaxError per test file', async () => {
      await failsWithOneLine(
        [path.join(ROOT, 'node_modules/mocha/bin/mocha.js'), 'core/test/config.test.ts'],
        'mocha ran on ',
      );
    });
  });
});
