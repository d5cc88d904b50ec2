import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestService, type TestService } from './helpers/test-service.ts';
import { waitFor, scaled } from './helpers/wait.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = path.join(ROOT, 'README.md');

/** The `sh` blocks of the README's first-order walkthrough, in order, as one script. */
export function walkthroughScript(readme: string): string {
  const start = readme.indexOf('<!-- first-order:start');
  const end = readme.indexOf('<!-- first-order:end -->');
  if (start === -1 || end === -1) throw new Error('README.md has no first-order:start/end markers');
  const blocks = [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (blocks.length < 5) throw new Error(`README.md walkthrough has ${blocks.length} sh blocks`);
  return blocks.join('\n');
}

/** A free loopback port (listened on and closed again), for the walkthrough's receiver. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The README's first order, run as written: its shell blocks, pasted into bash against a started
 * service (the sandbox, a test key, a sample print file the service serves itself), offline: the
 * events come through the CLI's `listen` to the README's own local receiver, which checks
 * each signature. The order must reach DELIVERED and every event arrive signed.
 */
describe('the README first-order walkthrough', function () {
  let t: TestService;
  let dir: string;
  let shell: ChildProcess | undefined;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PRODUCTION_SIMULATOR_STEP_MS: '200' });
    // What `npm start` leaves in the working directory: the back-office token in ./.data/secrets.json;
    // and, as "in the repository" has it, the CLI at core/src/cli.ts.
    dir = mkdtempSync(path.join(tmpdir(), 'print-api-readme-'));
    mkdirSync(path.join(dir, '.data'));
    writeFileSync(path.join(dir, '.data/secrets.json'), JSON.stringify({ adminToken: t.service.adminToken }));
    symlinkSync(path.join(ROOT, 'core'), path.join(dir, 'core'));
  });
  after(async () => {
    // The walkthrough's background processes (listen, the receiver), should it have failed before its kill.
    if (shell?.pid) {
      try {
        process.kill(-shell.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes a sandbox order to DELIVERED with signed events arriving through listen, following the README as written', async function () {
    this.timeout(scaled(180_000));
    const readme = readFileSync(README, 'utf8');
    const script = walkthroughScript(readme);
    // Offline as pasted: the service's origin from PORT, nothing that needs a name resolved.
    expect(script).to.include('BASE=http://127.0.0.1:${PORT:-3000}');
    expect(script).not.to.match(/https:\/\/(?!127\.0\.0\.1|localhost)/);
    expect(script).to.include('node core/src/cli.ts listen');
    const port = new URL(t.baseUrl).port;
    const hookPort = await freePort();
    // Its own process group (execFile does not take `detached`), so that what it left running can be stopped whatever
    // happened.
    shell = spawn('bash', ['-c', `set -eo pipefail\n${script}\necho "RESULT $ORDER $SECRET"`], {
      cwd: dir,
      env: {
        ...process.env,
        PORT: port,
        HOOK_PORT: String(hookPort),
        PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    shell.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    shell.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    // The walkthrough's only waits are its polls for listen, DELIVERED and the last event; this bounds them.
    const timer = setTimeout(() => shell?.kill('SIGKILL'), 150_000);
    const [code, signal] = await once(shell, 'exit').finally(() => clearTimeout(timer));
    if (code !== 0) {
      const logs = ['listen.log', 'receiver.log']
        .map((f) =>
          existsSync(path.join(dir, '.data', f)) ? `--- ${f}\n${readFileSync(path.join(dir, '.data', f), 'utf8')}` : '',
        )
        .join('\n');
      throw new Error(
        `the walkthrough failed: exit ${code} ${signal ?? ''}\n--- stdout\n${stdout}\n--- stderr\n${stderr}\n${logs}`,
      );
    }
    const run = { stdout };
    const out = run.stdout;
    const [, order, secret] = /^RESULT (ord_\S+) (whsec_\S+)$/m.exec(out) ?? [];
    expect(order, out).to.be.a('string');
    // What the README says each step prints.
    expect(out).to.match(/^business-cards$/m);
    expect(out).to.include(
      '{"publicNetCents":2295,"discountCents":229,"netCents":2066,"shippingCents":495,"vatCents":538,"totalCents":3099}',
    );
    expect(readme).to.include(
      '# {"publicNetCents":2295,"discountCents":229,"netCents":2066,"shippingCents":495,"vatCents":538,"totalCents":3099}',
    );
    expect(out).to.include(`Ready! Listening for test events, forwarding to http://127.0.0.1:${hookPort}/hooks.`);
    expect(out).to.match(/^SUBMITTED$/m);
    expect(out).to.match(/^not_charged$/m);
    expect(out).to.include('/api/reseller/v1/sample-files/business-cards/standard.pdf');
    expect(out).to.include('"carrier":"PostNL"');

    const key = /reseller rsl_\S+, key (prk_test_\S+)/.exec(out)![1]!;
    const read = (await t.api(key, 'GET', `/orders/${order}`)).body.data;
    expect(read).to.include({ state: 'SUBMITTED', status: 'DELIVERED', testMode: true, externalOrderId: '1001' });
    expect(read.lines[0].fileUrl).to.equal(`${t.baseUrl}/api/reseller/v1/sample-files/business-cards/standard.pdf`);

    // Every event of the order reached the README's receiver, whose HMAC check with the secret listen signed with
    // passed.
    const listenLog = readFileSync(path.join(dir, '.data/listen.log'), 'utf8');
    expect(listenLog).to.include(`Your webhook signing secret is ${secret} `);
    const wanted = ['order.created', 'order.submitted', 'order.in_production', 'order.shipped', 'order.delivered'];
    for (const type of wanted) {
      expect(out, type).to.match(new RegExp(`^${type.replace('.', '\\.')} signed$`, 'm'));
      expect(listenLog, type).to.match(new RegExp(`--> ${type.replace('.', '\\.')} \\[evt_`));
    }
    expect(out).not.to.contain('NOT SIGNED');
    expect(listenLog.match(/<-- \[200\] POST /g)?.length).to.be.at.least(wanted.length);
    // The walkthrough stops what it started.
    await waitFor(
      'listen and the receiver stopped',
      () => {
        try {
          process.kill(-shell!.pid!, 0);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
    );
  });
});

describe('the repository’s documentation', () => {
  /** Markdown files of the repository (not of its dependencies). */
  function markdownFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      if (e.name === 'node_modules' || e.name.startsWith('.')) return [];
      const full = path.join(dir, e.name);
      return e.isDirectory() ? markdownFiles(full) : e.name.endsWith('.md') ? [full] : [];
    });
  }

  it('is self-contained: every link points to a file in the repository, none outside it', () => {
    const files = markdownFiles(ROOT);
    expect(files.map((f) => path.relative(ROOT, f))).to.include.members([
      'README.md',
      'docs/ARCHITECTURE.md',
      'docs/errors.md',
    ]);
    const problems: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      if (text.includes('../shared/')) problems.push(`${path.relative(ROOT, file)}: mentions ../shared/`);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) {
          problems.push(`${path.relative(ROOT, file)}: links outside the repository: ${target}`);
          continue;
        }
        if (target!.startsWith('#')) continue;
        const resolved = path.resolve(path.dirname(file), target!.split('#')[0]!);
        if (!resolved.startsWith(ROOT) || !existsSync(resolved))
          problems.push(`${path.relative(ROOT, file)}: broken link ${target}`);
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
