import { expect } from 'chai';
import { amountCents, listenRefusal } from '../src/cli/cli-words.ts';
import { runCliHere } from './helpers/cli.ts';
import { startTestService, type TestService } from './helpers/test-service.ts';

/** Issue 37: the CLI says a refused `listen` and a top-up in euros in its own words. */
describe('the back-office CLI in its own words [pglite]', function () {
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(async () => t?.close());

  const run = (args: string[]) => runCliHere(args, { PUBLIC_URL: t.baseUrl, ADMIN_TOKEN: t.service.adminToken });

  it('listen with a wrong key says so in a sentence, not the raw 401 JSON', async () => {
    const r = await run(['listen', '--api-key', 'prk_test_notarealkey000000000000000000']);
    expect(r.code).to.equal(1);
    expect(r.stderr.trim()).to.equal(
      'The API key was not accepted: check --api-key (a key starts prk_live_ or prk_test_, and a revoked key no longer works).',
    );
    expect(r.stderr).not.to.match(/\{|"error"|answered 401/);
  });

  it('top-up --amount 12.50 is €12.50; a whole number stays cents; anything else says what it takes', async () => {
    const reseller = await t.reseller();
    const euros = await run(['top-up', reseller.id, '--amount', '12.50', '--mode', 'test', '--json']);
    expect(euros.code, euros.stderr).to.equal(0);
    expect(JSON.parse(euros.stdout).data).to.include({ amountCents: 1250, balanceAfterCents: 1250 });
    expect(euros.stderr).to.contain('with €12.50: balance now €12.50.');
    const comma = await run(['top-up', reseller.id, '--amount', '7,5', '--mode', 'test', '--json']);
    expect(JSON.parse(comma.stdout).data).to.include({ amountCents: 750, balanceAfterCents: 2000 });
    const cents = await run(['top-up', reseller.id, '--amount', '2500', '--mode', 'test', '--json']);
    expect(JSON.parse(cents.stdout).data).to.include({ amountCents: 2500, balanceAfterCents: 4500 });
    const wrong = await run(['top-up', reseller.id, '--amount', 'twelve']);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.contain(
      "top-up: --amount takes euro cents (2500 is €25.00) or euros with a decimal point (25.00 or 25,00); 'twelve' is neither",
    );
    expect(wrong.stderr).not.to.contain('amountCents must be a whole number');
  });

  it('reads amounts and refusals without a service', () => {
    expect(amountCents('12.50')).to.equal(1250);
    expect(amountCents('€ 12,5')).to.equal(1250);
    expect(amountCents('25 EUR')).to.equal(2500);
    expect(amountCents('2500')).to.equal(2500);
    expect(() => amountCents('12.505')).to.throw(/neither/);
    expect(listenRefusal(401, '{"error":{"code":"unauthorized"}}', false)).to.contain('back-office token');
    expect(listenRefusal(403, '{}', true)).to.contain('events:read');
    expect(listenRefusal(500, 'oops', true)).to.equal('The event stream could not be opened (HTTP 500).');
  });
});
