import { expect } from 'chai';
import { describeEachBackend } from '../helpers/test-service.ts';

describeEachBackend('pagination', (get) => {
  let key: string;
  before(async () => {
    const t = get();
    const r = await t.reseller();
    key = r.key;
    for (let i = 1; i <= 30; i++)
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: i, reference: `t${i}` });
  });

  it('pages with the default limit of 25 and walks every entry once, newest first', async () => {
    const t = get();
    const first = (await t.api(key, 'GET', '/wallet')).body.data.entries;
    expect(first.limit).to.equal(25);
    expect(first.maxLimit).to.equal(100);
    expect(first.limitCapped).to.equal(false);
    expect(first.requestedLimit).to.equal(25);
    expect(first.data).to.have.length(25);
    expect(first.data[0].reference).to.equal('t30');
    const second = (await t.api(key, 'GET', `/wallet?cursor=${first.nextCursor}`)).body.data.entries;
    expect(second.data).to.have.length(5);
    expect(second.nextCursor).to.equal(null);
    const refs = [...first.data, ...second.data].map((e: { reference: string }) => e.reference);
    expect(new Set(refs).size).to.equal(30);
  });

  it('caps a limit above 100 and says so', async () => {
    const page = (await get().api(key, 'GET', '/wallet?limit=500')).body.data.entries;
    expect(page.limit).to.equal(100);
    expect(page.limitCapped).to.equal(true);
    expect(page.requestedLimit).to.equal(500);
  });

  it('caps a limit with more digits than any safe integer like any other (requestedLimit says the largest it can)', async () => {
    for (const huge of ['123456789012345678901234567890', '9'.repeat(400)]) {
      const res = await get().api(key, 'GET', `/wallet?limit=${huge}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.entries).to.include({
        limit: 100,
        limitCapped: true,
        requestedLimit: Number.MAX_SAFE_INTEGER,
      });
    }
  });

  for (const bad of ['0', '-1', 'abc', '1.5', '']) {
    it(`refuses limit=${bad} with 400`, async () => {
      const res = await get().api(key, 'GET', `/wallet?limit=${bad}`);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
    });
  }

  it('refuses a tampered cursor with 400', async () => {
    const t = get();
    const first = (await t.api(key, 'GET', '/wallet?limit=2')).body.data.entries;
    const cursor: string = first.nextCursor;
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    const res = await t.api(key, 'GET', `/wallet?cursor=${tampered}`);
    expect(res.status).to.equal(400);
    expect(res.body.error.details[0].field).to.equal('cursor');
    expect((await t.api(key, 'GET', '/wallet?cursor=garbage')).status).to.equal(400);
  });

  it('refuses unknown query parameters', async () => {
    const res = await get().api(key, 'GET', '/wallet?limt=5');
    expect(res.status).to.equal(400);
  });
});
