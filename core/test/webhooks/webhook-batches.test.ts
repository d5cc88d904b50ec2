import { expect } from 'chai';
import { sql } from 'kysely';
import { SecretBox } from '../../src/infra/crypto.ts';
import { newId } from '../../src/infra/ids.ts';
import { createLogger, silentLogger } from '../../src/infra/logger.ts';
import type { AddOptions, Queue, QueueCounts } from '../../src/infra/queue/job-queue.ts';
import { createSafeFetch } from '../../src/infra/safe-fetch/safe-fetch.ts';
import { WebhookDbLane } from '../../src/modules/webhooks/webhook-db-lane.ts';
import { WebhookDeliverer, type DeliveryJob } from '../../src/modules/webhooks/webhook-deliverer.ts';
import { resolveWebhooksOptions, type WebhooksOptions } from '../../src/modules/webhooks/webhooks-options.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { testCertificates } from '../helpers/tls.ts';
import {
  createEndpoint,
  deliveries,
  FAST_WEBHOOKS,
  Receiver,
  signatureIsValid,
  waitFor,
  writeEvents,
} from './webhook-test-helpers.ts';
import { scaled } from '../helpers/wait.ts';

/** A queue that only remembers what was added (the retries a deliverer schedules). */
class RecordingQueue implements Queue<DeliveryJob> {
  readonly name = 'webhooks-test';
  readonly added: Array<{ data: DeliveryJob; options: AddOptions | undefined }> = [];
  async add(data: DeliveryJob, options?: AddOptions): Promise<void> {
    this.added.push({ data, options });
  }
  async remove(): Promise<void> {}
  async counts(): Promise<QueueCounts> {
    return { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 };
  }
  async failedSince(): Promise<Date[]> {
    return [];
  }
}

