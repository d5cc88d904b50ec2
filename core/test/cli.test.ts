import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestService, type TestService } from './helpers/test-service.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

describe('the back-office CLI [pglite]', function () {
  // Each command is a node process of its own: slow to start on a busy machine.
  this.timeout(60_000);
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  async function cli(...args: string[]): Promise<any> {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, NODE_ENV: 'test', PUBLIC_URL: t.baseUrl, ADMIN_TOKEN: t.service.adminToken },
    });
    return JSON.parse(stdout);
  }

  it('creates a key with every scope without --scopes, with none for --scopes "", with those listed otherwise', async () => {
    const { id } = await t.reseller();
    expect((await cli('create-key', id, '--mode', 'live')).data.scopes).to.equal(null);
    const none = await cli('create-key', id, '--mode', 'live', '--scopes', '');
    expect(none.data.scopes).to.deep.equal([]);
    expect((await t.api(none.data.key, 'GET', '/me')).status).to.equal(200);
    expect((await t.api(none.data.key, 'GET', '/wallet')).status).to.equal(403);
    expect((await cli('create-key', id, '--mode', 'test', '--scopes', 'wallet:read, orders:read')).data.scopes).to.deep.equal(['orders:read', 'wallet:read']);
  });
});
