import { expect } from 'chai';
import { sql } from 'kysely';
import { AuditLog } from '../../src/modules/audit/audit-log.ts';
import { describeEachBackend, startTestService, USER_AGENT, type TestService } from '../helpers/test-service.ts';

async function events(t: TestService, query = '') {
  const res = await t.admin('GET', `/audit-events${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data as any[];
}

describe('the audit log', function () {
  this.timeout(120_000);
  let t: TestService;
  before(async function () {
    t = await startTestService(this, 'pglite');
  });
  after(() => t?.close());

  it('records every back-office change with its actor, address, user agent and request id', async () => {
    const r = await t.reseller();
    await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 2500, reference: 'bank 42' });
    await t.admin('POST', `/resellers/${r.id}/dashboard-links`, { mode: 'test' });
    await t.admin('DELETE', `/api-keys/${r.keyId}`);
    await t.admin('POST', `/resellers/${r.id}/suspend`);
    const made = await t.admin('POST', '/operator-tokens', { name: 'ops robot', role: 'admin' });
    // What the token does is the token's.
    const res = await fetch(`${t.baseUrl}/admin/v1/operator-tokens/${made.body.data.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${made.body.data.token}`, 'user-agent': USER_AGENT },
    });
    expect(res.status).to.equal(200);

    const forReseller = await events(t, `?targetId=${r.id}&limit=100`);
    expect(forReseller.map((e) => e.action).reverse()).to.deep.equal([
      'reseller.created',
      'reseller.approved',
      'wallet.topped_up',
      'dashboard_link.created',
      'reseller.suspended',
    ]);
    for (const e of forReseller) {
      expect(e.actor).to.deep.equal({ type: 'admin_token', id: 'admin' });
      expect(e.ip).to.be.a('string');
      expect(e.userAgent).to.equal(USER_AGENT);
      expect(e.requestId).to.be.a('string');
      expect(e.hash).to.match(/^[0-9a-f]{64}$/);
    }
    const topUp = forReseller.find((e) => e.action === 'wallet.topped_up');
    expect(topUp.changes).to.include({ amountCents: 2500, reference: 'bank 42', mode: 'live' });
    const keyEvents = await events(t, `?targetId=${r.keyId}`);
    expect(keyEvents.map((e) => e.action)).to.deep.equal(['api_key.revoked', 'api_key.created']);
    const tokenEvents = await events(t, `?targetId=${made.body.data.id}`);
    expect(tokenEvents.map((e) => [e.action, e.actor.type])).to.deep.equal([
      ['operator_token.revoked', 'operator_token'],
      ['operator_token.created', 'admin_token'],
    ]);
    expect(tokenEvents[0].actor).to.deep.equal({ type: 'operator_token', id: made.body.data.id, name: 'ops robot' });
    expect(JSON.stringify(tokenEvents)).to.not.contain(made.body.data.token);
  });

  it("records a reseller's dashboard sign-in, as the key that asked for the link", async () => {
    const r = await t.reseller();
    const link = await t.api(r.key, 'POST', '/dashboard-links', {});
    expect(link.status).to.equal(201);
    const path = new URL(link.body.data.url).pathname;
    const signIn = await fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'user-agent': USER_AGENT, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(signIn.status).to.equal(303);
    const [signedIn] = await events(t, `?action=dashboard.signed_in&targetId=${r.id}`);
    expect(signedIn.actor).to.deep.equal({ type: 'api_key', id: r.keyId });
    expect(signedIn.changes.mode).to.equal('live');
  });

  it('filters by action, actor and time, and pages with a cursor', async () => {
    for (let i = 0; i < 3; i++) await t.reseller();
    const page1 = await t.admin('GET', '/audit-events?action=reseller.created&limit=2');
    expect(page1.body.data).to.have.length(2);
    expect(page1.body.nextCursor).to.be.a('string');
    const page2 = await t.admin('GET', `/audit-events?action=reseller.created&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.length).to.be.greaterThan(0);
    expect(page2.body.data[0].seq).to.be.lessThan(page1.body.data[1].seq);
    expect((await events(t, '?actorId=admin&limit=5')).every((e) => e.actor.id === 'admin')).to.equal(true);
    expect(await events(t, '?since=2999-01-01T00:00:00Z')).to.deep.equal([]);
    expect((await events(t, '?until=2999-01-01T00:00:00Z&limit=1')).length).to.equal(1);
    const bad = await t.admin('GET', '/audit-events?since=yesterday');
    expect(bad.status).to.equal(400);
  });

  it('writes no change without its record: a record that cannot be written undoes the change', async () => {
    const created = await t.admin('POST', '/resellers', {
      name: 'Unrecorded',
      email: 'u@example.com',
      phone: '+31 20 123 4567',
    });
    const id = created.body.data.id as string;
    await sql`alter table audit_events add constraint no_approvals check (action <> 'reseller.approved') not valid`.execute(
      t.service.db,
    );
    try {
      const approve = await t.admin('POST', `/resellers/${id}/approve`);
      expect(approve.status).to.equal(500);
    } finally {
      await sql`alter table audit_events drop constraint no_approvals`.execute(t.service.db);
    }
    expect((await t.admin('GET', `/resellers/${id}`)).body.data.status).to.equal('pending');
    expect(await events(t, `?action=reseller.approved&targetId=${id}`)).to.deep.equal([]);
  });

  it('keeps no record of a change that rolled back', async () => {
    const created = await t.admin('POST', '/resellers', {
      name: 'Rolled',
      email: 'r@example.com',
      phone: '+3120123456',
    });
    const id = created.body.data.id as string;
    const { accounts, audit } = t.service.services;
    let err: unknown;
    try {
      await accounts.setStatus(id, 'approved', async (trx, reseller) => {
        await audit.append(
          trx,
          { actor: { type: 'system', id: 'test' } },
          {
            action: 'reseller.approved',
            target: { type: 'reseller', id: reseller.id },
          },
        );
        throw new Error('the change fails after its record was written');
      });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Error);
    expect((await t.admin('GET', `/resellers/${id}`)).body.data.status).to.equal('pending');
    expect(await events(t, `?targetId=${id}&action=reseller.approved`)).to.deep.equal([]);
    expect((await t.admin('GET', '/audit-events/verify')).body.data.ok).to.equal(true);
  });

  it('saves a card with its record, and neither when the record cannot be written', async () => {
    const r = await t.reseller();
    const saved = await t.admin('PUT', `/resellers/${r.id}/card`, { token: 'tok_visa' });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const [record] = await events(t, `?action=card.saved&targetId=${r.id}`);
    expect(record.actor).to.deep.equal({ type: 'admin_token', id: 'admin' });
    expect(record.changes).to.include({ brand: saved.body.data.brand, last4: saved.body.data.last4 });

    const other = await t.reseller();
    await sql`alter table audit_events add constraint no_cards check (action <> 'card.saved') not valid`.execute(
      t.service.db,
    );
    try {
      expect((await t.admin('PUT', `/resellers/${other.id}/card`, { token: 'tok_visa' })).status).to.equal(500);
    } finally {
      await sql`alter table audit_events drop constraint no_cards`.execute(t.service.db);
    }
    expect(await t.service.services.cards.chargeableCard(other.id)).to.equal(null);
    expect(await events(t, `?action=card.saved&targetId=${other.id}`)).to.deep.equal([]);
  });

  it('keeps no record of a card whose saving rolled back', async () => {
    const r = await t.reseller();
    const { cards, audit } = t.service.services;
    let err: unknown;
    try {
      await cards.saveCard(r.id, 'owner@reseller.example', 'tok_visa', async (trx, card) => {
        await audit.append(
          trx,
          { actor: { type: 'system', id: 'test' } },
          { action: 'card.saved', target: { type: 'reseller', id: r.id }, changes: { last4: card.last4 } },
        );
        throw new Error('the saving fails after its record was written');
      });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Error);
    expect(await cards.chargeableCard(r.id)).to.equal(null);
    expect(await events(t, `?action=card.saved&targetId=${r.id}`)).to.deep.equal([]);
    expect((await t.admin('GET', '/audit-events/verify')).body.data.ok).to.equal(true);
  });

  it('verify catches a row edited in the database, and names it', async () => {
    await t.reseller();
    const before = await t.admin('GET', '/audit-events/verify');
    expect(before.body.data).to.include({ ok: true, firstBrokenId: null });
    expect(before.body.data.checked).to.be.greaterThan(5);
    const [victim] = await events(t, '?action=wallet.topped_up&limit=1');
    const row = await t.service.db
      .selectFrom('audit_events')
      .selectAll()
      .where('id', '=', victim.id)
      .executeTakeFirstOrThrow();
    await sql`update audit_events set changes = jsonb_set(changes, '{amountCents}', '1') where id = ${victim.id}`.execute(
      t.service.db,
    );
    const after = await t.admin('GET', '/audit-events/verify');
    expect(after.body.data).to.include({ ok: false, firstBrokenId: victim.id });
    // Put back as it was, the chain holds again; a row removed from the middle breaks the next one.
    await sql`update audit_events set changes = ${row.changes as any}::jsonb where id = ${victim.id}`.execute(
      t.service.db,
    );
    expect((await t.admin('GET', '/audit-events/verify')).body.data.ok).to.equal(true);
    const next = await t.service.db
      .selectFrom('audit_events')
      .select('id')
      .where('seq', '=', String(Number(row.seq) + 1))
      .executeTakeFirstOrThrow();
    const copy = await t.service.db
      .selectFrom('audit_events')
      .selectAll()
      .where('id', '=', victim.id)
      .executeTakeFirstOrThrow();
    await t.service.db.deleteFrom('audit_events').where('id', '=', victim.id).execute();
    expect((await t.admin('GET', '/audit-events/verify')).body.data).to.include({ ok: false, firstBrokenId: next.id });
    await t.service.db
      .insertInto('audit_events')
      .values({
        ...copy,
        actor: JSON.stringify(copy.actor),
        changes: JSON.stringify(copy.changes),
        seq: Number(copy.seq),
      } as never)
      .execute();
    expect((await t.admin('GET', '/audit-events/verify')).body.data.ok).to.equal(true);
  });

  it('drops records past the retention, records that it did, and the chain still verifies', async () => {
    const old = new AuditLog({ db: t.service.db, clock: () => new Date(Date.now() - 500 * 86_400_000) });
    await t.service.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 3; i++)
        await old.append(
          trx,
          { actor: { type: 'system', id: 'test' } },
          { action: 'test.old', target: { type: 'x', id: 'y' } },
        );
    });
    const dropped = await t.service.services.audit.applyRetention(400);
    expect(dropped).to.be.greaterThan(2);
    expect(await events(t, '?action=test.old')).to.deep.equal([]);
    const [ran] = await events(t, '?action=audit.retention_applied');
    expect(ran.actor).to.deep.equal({ type: 'system', id: 'audit-retention' });
    expect(ran.changes).to.include({ dropped, retentionDays: 400 });
    expect((await t.admin('GET', '/audit-events/verify')).body.data.ok).to.equal(true);
    expect(await t.service.services.audit.applyRetention(400)).to.equal(0);
  });
});

describeEachBackend('the audit chain under concurrent changes', (get) => {
  it('orders appends from many connections into one unbroken chain', async () => {
    const t = get();
    const r = await t.reseller();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 100 })),
    );
    expect(results.map((x) => x.status)).to.deep.equal(Array(12).fill(201));
    const verify = await t.admin('GET', '/audit-events/verify');
    expect(verify.body.data).to.include({ ok: true, firstBrokenId: null });
    const seqs = (await t.admin('GET', '/audit-events?limit=100')).body.data.map((e: any) => e.seq);
    expect(seqs).to.deep.equal([...seqs].sort((a: number, b: number) => b - a));
    expect(new Set(seqs).size).to.equal(seqs.length);
    expect(seqs[0] - seqs[seqs.length - 1] + 1).to.equal(seqs.length);
  });
});