for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`webhook batches [${backend}]`, function () {
    this.timeout(scaled(30_000));
    const encryptionKey = SecretBox.generateKey();
    const box = new SecretBox(encryptionKey);
    let t: TestService;
    let receiver: Receiver;
    before(async function () {
      // Sweeps far apart: only the deliverers these tests build send what they insert by hand.
      t = await startTestService(
        this,
        backend,
        { ENCRYPTION_KEY: encryptionKey },
        { ...FAST_WEBHOOKS, maintenanceIntervalMs: 600_000 },
      );
      receiver = await Receiver.start();
    });
    after(async () => {
      await receiver?.close();
      await t?.close();
    });

    /** A second "process": its own deliverer over the same database. */
    async function deliverer(
      queue = new RecordingQueue(),
      options: Partial<WebhooksOptions> = {},
    ): Promise<WebhookDeliverer> {
      const d = new WebhookDeliverer({
        db: t.service.db,
        lane: new WebhookDbLane(t.service.db, { pooled: t.service.databaseKind === 'postgres' }),
        box,
        safeFetch: createSafeFetch({
          allowedHosts: ['localhost'],
          userAgent: 'test',
          ca: [(await testCertificates()).ca],
        }),
        logger: process.env.TEST_LOGS === '1' ? createLogger('debug') : silentLogger(),
        // The fast retry schedule, but a timeout (and a slow send, after which a job stops waiting
        // for it) no busy test machine runs into: these tests are about claims and records. Grown by
        // the run's time scale, as the sends of the per-host test are: a job that let go of its last
        // turn at 10 s left it pending beside two CPU burners.
        options: resolveWebhooksOptions({
          ...FAST_WEBHOOKS.webhooks,
          timeoutMs: scaled(10_000),
          leaseMs: scaled(15_000),
          slowAfterMs: scaled(10_000),
          ...options,
        }),
      });
      d.useQueue(queue);
      return d;
    }

    /** Due deliveries of new events to the endpoints, as a fan-out would create them, but queued nowhere. */
    async function dueDeliveries(resellerId: string, endpointIds: string[], events: number): Promise<string[]> {
      const eventIds = await writeEvents(t, { resellerId, count: events, notify: false });
      const now = new Date();
      await t.service.db.updateTable('events').set({ dispatched_at: now }).where('id', 'in', eventIds).execute();
      const rows = eventIds.flatMap((eventId) =>
        endpointIds.map((endpointId) => ({
          id: newId('whd', now.getTime()),
          endpoint_id: endpointId,
          event_id: eventId,
          event_type: 'order.created',
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
        })),
      );
      await t.service.db.insertInto('webhook_deliveries').values(rows).execute();
      return rows.map((r) => r.id);
    }

    it('sends each attempt once when two deliverers claim overlapping batches at the same time', async () => {
      const { id: resellerId, key } = await t.reseller();
      const a = await createEndpoint(t, key, receiver.hook('/race-a'));
      const b = await createEndpoint(t, key, receiver.hook('/race-b'));
      const ids = await dueDeliveries(resellerId, [a.id, b.id], 30);
      const [one, two] = [await deliverer(), await deliverer()];
      // Whole batches both ways round, overlapping halves, and single-delivery jobs (the sweeper's).
      const half = ids.length / 2;
      await Promise.all([
        one.process({ deliveryIds: ids, attempt: 1 }),
        two.process({ deliveryIds: ids.slice().reverse(), attempt: 1 }),
        one.process({ deliveryIds: ids.slice(0, half + 5), attempt: 1 }),
        two.process({ deliveryIds: ids.slice(half - 5), attempt: 1 }),
        ...ids.slice(0, 10).map((id) => two.process({ deliveryId: id, attempt: 1 })),
      ]);
      const seen = [...receiver.requests('/race-a'), ...receiver.requests('/race-b')];
      expect(seen.map((r) => r.headers['x-service-delivery']).sort()).to.deep.equal(ids.slice().sort());
      expect(seen.every((r) => r.headers['x-service-attempt'] === '1')).to.equal(true);
      for (const r of receiver.requests('/race-a')) expect(signatureIsValid(a.secret, r.headers, r.raw)).to.equal(true);
      for (const r of receiver.requests('/race-b')) expect(signatureIsValid(b.secret, r.headers, r.raw)).to.equal(true);
      const rows = await t.service.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('id', 'in', ids)
        .execute();
      expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).to.equal(true);
      const attempts = await t.service.db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'attempt'])
        .where('delivery_id', 'in', ids)
        .execute();
      expect(attempts).to.have.length(ids.length);

      // Once sent, the same job again finds nothing to do.
      await one.process({ deliveryIds: ids, attempt: 1 });
      expect(receiver.requests('/race-a').length + receiver.requests('/race-b').length).to.equal(ids.length);
    });

    it('records a mixed batch in one go: delivered, retry scheduled, cancelled for a deleted endpoint', async () => {
      const { id: resellerId, key } = await t.reseller();
      const ok = await createEndpoint(t, key, receiver.hook('/mixed-ok'));
      const failing = await createEndpoint(
        t,
        key,
        receiver.hook('/mixed-500', () => 500),
      );
      const gone = await createEndpoint(t, key, receiver.hook('/mixed-gone'));
      const ids = await dueDeliveries(resellerId, [ok.id, failing.id, gone.id], 4);
      // Deleted between the fan-out and the attempt (its deliveries stay pending, as if the deletion raced the
      // fan-out).
      await t.service.db
        .updateTable('webhook_endpoints')
        .set({ deleted_at: new Date() })
        .where('id', '=', gone.id)
        .execute();
      const queue = new RecordingQueue();
      const before = Date.now();
      await (await deliverer(queue)).process({ deliveryIds: ids, attempt: 1 });

      const rows = await t.service.db.selectFrom('webhook_deliveries').selectAll().where('id', 'in', ids).execute();
      const of = (endpointId: string) => rows.filter((r) => r.endpoint_id === endpointId);
      expect(of(ok.id).map((r) => [r.status, r.attempts, r.last_status_code])).to.deep.equal(
        Array(4).fill(['delivered', 1, 200]),
      );
      expect(of(failing.id).map((r) => [r.status, r.attempts, r.last_status_code])).to.deep.equal(
        Array(4).fill(['pending', 1, 500]),
      );
      // The next attempt is due one retry wait (300 ms, no jitter) after the outcome was written.
      for (const r of of(failing.id)) expect(r.next_attempt_at!.getTime()).to.be.at.least(before + 300);
      expect(of(gone.id).map((r) => [r.status, r.last_error, r.next_attempt_at])).to.deep.equal(
        Array(4).fill(['cancelled', 'endpoint deleted', null]),
      );
      expect(receiver.requests('/mixed-gone')).to.have.length(0);
      // One retry job per failed delivery, with the per-attempt id the sweeper uses too.
      expect(queue.added.map((a) => a.options?.jobId).sort()).to.deep.equal(
        of(failing.id)
          .map((r) => `${r.id}-a2`)
          .sort(),
      );
      expect(queue.added.every((a) => a.options?.delayMs === 300)).to.equal(true);
      // Attempt rows for what was sent, none for what was closed.
      const attempts = await t.service.db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'succeeded', 'status_code'])
        .where('delivery_id', 'in', ids)
        .execute();
      expect(attempts).to.have.length(8);
      // The failure streak of the failing endpoint started; the healthy one has none.
      const streaks = await t.service.db
        .selectFrom('webhook_endpoints')
        .select(['id', 'failing_since'])
        .where('id', 'in', [ok.id, failing.id])
        .execute();
      expect(streaks.find((e) => e.id === failing.id)!.failing_since).to.be.an.instanceOf(Date);
      expect(streaks.find((e) => e.id === ok.id)!.failing_since).to.equal(null);

      // The retry attempt (a single-delivery job) goes through the same path and ends the streak.
      receiver.hook('/mixed-500');
      const [retry] = queue.added;
      await t.service.db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date() })
        .where('id', '=', (retry!.data as { deliveryId: string }).deliveryId)
        .execute();
      await (await deliverer()).process(retry!.data);
      const after = await t.service.db
        .selectFrom('webhook_endpoints')
        .select('failing_since')
        .where('id', '=', failing.id)
        .executeTakeFirstOrThrow();
      expect(after.failing_since).to.equal(null);
    });

    it('sends at most perHostConcurrency at once to a host, and a send waiting its turn is not on the timeout clock', async () => {
      // Both grown by the run's time scale: the answer stays a quarter of the timeout, and a loaded
      // machine's slower sends keep their margin to it.
      const ANSWER_MS = scaled(400);
      const TIMEOUT_MS = scaled(1600);
      const { id: resellerId, key } = await t.reseller();
      let inFlight = 0;
      let most = 0;
      const endpoint = await createEndpoint(t, key, receiver.hook('/one-host'));
      receiver.server.route('/one-host', (_req, res) => {
        most = Math.max(most, ++inFlight);
        setTimeout(() => {
          inFlight--;
          res.writeHead(200).end('ok');
        }, ANSWER_MS);
      });
      const ids = await dueDeliveries(resellerId, [endpoint.id], 12);
      const started = Date.now();
      // Each answer takes a quarter of the timeout (a busy machine adds to each), and the batch takes
      // six turns of two (one and a half timeouts): a send's wait for its turn would time it out.
      await (await deliverer(new RecordingQueue(), { perHostConcurrency: 2, timeoutMs: TIMEOUT_MS })).process({
        deliveryIds: ids,
        attempt: 1,
      });
      expect(Date.now() - started).to.be.at.least(6 * ANSWER_MS - 50);
      expect(most).to.equal(2);
      const rows = await t.service.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'last_latency_ms'])
        .where('id', 'in', ids)
        .execute();
      expect(rows.map((r) => r.status)).to.deep.equal(Array(12).fill('delivered'));
      for (const r of rows) expect(r.last_latency_ms!).to.be.below(TIMEOUT_MS);
    });

    it('runs statements on its own connections: each caller gets its result or its error, transactions stay whole, and work goes on after the linger', async () => {
      const lane = new WebhookDbLane(t.service.db, {
        pooled: t.service.databaseKind === 'postgres',
        connections: 2,
        lingerMs: 50,
      });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => lane.run((db) => sql<{ n: number }>`select ${i}::int as n`.execute(db))),
      );
      expect(results.map((r) => r.rows[0]!.n)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
      // A failing statement fails its caller only.
      const [bad, good] = await Promise.allSettled([
        lane.run((db) => sql`select * from no_such_table`.execute(db)),
        lane.run((db) => sql<{ n: number }>`select 1 as n`.execute(db)),
      ]);
      expect(bad.status).to.equal('rejected');
      expect(good.status === 'fulfilled' && good.value.rows[0]!.n).to.equal(1);
      // A transaction on a lane connection is not entered by the statements queued behind it.
      const { id: resellerId } = await t.reseller();
      const [eventId] = await writeEvents(t, { resellerId, notify: false });
      const seen = await Promise.all([
        lane
          .run((db) =>
            db.transaction().execute(async (trx) => {
              await trx
                .updateTable('events')
                .set({ dispatched_at: new Date(0) })
                .where('id', '=', eventId!)
                .execute();
              await sql`select pg_sleep(0.05)`.execute(trx);
              throw new Error('rolled back');
            }),
          )
          .catch(() => 'rolled back'),
        ...Array.from({ length: 3 }, () =>
          lane.run((db) =>
            db.selectFrom('events').select('dispatched_at').where('id', '=', eventId!).executeTakeFirstOrThrow(),
          ),
        ),
      ]);
      expect(seen[0]).to.equal('rolled back');
      for (const row of seen.slice(1)) expect((row as { dispatched_at: Date | null }).dispatched_at).to.equal(null);
      // After the linger the connections are given back; the next statement takes one again.
      await new Promise((r) => setTimeout(r, 150));
      expect((await lane.run((db) => sql<{ n: number }>`select 2 as n`.execute(db))).rows[0]!.n).to.equal(2);
    });

    it('signs with a changed endpoint secret at once (the decrypted-secret cache follows the stored secret)', async () => {
      const { id: resellerId, key } = await t.reseller();
      const endpoint = await createEndpoint(t, key, receiver.hook('/rotated'));
      await writeEvents(t, { resellerId });
      await waitFor('the first event', () => receiver.requests('/rotated').length === 1);
      const [first] = receiver.requests('/rotated');
      expect(signatureIsValid(endpoint.secret, first!.headers, first!.raw)).to.equal(true);

      const rotated = 'whsec_rotated_for_the_test_0123456789abcdefghijklmnop';
      await t.service.db
        .updateTable('webhook_endpoints')
        .set({ secret_sealed: box.seal(rotated) })
        .where('id', '=', endpoint.id)
        .execute();
      await writeEvents(t, { resellerId });
      await waitFor('the second event', () => receiver.requests('/rotated').length === 2);
      const second = receiver.requests('/rotated')[1]!;
      expect(signatureIsValid(rotated, second.headers, second.raw)).to.equal(true);
      expect(signatureIsValid(endpoint.secret, second.headers, second.raw)).to.equal(false);
      await waitFor(
        'both recorded',
        async () => (await deliveries(t, key, endpoint.id)).filter((d) => d.status === 'delivered').length === 2,
      );
    });

    // Last of the suite: it leaves about a thousand jobs on this service's queue, which a test
    // after it would wait behind (longer than its timeout on a busy machine).
    it('re-queues due deliveries endpoint by endpoint: one endpoint’s long backlog does not hide another’s', async function () {
      this.timeout(scaled(150_000));
      const { id: resellerId, key } = await t.reseller();
      const backlog = await createEndpoint(t, key, receiver.hook('/backlog'));
      const other = await createEndpoint(t, key, receiver.hook('/behind-backlog'));
      // More than one sweep's worth (1000) of due deliveries for one endpoint, all older than the other's.
      const backlogIds = await dueDeliveries(resellerId, [backlog.id], 1001);
      const [otherId] = await dueDeliveries(resellerId, [other.id], 1);
      const { db } = t.service;
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date(Date.now() - 30 * 60_000) })
        .where('id', 'in', backlogIds)
        .execute();
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date(Date.now() - 20 * 60_000) })
        .where('id', '=', otherId!)
        .execute();
      // Disabled: the backlog's deliveries are closed when their jobs run, not sent.
      await db.updateTable('webhook_endpoints').set({ disabled_at: new Date() }).where('id', '=', backlog.id).execute();

      const report = await t.service.services.webhooks.sweep();
      expect(report.requeued).to.equal(1000);
      // Its job runs among the backlog's (each closes its delivery unsent): long on a busy machine.
      await waitFor(
        'the other endpoint’s delivery, queued by the same sweep',
        () => receiver.requests('/behind-backlog').length === 1,
        120_000,
        100,
      );
      expect(receiver.requests('/backlog')).to.have.length(0);
    });
  });
}
