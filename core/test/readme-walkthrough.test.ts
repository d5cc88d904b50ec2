import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startHttpsServer, type TestHttpsServer } from './helpers/https-server.ts';
import { startTestService, type TestService } from './helpers/test-service.ts';
import { waitFor } from './helpers/wait.ts';

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

/** The signature check of the README, on the raw bytes. */
function signedWith(secret: string, rawBody: Buffer, headers: Record<string, string | string[] | undefined>): boolean {
  const timestamp = String(headers['x-service-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  return String(headers['x-service-signature'])
    .split(',')
    .some((v) => {
      const given = Buffer.from(v.trim().replace(/^v1=/, ''), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * The README's first order, run as written: its shell blocks, pasted into bash against a started
 * service (the sandbox, a test key, a sample print file the service serves itself), with a real
 * local HTTPS receiver standing in for the reader's public webhook URL (the tests' address-guard
 * exemption for localhost). The order must reach DELIVERED and every event arrive signed.
 */
describe('the README first-order walkthrough', function () {
  let t: TestService;
  let receiver: TestHttpsServer;
  let dir: string;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PRODUCTION_SIMULATOR_STEP_MS: '200' });
    receiver = await startHttpsServer();
    receiver.route('/hooks', (_req, res) => void res.end('ok'));
    // What `npm start` leaves in the working directory: the back-office token in ./.data/secrets.json.
    dir = mkdtempSync(path.join(tmpdir(), 'print-api-readme-'));
    mkdirSync(path.join(dir, '.data'));
    writeFileSync(path.join(dir, '.data/secrets.json'), JSON.stringify({ adminToken: t.service.adminToken }));
  });
  after(async () => {
    await receiver?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes a sandbox order to DELIVERED with signed events arriving, following the README as written', async function () {
    this.timeout(180_000);
    const readme = readFileSync(README, 'utf8');
    const script = walkthroughScript(readme)
      .replaceAll('http://127.0.0.1:3000', t.baseUrl)
      .replaceAll('https://hooks.acme-prints.example/print-api', `${receiver.url}/hooks`);
    expect(script).to.include(`${receiver.url}/hooks`);
    const run = await promisify(execFile)('bash', ['-c', `set -eo pipefail\n${script}\necho "RESULT $ORDER $HOOK_ID $SECRET"`], {
      cwd: dir,
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      // The walkthrough's only wait is its poll for DELIVERED; this bounds it.
      timeout: 150_000,
      maxBuffer: 8 * 1024 * 1024,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`the walkthrough failed: ${err.message}\n--- stdout\n${err.stdout}\n--- stderr\n${err.stderr}`);
    });
    const out = run.stdout;
    const [, order, hookId, secret] = /^RESULT (ord_\S+) (whe_\S+) (whsec_\S+)$/m.exec(out) ?? [];
    expect(order, out).to.be.a('string');
    // What the README says each step prints.
    expect(out).to.match(/^business-cards$/m);
    expect(out).to.include('{"publicNetCents":2295,"discountCents":229,"netCents":2066,"shippingCents":495,"vatCents":538,"totalCents":3099}');
    expect(readme).to.include('# {"publicNetCents":2295,"discountCents":229,"netCents":2066,"shippingCents":495,"vatCents":538,"totalCents":3099}');
    expect(out).to.match(/^SUBMITTED$/m);
    expect(out).to.include('/api/reseller/v1/sample-files/business-cards/standard.pdf');
    expect(out).to.include('"carrier":"PostNL"');

    const key = /reseller rsl_\S+, key (prk_test_\S+)/.exec(out)![1]!;
    const read = (await t.api(key, 'GET', `/orders/${order}`)).body.data;
    expect(read).to.include({ state: 'SUBMITTED', status: 'DELIVERED', testMode: true, externalOrderId: '1001' });
    expect(read.lines[0].fileUrl).to.equal(`${t.baseUrl}/api/reseller/v1/sample-files/business-cards/standard.pdf`);

    // Every event of the order reached the local receiver, signed with the endpoint's secret.
    const wanted = ['order.created', 'order.submitted', 'order.in_production', 'order.shipped', 'order.delivered'];
    const received = await waitFor('every event of the order at the receiver', () => {
      const hooks = receiver.requests.filter((r) => r.path === '/hooks');
      const types = new Set(hooks.map((r) => String(r.headers['x-service-event'])));
      return wanted.every((w) => types.has(w)) ? hooks : undefined;
    }, 30_000);
    for (const request of received!) {
      expect(signedWith(secret!, request.body, request.headers), `signature of ${String(request.headers['x-service-event'])}`).to.equal(true);
      const event = JSON.parse(request.body.toString('utf8'));
      expect(event.type).to.equal(request.headers['x-service-event']);
      expect(event.testMode).to.equal(true);
      expect(event.data.order.id).to.equal(order);
    }
    await waitFor('the deliveries logged as delivered', async () => {
      const deliveries = (await t.api(key, 'GET', `/webhooks/${hookId}/deliveries`)).body.data as Array<{ eventType: string; status: string }>;
      return wanted.every((w) => deliveries.some((d) => d.eventType === w && d.status === 'delivered'));
    }, 30_000);
    expect(out).to.match(/^order\.created (delivered|pending)$/m);
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
    expect(files.map((f) => path.relative(ROOT, f))).to.include.members(['README.md', 'docs/ARCHITECTURE.md', 'docs/errors.md']);
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
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) problems.push(`${path.relative(ROOT, file)}: broken link ${target}`);
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
