import { expect } from 'chai';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../../src/infra/db/database.ts';
import { migrations } from '../../src/modules/migrations.ts';
import { abortReason, abortStatement } from '../../src/infra/db/statement-abort.ts';
import { RELAXED_COMMIT } from '../../src/infra/db/relaxed-commit.ts';
import type { Tables } from '../../src/modules/tables.ts';
import { createTestPostgresDatabase, describeEachDatabase, needService } from '../helpers/services.ts';

describeEachDatabase('storage contract', (t) => {
  it('migrates an up-to-date database without applying anything again', async () => {
    expect(await migrateToLatest(t.db, migrations)).to.deep.equal([]);
  });

  it('returns int8 money columns as numbers and timestamps as dates', async () => {
    await t.db
      .insertInto('resellers')
      .values({ id: 'rsl_1', name: 'A', email: 'a@example.com', phone: '+31', status: 'approved', discount_bps: 1000 })
      .execute();
    await t.db
      .insertInto('wallets')
      .values({ reseller_id: 'rsl_1', mode: 'live', balance_cents: 9_007_199_254_740_991 })
      .execute();
    const row = await t.db.selectFrom('wallets').selectAll().executeTakeFirstOrThrow();
    expect(row.balance_cents).to.equal(9_007_199_254_740_991);
    expect(row.updated_at).to.be.instanceOf(Date);
  });

  it('enforces the non-negative balance in the database itself', async () => {
    let error: unknown;
    try {
      await t.db.updateTable('wallets').set({ balance_cents: -1 }).where('reseller_id', '=', 'rsl_1').execute();
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.match(/check constraint/);
  });

  it('rolls a failed transaction back completely', async () => {
    try {
      await t.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('resellers')
          .values({ id: 'rsl_2', name: 'B', email: 'b@example.com', phone: '+31', status: 'pending', discount_bps: 0 })
          .execute();
        throw new Error('boom');
      });
    } catch {
      // expected
    }
    const count = await t.db
      .selectFrom('resellers')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(count.n).to.equal(1);
  });

  it('undoes everything one autocommit statement wrote when it aborts itself', async () => {
    const write = (abort: boolean) =>
      sql`
        with r as (insert into resellers (id, name, email, phone, status, discount_bps) values ('rsl_3', 'C', 'c@example.com', '+31', 'pending', 0)),
        w as (update wallets set balance_cents = balance_cents - 5 where reseller_id = 'rsl_1' returning balance_cents)
        select case when ${abort} then ${abortStatement('nope')} end as outcome`.execute(t.db);
    const before = await t.db.selectFrom('wallets').select('balance_cents').executeTakeFirstOrThrow();
    const error = await write(true).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(abortReason(error)).to.equal('nope');
    expect(abortReason(new Error('nope'))).to.equal(undefined);
    expect(await t.db.selectFrom('resellers').select('id').where('id', '=', 'rsl_3').execute()).to.deep.equal([]);
    expect((await t.db.selectFrom('wallets').select('balance_cents').executeTakeFirstOrThrow()).balance_cents).to.equal(
      before.balance_cents,
    );
    await write(false);
    expect(await t.db.selectFrom('resellers').select('id').where('id', '=', 'rsl_3').execute()).to.have.length(1);
    expect((await t.db.selectFrom('wallets').select('balance_cents').executeTakeFirstOrThrow()).balance_cents).to.equal(
      before.balance_cents - 5,
    );
    await t.db.deleteFrom('resellers').where('id', '=', 'rsl_3').execute();
    await t.db
      .updateTable('wallets')
      .set({ balance_cents: before.balance_cents })
      .where('reseller_id', '=', 'rsl_1')
      .execute();
  });

  it('serialises concurrent transactions that update the same row', async () => {
    await Promise.all(
      Array.from({ length: 20 }, () =>
        t.db.transaction().execute(async (trx) => {
          const w = await trx
            .selectFrom('wallets')
            .select('balance_cents')
            .where('reseller_id', '=', 'rsl_1')
            .forUpdate()
            .executeTakeFirstOrThrow();
          await trx
            .updateTable('wallets')
            .set({ balance_cents: w.balance_cents - 1 })
            .where('reseller_id', '=', 'rsl_1')
            .execute();
        }),
      ),
    );
    const row = await t.db.selectFrom('wallets').select('balance_cents').executeTakeFirstOrThrow();
    expect(row.balance_cents).to.equal(9_007_199_254_740_971);
  });

  it('relaxes the commit of one statement only: it writes, and its connection keeps synchronous commits', async () => {
    await t.db.connection().execute(async (conn) => {
      const setting = async () =>
        (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(conn)).rows[0]!.synchronous_commit;
      const before = await setting();
      const update = conn.updateTable('wallets').set({ balance_cents: 7 }).where('reseller_id', '=', 'rsl_1');
      const { rows } = await sql<{
        relaxed: string;
      }>`with w as (${update}) select ${RELAXED_COMMIT} as relaxed`.execute(conn);
      expect(rows[0]!.relaxed).to.equal('off');
      expect(await setting()).to.equal(before);
    });
    expect(
      (
        await t.db
          .selectFrom('wallets')
          .select('balance_cents')
          .where('reseller_id', '=', 'rsl_1')
          .executeTakeFirstOrThrow()
      ).balance_cents,
    ).to.equal(7);
  });
});

