import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COMMANDS } from '../src/cli/commands.ts';
import { cliProcess, runCliHere } from './helpers/cli.ts';
import { startTestService, type TestService } from './helpers/test-service.ts';
import { scaled } from './helpers/wait.ts';

describe('the back-office CLI [pglite]', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  async function cli(...args: string[]): Promise<any> {
    const r = await runCliHere([...args, '--json'], { PUBLIC_URL: t.baseUrl, ADMIN_TOKEN: t.service.adminToken });
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout);
  }

  it('creates a key with every scope without --scopes, with none for --scopes "", with those listed otherwise', async () => {
    const { id } = await t.reseller();
    expect((await cli('create-key', id, '--mode', 'live')).data.scopes).to.equal(null);
    const none = await cli('create-key', id, '--mode', 'live', '--scopes', '');
    expect(none.data.scopes).to.deep.equal([]);
    expect((await t.api(none.data.key, 'GET', '/me')).status).to.equal(200);
    expect((await t.api(none.data.key, 'GET', '/wallet')).status).to.equal(403);
    expect(
      (await cli('create-key', id, '--mode', 'test', '--scopes', 'wallet:read, orders:read')).data.scopes,
    ).to.deep.equal(['orders:read', 'wallet:read']);
  });
});

describe('the back-office CLI: help, finding the service, lists and lookups [pglite]', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  /** Runs a CLI command here (the binary has a test of its own); never throws: the exit code, stdout and stderr. */
  const run = (
    args: string[],
    env: Record<string, string> = { PUBLIC_URL: t.baseUrl, ADMIN_TOKEN: t.service.adminToken },
  ) => runCliHere(args, env);
  const json = async (...args: string[]) => {
    const r = await run([...args, '--json']);
    expect(r.code, `${args.join(' ')}: ${r.stderr}${r.stdout}`).to.equal(0);
    return JSON.parse(r.stdout);
  };

  it('has --help for every command, and lists every command in its usage', async () => {
    const overview = await run(['--help']);
    expect(overview.code).to.equal(0);
    const names = [...COMMANDS.map((c) => c.name), 'listen'];
    for (const name of names) expect(overview.stdout).to.match(new RegExp(`^  ${name} `, 'm'));
    for (const name of names) {
      const help = await run([name, '--help'], {});
      expect(help.code, name).to.equal(0);
      expect(help.stdout, name).to.match(new RegExp(`^usage: npm run admin -- ${name} `));
      expect(help.stdout, name).to.contain('--url URL');
    }
    const missing = await run(['orders']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.contain('orders: missing RESELLER_ID').and.contain('usage: npm run admin -- orders');
  });

  it('says which URL it tried, and where the address came from, when the service is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const viaHostPort = await run(['resellers'], {
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_TOKEN: t.service.adminToken,
    });
    expect(viaHostPort.code).to.equal(1);
    expect(viaHostPort.stderr).to.contain(
      `Cannot reach the service at http://127.0.0.1:${port}/admin/v1/resellers (ECONNREFUSED`,
    );
    expect(viaHostPort.stderr).to.contain('The address came from HOST and PORT');
    const viaFlag = await run(['reseller', 'rsl_1', '--url', `http://127.0.0.1:${port}`], {
      ADMIN_TOKEN: t.service.adminToken,
    });
    expect(viaFlag.stderr)
      .to.contain(`Cannot reach the service at http://127.0.0.1:${port}/admin/v1/resellers/rsl_1`)
      .and.contain('came from --url');
  });

  it('finds the token `npm start` generated into DATA_DIR, and says so when there is none', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-cli-'));
    try {
      const port = new URL(t.baseUrl).port;
      const none = await run(['resellers'], { HOST: '127.0.0.1', PORT: port, DATA_DIR: dataDir });
      expect(none.code).to.equal(1);
      expect(none.stderr).to.contain('No back-office token').and.contain(path.join(dataDir, 'secrets.json'));
      writeFileSync(path.join(dataDir, 'secrets.json'), JSON.stringify({ adminToken: t.service.adminToken }));
      const found = await run(['resellers', '--limit', '1', '--json'], {
        HOST: '127.0.0.1',
        PORT: port,
        DATA_DIR: dataDir,
      });
      expect(found.code, found.stderr).to.equal(0);
      expect(JSON.parse(found.stdout).data).to.be.an('array');
      const refused = await run(['resellers'], {
        PUBLIC_URL: t.baseUrl,
        ADMIN_TOKEN: 'adm_wrong_token_000000000000000',
      });
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.contain('answered 401: the back-office token was refused');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('lists resellers by search, page by page', async () => {
    const tag = `cli${Date.now().toString(36)}`;
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push(
        (
          await t.admin('POST', '/resellers', {
            name: `Shop ${tag} ${n}`,
            email: `${tag}${n}@shop.example`,
            phone: '+31 20 123 4567',
          })
        ).body.data.id,
      );
    const first = await json('resellers', '--search', tag.toUpperCase(), '--limit', '2');
    expect(first.data.map((r: { id: string }) => r.id)).to.deep.equal([ids[2], ids[1]]);
    const second = await json('resellers', '--search', tag, '--limit', '2', '--cursor', first.nextCursor);
    expect(second.data.map((r: { id: string }) => r.id)).to.deep.equal([ids[0]]);
    expect(second.nextCursor).to.equal(null);
    expect((await json('resellers', '--search', ids[1]!)).data.map((r: { id: string }) => r.id)).to.deep.equal([
      ids[1],
    ]);
    await t.admin('POST', `/resellers/${ids[0]}/approve`);
    expect(
      (await json('resellers', '--search', tag, '--status', 'approved')).data.map((r: { id: string }) => r.id),
    ).to.deep.equal([ids[0]]);
  });

  it("looks up a reseller's orders by state and external id, any order by id, the wallets, keys, webhooks and deliveries, stores and ingests", async () => {
    const r = await t.reseller({ mode: 'test' });
    const product = await t.api(r.key, 'GET', '/products/business-cards');
    const fileUrl = product.body.data.sampleFiles[0].url as string;
    const body = (externalOrderId: string, withFile: boolean) => ({
      externalOrderId,
      lines: [{ productId: 'business-cards', quantity: 250, ...(withFile ? { fileUrl } : {}) }],
      recipient: {
        name: 'Jan de Vries',
        address1: 'Keizersgracht 1',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        country: 'NL',
      },
    });
    const submitted = await t.api(r.key, 'POST', '/orders', body('shop-1001', true), {
      'idempotency-key': randomUUID(),
    });
    const waiting = await t.api(r.key, 'POST', '/orders', body('shop-1002', false), {
      'idempotency-key': randomUUID(),
    });
    expect([submitted.status, waiting.status]).to.deep.equal([201, 201]);

    const byExternal = await json('orders', r.id, '--mode', 'test', '--external-id', 'shop-1001');
    expect(byExternal.data.map((o: { id: string }) => o.id)).to.deep.equal([submitted.body.data.id]);
    const byState = await json('orders', r.id, '--mode', 'test', '--state', 'AWAITING_FILE');
    expect(byState.data.map((o: { id: string }) => o.id)).to.deep.equal([waiting.body.data.id]);
    expect((await json('orders', r.id)).data).to.deep.equal([]); // live by default: none
    const one = await json('order', waiting.body.data.id);
    expect(one.data).to.include({ id: waiting.body.data.id, resellerId: r.id, mode: 'test', state: 'AWAITING_FILE' });
    const unknown = await run(['order', 'ord_00000000000000000000000000', '--json']);
    expect(unknown.code).to.equal(1);
    expect(JSON.parse(unknown.stdout).error.code).to.equal('not_found');

    const topUp = await run(['top-up', r.id, '--amount', '2500', '--mode', 'test', '--json']);
    expect(topUp.code).to.equal(0);
    expect(JSON.parse(topUp.stdout).data).to.include({ mode: 'test', amountCents: 2500, balanceAfterCents: 2500 });
    expect(topUp.stderr).to.contain('Credited the test wallet');
    const liveTopUp = await run(['top-up', r.id, '--amount', '700']);
    expect(liveTopUp.stderr).to.contain('Credited the live wallet');
    expect((await json('wallet', r.id, '--mode', 'test')).data).to.include({ mode: 'test', balanceCents: 2500 });
    expect((await json('wallet', r.id)).data).to.include({ mode: 'live', balanceCents: 700 });
    expect((await json('keys', r.id)).data.map((k: { id: string }) => k.id)).to.deep.equal([r.keyId]);

    const endpoint = await t.api(r.key, 'POST', '/webhooks', { url: 'https://localhost:9/hooks', events: ['*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
    expect((await json('webhooks', r.id, '--mode', 'test')).data.map((e: { id: string }) => e.id)).to.deep.equal([
      endpoint.body.data.id,
    ]);
    expect((await json('webhooks', r.id)).data).to.deep.equal([]);
    const deliveries = await json('deliveries', r.id, '--endpoint', endpoint.body.data.id, '--mode', 'test');
    expect(deliveries.data).to.be.an('array');
    const wrongMode = await run(['deliveries', r.id, '--endpoint', endpoint.body.data.id, '--json']);
    expect(wrongMode.code).to.equal(1);
    expect(JSON.parse(wrongMode.stdout).error.code).to.equal('not_found');

    expect((await json('stores', r.id, '--mode', 'test')).data).to.deep.equal([]);
    const noStore = await run(['ingests', r.id, '--store', 'sto_unknown', '--json']);
    expect(noStore.code).to.equal(1);
    expect(JSON.parse(noStore.stdout).error.code).to.equal('not_found');
  });
  it('says the URL is wrong, not the token, when --url names a path of the service', async () => {
    const wrong = await run(['resellers', '--url', `${t.baseUrl}/api/reseller/v1`], {
      ADMIN_TOKEN: t.service.adminToken,
    });
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.contain(`No back-office API at ${t.baseUrl}/api/reseller/v1/admin/v1`);
    expect(wrong.stderr).to.contain(`the base URL is the service's origin: ${t.baseUrl}, without /api/reseller/v1`);
    expect(wrong.stderr).not.to.contain('token was refused');
  });

  it('prints the mode a list shows, live by default with a hint at --mode test; lists as a table unless --json', async () => {
    const r = await t.reseller({ mode: 'test' });
    const live = await run(['orders', r.id]);
    expect(live.code, live.stderr).to.equal(0);
    expect(live.stderr).to.contain('Live orders (the default; add --mode test');
    expect(live.stdout.trim()).to.equal('(none)');
    const product = await t.api(r.key, 'GET', '/products/business-cards');
    const placed = await t.api(
      r.key,
      'POST',
      '/orders',
      {
        externalOrderId: 'table-1',
        lines: [{ productId: 'business-cards', quantity: 250, fileUrl: product.body.data.sampleFiles[0].url }],
        recipient: {
          name: 'Jan de Vries',
          address1: 'Keizersgracht 1',
          postalCode: '1015 CJ',
          city: 'Amsterdam',
          country: 'NL',
        },
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(placed.status).to.equal(201);
    const sandbox = await run(['orders', r.id, '--mode', 'test']);
    expect(sandbox.stderr).to.contain('Sandbox (test) orders.');
    const [header, rule, row] = sandbox.stdout.split('\n');
    expect(header).to.match(/^id\s+state\s+status\s/);
    expect(rule).to.match(/^-+\s+-+/);
    expect(row).to.contain(placed.body.data.id).and.contain('SUBMITTED').and.contain('table-1');
    const one = await run(['reseller', r.id]);
    expect(one.stdout).to.match(new RegExp(`^id\\s+${r.id}$`, 'm'));
    const raw = await run(['orders', r.id, '--mode', 'test', '--json']);
    expect(JSON.parse(raw.stdout).data[0].id).to.equal(placed.body.data.id);
  });

  it('shows a refused request in the words the API uses, each problem on a line of its own', async () => {
    const refused = await run([
      'create-reseller',
      '--name',
      'Acme',
      '--email',
      'not-an-address',
      '--phone',
      'call me',
      '--discount',
      '150',
    ]);
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.equal('');
    expect(refused.stderr).to.match(
      /^error \(invalid_request\): The request body is invalid: email must be an e-mail address \(and 2 more problems, in details\)\n/,
    );
    expect(refused.stderr)
      .to.contain('\n  - phone must be a phone number such as +31 20 123 4567\n')
      .and.contain('\n  - discountPercent must be at most 100');
  });

  it("answers an unknown or incomplete option with the command's usage, not the parser's message", async () => {
    const unknown = await run(['orders', 'rsl_1', '--bogus']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/^orders: unknown option --bogus\n\nusage: npm run admin -- orders /);
    expect(unknown.stderr).not.to.contain('positional');
    const noValue = await run(['orders', 'rsl_1', '--mode']);
    expect(noValue.code).to.equal(2);
    expect(noValue.stderr).to.match(/^orders: --mode needs a value\n\nusage: npm run admin -- orders /);
    const noCommand = await run(['--bogus']);
    expect(noCommand.code).to.equal(2);
    expect(noCommand.stderr).to.match(/^unknown option --bogus\n\nusage: npm run admin -- <command>/);
  });

  it('runs as `node core/src/cli.ts`: its output, and exit codes 0 (done), 1 (refused) and 2 (a usage error)', async () => {
    const env = { PUBLIC_URL: t.baseUrl, ADMIN_TOKEN: t.service.adminToken };
    const [listed, refused, misused] = await Promise.all([
      cliProcess(['resellers', '--limit', '1', '--json'], env),
      cliProcess(['order', 'ord_00000000000000000000000000'], env),
      cliProcess(['orders'], env),
    ]);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).data).to.be.an('array');
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^error \(not_found\): /);
    expect(misused.code).to.equal(2);
    expect(misused.stderr).to.contain('orders: missing RESELLER_ID').and.contain('usage: npm run admin -- orders');
  });
});
