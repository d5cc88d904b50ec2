import { expect } from 'chai';
import { sql } from 'kysely';
import { abortStatement } from '../../src/infra/db/statement-abort.ts';
import { WalletLanes, type LaneWrite } from '../../src/modules/orders/wallet-lanes.ts';
import { describeEachDatabase } from '../helpers/services.ts';

describeEachDatabase('wallet lanes (group commit per wallet)', (t) => {
  before(async () => {
    await sql`create table lane_writes (n int primary key, txid bigint not null)`.execute(t.db);
  });
  beforeEach(async () => {
    await sql`delete from lane_writes`.execute(t.db);
  });

  /** A write that records its number and transaction, or aborts its statement when `abort`. */
  const write =
    (n: number, abort = false): LaneWrite =>
    async (db) => {
      await sql`
        with w as (insert into lane_writes (n, txid) values (${n}, txid_current()))
        select case when ${abort} then ${abortStatement('nope')} end as outcome`.execute(db);
    };

  const written = async () =>
    (await sql<{ n: number; txid: string }>`select n, txid::text from lane_writes order by n`.execute(t.db)).rows;

  it('runs a write alone at once, and commits the writes that came meanwhile together in one transaction', async () => {
    const lanes = new WalletLanes(t.db);
    await Promise.all([1, 2, 3, 4, 5].map((n) => lanes.run('rsl_1:live', write(n))));
    const rows = await written();
    expect(rows.map((r) => r.n)).to.deep.equal([1, 2, 3, 4, 5]);
    // The first ran alone; the four that waited for it shared one transaction.
    expect(new Set(rows.map((r) => r.txid)).size).to.equal(2);
    expect(new Set(rows.slice(1).map((r) => r.txid)).size).to.equal(1);
  });

  it('keeps wallets apart: another wallet does not wait for this one', async () => {
    const lanes = new WalletLanes(t.db);
    await Promise.all([
      lanes.run('rsl_1:live', write(1)),
      lanes.run('rsl_2:live', write(2)),
      lanes.run('rsl_1:test', write(3)),
    ]);
    const rows = await written();
    expect(new Set(rows.map((r) => r.txid)).size).to.equal(3);
  });

  it('gives each write of a batch its own outcome when one of them aborts: the others commit, it fails', async () => {
    const lanes = new WalletLanes(t.db);
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((n) => lanes.run('rsl_1:live', write(n, n === 3))));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await written()).map((r) => r.n)).to.deep.equal([1, 2, 4]);
  });

  it('takes at most maxBatch writes a batch, and after a failed batch runs each of its writes alone', async () => {
    const lanes = new WalletLanes(t.db, { maxBatch: 2 });
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4, 5].map((n) => lanes.run('rsl_1:live', write(n, n === 1 || n === 5))),
    );
    expect(outcomes.map((o) => o.status)).to.deep.equal([
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    const rows = await written();
    expect(rows.map((r) => r.n)).to.deep.equal([2, 3, 4]);
    // 2 and 3 shared a batch; 4 and 5 did too, until 5 aborted it and 4 ran alone.
    expect(rows[0]!.txid).to.equal(rows[1]!.txid);
    expect(rows[2]!.txid).to.not.equal(rows[1]!.txid);
  });
});