describe('migrations on PostgreSQL', function () {
  it('apply once when several processes start at the same moment', async function () {
    await needService(this, 'postgres');
    const { url, drop } = await createTestPostgresDatabase();
    const handles = await Promise.all([1, 2, 3].map(() => openDatabase<Tables>({ url })));
    try {
      const applied = await Promise.all(handles.map((h) => migrateToLatest(h.db, migrations)));
      expect(applied.flat()).to.have.length(Object.keys(migrations).length);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await drop();
    }
  });
});

describe('prepared statements on PostgreSQL', function () {
  it('runs a repeated statement prepared, and again unprepared when a migration changed its table under it', async function () {
    await needService(this, 'postgres');
    const { url, drop } = await createTestPostgresDatabase();
    // One connection, so the statement prepared by the first runs is the one the later run meets.
    const handle = await openDatabase<any>({ url, poolSize: 1 });
    try {
      await sql`create table widgets (id text primary key, size int not null)`.execute(handle.db);
      await handle.db.insertInto('widgets').values({ id: 'w1', size: 3 }).execute();
      const read = () => handle.db.selectFrom('widgets').selectAll().where('id', '=', 'w1').execute();
      expect(await read()).to.deep.equal([{ id: 'w1', size: 3 }]);
      const prepared = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_prepared_statements where statement like 'select * from "widgets"%'`.execute(
        handle.db,
      );
      expect(prepared.rows[0]!.n).to.equal(1);
      await sql`alter table widgets add column colour text not null default 'red'`.execute(handle.db);
      expect(await read()).to.deep.equal([{ id: 'w1', size: 3, colour: 'red' }]);
    } finally {
      await handle.close();
      await drop();
    }
  });

  it('prepares nothing when told not to (DATABASE_PREPARED_STATEMENTS=off, for a pooler in transaction mode)', async function () {
    await needService(this, 'postgres');
    const { url, drop } = await createTestPostgresDatabase();
    const handle = await openDatabase<any>({ url, poolSize: 1, preparedStatements: false });
    try {
      await sql`create table widgets (id text primary key, size int not null)`.execute(handle.db);
      await handle.db.insertInto('widgets').values({ id: 'w1', size: 3 }).execute();
      for (let i = 0; i < 3; i++)
        expect(await handle.db.selectFrom('widgets').selectAll().where('id', '=', 'w1').execute()).to.have.length(1);
      const prepared = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(
        handle.db,
      );
      expect(prepared.rows[0]!.n).to.equal(0);
    } finally {
      await handle.close();
      await drop();
    }
  });
});
