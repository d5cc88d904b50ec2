import { expect } from 'chai';
import { sql } from 'kysely';
import pg from 'pg';
import { databaseOutage } from '../../src/http/service-unavailable.ts';
import { openDatabase, type DatabaseHandle } from '../../src/infra/db/database.ts';
import { WebhookDbLane } from '../../src/modules/webhooks/webhook-db-lane.ts';
import type { Db, Tables } from '../../src/modules/tables.ts';
import { createTestPostgresDatabase, needService, TEST_PG_URL } from '../helpers/services.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { waitFor } from '../helpers/wait.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * Ends every session of database `name` as a restart would (57P01 terminating connection due to administrator command).
 */
async function terminateBackends(name: string): Promise<number> {
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ n: number }>(
      'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return rows[0]!.n;
  } finally {
    await admin.end();
  }
}

/** Errors nobody handled while a test ran (mocha would fail the test too; this names them). */
function watchUncaught(): { errors: unknown[]; stop: () => void } {
  const errors: unknown[] = [];
  const listener = (err: unknown): void => void errors.push(err);
  process.on('uncaughtException', listener);
  return { errors, stop: () => process.off('uncaughtException', listener) };
}

const backendPid = async (db: Db): Promise<number> =>
  (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

const failure = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('PostgreSQL connections that die (a restart, a failover)', function () {
  let url: string;
  let name: string;
  let drop: () => Promise<void>;
  let handle: DatabaseHandle<Tables>;
  let reported: Error[];
  let uncaught: ReturnType<typeof watchUncaught>;

  before(async function () {
    await needService(this, 'postgres');
    ({ url, drop } = await createTestPostgresDatabase());
    name = new URL(url).pathname.slice(1);
  });
  after(async () => {
    await drop?.();
  });
  beforeEach(async () => {
    reported = [];
    uncaught = watchUncaught();
    handle = await openDatabase<Tables>({ url, onConnectionError: (err) => reported.push(err) });
  });
  afterEach(async () => {
    await handle.close();
    uncaught.stop();
  });

  it('a statement in flight, a transaction and a held connection fail with an unavailable error; nothing is thrown; the next query runs', async () => {
    const db = handle.db;
    let terminated!: () => void;
    const heldIdle = new Promise<void>((resolve) => (terminated = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let inTransaction!: () => void;
    const begun = new Promise<void>((resolve) => (inTransaction = resolve));
    // Checked out and idle (pg-pool no longer listens to it): a lane's connection between statements.
    const onConnection = db.connection().execute(async (conn) => {
      await sql`select 1`.execute(conn);
      holding();
      await heldIdle;
      return failure(sql`select 1`.execute(conn));
    });
    const inFlight = failure(sql`select pg_sleep(30)`.execute(db));
    const transaction = failure(
      db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        inTransaction();
        await heldIdle;
        await sql`select 1`.execute(trx);
      }),
    );
    await held;
    await begun;
    await waitFor('the sleeping statement to run', async () =>
      (await activeStatements(name)).some((q) => q.includes('pg_sleep')),
    );
    expect(await terminateBackends(name)).to.be.at.least(3);
    await waitFor('each dead connection to be reported', () => reported.length >= 3);
    terminated();

    for (const err of [await inFlight, await transaction, await onConnection]) {
      expect(err, String(err)).to.be.instanceOf(Error);
      expect(databaseOutage(err as Error), String(err)).to.equal(true);
    }
    expect((await sql<{ n: number }>`select 1 as n`.execute(db)).rows).to.deep.equal([{ n: 1 }]);
    expect(uncaught.errors).to.deep.equal([]);
  });

  it('idle pooled connections that die are replaced', async () => {
    const db = handle.db;
    // Three connections at once: the pool keeps three.
    await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(db)));
    expect(await terminateBackends(name)).to.equal(3);
    await waitFor('each dead connection to be reported', () => reported.length >= 3);
    expect((await sql<{ n: number }>`select 1 as n`.execute(db)).rows).to.deep.equal([{ n: 1 }]);
    expect(uncaught.errors).to.deep.equal([]);
  });

  it("the webhook lane's held connection: the statement on it fails, those after it run on a fresh connection", async () => {
    // Held between statements for as long as the test needs (and given back below).
    const lane = new WebhookDbLane(handle.db, { pooled: true, lingerMs: 60_000 });
    const before = await lane.run(backendPid);
    expect(await terminateBackends(name)).to.equal(1);
    await waitFor('the dead connection to be reported', () => reported.length >= 1);

    const [first, second] = await Promise.allSettled([lane.run(backendPid), lane.run(backendPid)]);
    expect(first.status).to.equal('rejected');
    expect(databaseOutage((first as PromiseRejectedResult).reason)).to.equal(true);
    expect(second.status).to.equal('fulfilled');
    expect((second as PromiseFulfilledResult<number>).value).to.not.equal(before);
    expect(uncaught.errors).to.deep.equal([]);

    // The lane holds its new connection; a failed statement makes it give that back (else closing waits a minute).
    await lane.run((db) => sql`select 1/0`.execute(db)).catch(() => undefined);
  });
});

/** The statements running now in database `name`. */
async function activeStatements(name: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ query: string }>(
      "select query from pg_stat_activity where datname = $1 and state = 'active'",
      [name],
    );
    return rows.map((r) => r.query);
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL out of reach', function () {
  let proxy: TcpProxy;
  let drop: (() => Promise<void>) | undefined;
  let proxiedUrl: string;

  before(async function () {
    await needService(this, 'postgres');
    const created = await createTestPostgresDatabase();
    drop = created.drop;
    const target = new URL(created.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    proxiedUrl = target.toString();
  });
  after(async () => {
    await proxy?.close();
    await drop?.();
  });

  it('a query fails within the connect timeout when the server accepts but never answers', async () => {
    const handle = await openDatabase<Tables>({ url: proxiedUrl, connectTimeoutMs: 300 });
    proxy.blackHole();
    try {
      const started = Date.now();
      const err = await failure(sql`select 1`.execute(handle.db));
      expect(databaseOutage(err as Error), String(err)).to.equal(true);
      expect(Date.now() - started).to.be.below(scaled(10_000));
    } finally {
      await proxy.up();
      await handle.close();
    }
  });

  describe('through the API', function () {
    let t: TestService;
    let key: string;
    let resellerId: string;
    before(async function () {
      t = await startTestService(this, 'postgres+redis', { DATABASE_URL: proxiedUrl });
      ({ key, id: resellerId } = await t.reseller());
    });
    after(async () => {
      await proxy.up();
      await t?.close();
    });

    it('answers 503 service_unavailable with Retry-After while the database is down, and serves again once it is back', async () => {
      expect((await t.api(key, 'GET', '/wallet')).status).to.equal(200);
      await proxy.down();

      const api = await t.api(key, 'GET', '/wallet');
      expect(api.status, JSON.stringify(api.body)).to.equal(503);
      expect(api.body.error.code).to.equal('service_unavailable');
      expect(api.body.error.message).to.be.a('string');
      expect(Number(api.headers.get('retry-after'))).to.be.above(0);
      const admin = await t.admin('GET', `/resellers/${resellerId}`);
      expect(admin.status, JSON.stringify(admin.body)).to.equal(503);
      expect(admin.body.error.code).to.equal('service_unavailable');
      expect((await fetch(`${t.baseUrl}/readyz`)).status).to.equal(503);

      await proxy.up();
      await waitFor('the API to serve again', async () => (await t.api(key, 'GET', '/wallet')).status === 200);
      expect((await t.admin('GET', `/resellers/${resellerId}`)).status).to.equal(200);
    });
  });
});
