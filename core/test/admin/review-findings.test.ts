import { expect } from 'chai';
import { money } from '../../src/modules/dashboard/pages/publish-section.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

describe('findings of the same security review', function () {
  this.timeout(120_000);
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(() => t?.close());

  it('shows a retail price below cost as a negative margin, not a RangeError', () => {
    // The margin line's amounts (money): a loss keeps its minus sign, in the store's currency too.
    expect(money(1250, 'EUR')).to.equal('€12.50');
    expect(money(-1250, 'EUR')).to.equal('-€12.50');
    expect(money(0, 'EUR')).to.equal('€0.00');
    expect(money(-105, 'GBP')).to.equal('-£1.05');
  });

  it('keeps every back-office answer out of caches: JSON, the queue dashboard and its JSON', async () => {
    for (const path of ['/resellers', '/audit-events', '/queues']) {
      const res = await fetch(`${t.baseUrl}/admin/v1${path}`, {
        headers: {
          authorization: `Bearer ${t.service.adminToken}`,
          'user-agent': 'print-api-tests/1.0',
          accept: 'application/json',
        },
      });
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('cache-control'), path).to.equal('no-store');
    }
  });

  it('refuses a NUL character in any dashboard or console form with the API’s 400 nul_character, never a 500', async () => {
    for (const path of [
      '/dashboard/products',
      '/dashboard/stores',
      '/dashboard/products/rp_x/publish',
      '/admin/sign-in',
    ]) {
      const res = await fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'user-agent': 'print-api-tests/1.0', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'title=Mug%00&sku=A%00B',
      });
      expect(res.status, path).to.equal(400);
      const body = (await res.json()) as { error: { code: string; details: Array<{ code: string }> } };
      expect(body.error.code, path).to.equal('invalid_request');
      expect(body.error.details[0]!.code, path).to.equal('nul_character');
    }
  });
});
