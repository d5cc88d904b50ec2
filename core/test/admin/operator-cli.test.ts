import { expect } from 'chai';
import { runCliHere } from '../helpers/cli.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

describe('the back-office CLI with an operator token [pglite]', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  const run = (args: string[]) => runCliHere(args, { PUBLIC_URL: t.baseUrl });

  it('acts with the token’s role: a viewer lists but may not approve, and is recorded as the token', async () => {
    const { id } = await t.reseller();
    const made = await t.admin('POST', '/operator-tokens', { name: 'cli viewer', role: 'viewer' });
    const token = made.body.data.token as string;
    const list = await run(['resellers', '--token', token, '--json']);
    expect(list.code, list.stderr).to.equal(0);
    expect(JSON.parse(list.stdout).data.map((r: { id: string }) => r.id)).to.include(id);
    const approve = await run(['suspend', id, '--token', token]);
    expect(approve.code).to.equal(1);
    expect(approve.stderr).to.contain('insufficient_role');
    await t.admin('DELETE', `/operator-tokens/${made.body.data.id}`);
    const revoked = await run(['resellers', '--token', token]);
    expect(revoked.code).to.equal(1);
    expect(revoked.stderr).to.contain('answered 401');
  });
});
