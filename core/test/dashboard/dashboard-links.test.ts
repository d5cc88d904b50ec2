import { expect } from 'chai';
import { sha256Hex } from '../../src/infra/crypto.ts';
import { SCOPES } from '../../src/kernel/scopes.ts';
import { runCliHere } from '../helpers/cli.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('dashboard login links (POST /dashboard-links, the CLI login-link)', function () {
  this.timeout(scaled(60_000));
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'postgres+redis', { PUBLIC_URL: 'https://print.example.com' });
  });
  after(async () => t?.close());

  it("answers a link in the key's mode, valid 5 minutes, of which only a hash is stored", async () => {
    const { id, key } = await t.reseller({ mode: 'test', scopes: ['dashboard'] });
    const before = Date.now();
    const res = await t.api(key, 'POST', '/dashboard-links');
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const { url, expiresAt, mode } = res.body.data;
    expect(mode).to.equal('test');
    expect(url).to.match(/^https:\/\/print\.example\.com\/dashboard\/login\/[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt) - before).to.be.within(4 * 60_000, 5 * 60_000 + 5_000);
    const rows = await t.service.db.selectFrom('dashboard_links').selectAll().where('reseller_id', '=', id).execute();
    expect(rows).to.have.length(1);
    expect(rows[0]!.token_hash).to.equal(sha256Hex(tokenOf(url)));
    expect(JSON.stringify(rows)).not.to.contain(tokenOf(url));
  });

  it('needs the dashboard scope (a key with every other scope is refused 403)', async () => {
    const { key } = await t.reseller({ scopes: SCOPES.filter((s) => s !== 'dashboard') });
    const res = await t.api(key, 'POST', '/dashboard-links');
    expect(res.status).to.equal(403);
    expect(res.body.error.message).to.contain('dashboard');
    const all = await t.reseller();
    expect((await t.api(all.key, 'POST', '/dashboard-links')).body.data.mode).to.equal('live');
  });

  it('opens once, and refuses a used, an expired or an unknown link, and a suspended account', async () => {
    const links = t.service.services.dashboardLinks;
    const { id, key } = await t.reseller();
    const url = (await t.api(key, 'POST', '/dashboard-links')).body.data.url as string;
    const [first, second] = await Promise.all([links.open(tokenOf(url)), links.open(tokenOf(url))]);
    expect([first.ok, second.ok].filter(Boolean)).to.have.length(1);
    expect(await links.open(tokenOf(url))).to.deep.equal({ ok: false, reason: 'used' });

    const late = (await t.api(key, 'POST', '/dashboard-links')).body.data.url as string;
    await t.service.db
      .updateTable('dashboard_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', sha256Hex(tokenOf(late)))
      .execute();
    expect(await links.open(tokenOf(late))).to.deep.equal({ ok: false, reason: 'expired' });
    expect(await links.open('nope')).to.deep.equal({ ok: false, reason: 'unknown' });

    const pending = (await t.api(key, 'POST', '/dashboard-links')).body.data.url as string;
    await t.admin('POST', `/resellers/${id}/suspend`);
    expect(await links.open(tokenOf(pending))).to.deep.equal({ ok: false, reason: 'account_not_active' });
    const refused = await t.admin('POST', `/resellers/${id}/dashboard-links`, {});
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('account_not_active');
  });

  it('the CLI prints a live link by default and a test link with --mode test', async () => {
    const { id } = await t.reseller();
    const cli = async (...args: string[]) => {
      const r = await runCliHere([...args, '--json'], { PUBLIC_URL: t.baseUrl, ADMIN_TOKEN: t.service.adminToken });
      expect(r.code, r.stderr).to.equal(0);
      return JSON.parse(r.stdout);
    };
    const live = await cli('login-link', id);
    expect(live.data.mode).to.equal('live');
    expect(live.data.url).to.match(/^https:\/\/print\.example\.com\/dashboard\/login\//);
    expect((await cli('login-link', id, '--mode', 'test')).data.mode).to.equal('test');
    const opened = await t.service.services.dashboardLinks.open(tokenOf(live.data.url));
    expect(opened.ok && opened.link).to.include({ resellerId: id, mode: 'live' });
  });
});
