import type { ServerResponse } from 'node:http';
import { expect } from 'chai';
import { sql } from 'kysely';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { capturingLogger, createEndpoint, Receiver, waitFor, writeEvents } from './webhook-test-helpers.ts';
import { scaled } from '../helpers/wait.ts';

/**
 * Fair delivery: two resellers' endpoints on the SAME receiver host:port (different paths).
 * One endpoint hangs or fails; the other's deliveries must not wait behind it.
 */
for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`fair webhook delivery [${backend}]`, function () {
    this.timeout(scaled(90_000));
    let t: TestService;
    let receiver: Receiver;
    // Longer than any wait of the first phase at any time scale (those grow by it too).
    const TIMEOUT_MS = scaled(15_000);
    const captured = capturingLogger();
    before(async function () {
      t = await startTestService(
        this,
        backend,
        {},
        {
          logger: captured.logger,
          maintenanceIntervalMs: 300,
          webhooks: {
            // A hanging request stays open for the whole first phase of a test (it is answered, or the test ends,
            // first).
            timeoutMs: TIMEOUT_MS,
            leaseMs: TIMEOUT_MS + 10_000,
            // Four sends per host: before fair scheduling, X's backlog took them all, in line ahead of Y.
            perHostConcurrency: 4,
            // Four jobs of 25 at once: X's backlog alone fills them.
            concurrency: 100,
            batchSize: 25,
            retryScheduleMs: Array(12).fill(300),
            jitterRatio: 0,
            breakerHoldMs: 300,
            breakerMaxHoldMs: 1000,
          },
        },
      );
      receiver = await Receiver.start();
    });
    after(async () => {
      await receiver?.close();
      await t?.close();
    });

    /** Every attempt a delivery has, numbered 1..n with no gap, one row each; only the last may have succeeded. */
    async function checkHistories(endpointId: string): Promise<Map<string, number>> {
      const rows = await t.service.db
        .selectFrom('webhook_deliveries as d')
        .leftJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
        .select(['d.id', 'd.status', 'd.attempts', 'a.attempt', 'a.succeeded'])
        .where('d.endpoint_id', '=', endpointId)
        .orderBy('d.id')
        .orderBy('a.attempt')
        .execute();
      const byDelivery = new Map<string, typeof rows>();
      for (const r of rows) byDelivery.set(r.id, [...(byDelivery.get(r.id) ?? []), r]);
      const counts = new Map<string, number>();
      for (const [id, list] of byDelivery) {
        expect(list[0]!.status, id).to.equal('delivered');
        expect(
          list.map((r) => r.attempt),
          id,
        ).to.deep.equal(Array.from({ length: list[0]!.attempts }, (_, i) => i + 1));
        expect(
          list.map((r) => r.succeeded),
          id,
        ).to.deep.equal([...Array(list.length - 1).fill(false), true]);
        counts.set(id, list[0]!.attempts);
      }
      return counts;
    }

    /** What the receiver got at `path`: each (delivery, attempt) once, and exactly the attempts recorded. */
    function checkReceived(path: string, attempts: Map<string, number>): void {
      const seen = receiver
        .requests(path)
        .map((r) => `${r.headers['x-service-delivery']}#${r.headers['x-service-attempt']}`);
      expect(new Set(seen).size, 'no attempt sent twice').to.equal(seen.length);
      const recorded = [...attempts].flatMap(([id, n]) => Array.from({ length: n }, (_, i) => `${id}#${i + 1}`));
      expect(seen.slice().sort()).to.deep.equal(recorded.sort());
    }

    it('delivers another reseller’s events at once while an endpoint on the same host hangs, then the hanging one’s backlog once it answers', async () => {
      const x = await t.reseller();
      const y = await t.reseller();
      // X's path hangs: every request stays open until the test answers it (or the client gives up).
      const open = new Set<ServerResponse>();
      let xAnswers = false;
      receiver.server.route('/hangs', (_req, res) => {
        if (xAnswers) return void res.writeHead(200).end('ok');
        open.add(res);
        res.on('close', () => open.delete(res));
      });
      const xEndpoint = await createEndpoint(t, x.key, `${receiver.server.url}/hangs`);
      const yEndpoint = await createEndpoint(t, y.key, receiver.hook('/answers'));

      const X_EVENTS = 100;
      const xEvents = await writeEvents(t, { resellerId: x.id, count: X_EVENTS });
      await waitFor('X’s first requests hanging', () => open.size > 0, 20_000);
      const yEvents = await writeEvents(t, { resellerId: y.id, count: 10 });
      // Before fair scheduling Y waited behind X's backlog (100 / 4 x 15 s); now it goes at once
      // (about 0.1 s), well within X's first requests' timeout.
      await waitFor(
        'every Y event',
        () => new Set(receiver.requests('/answers').map((r) => r.event.id)).size === yEvents.length,
        5000,
        20,
      );
      const xOpen = open.size;
      const xReached = new Set(receiver.requests('/hangs').map((r) => r.event.id)).size;
      expect(xOpen, 'X’s requests still hang while Y’s are received').to.be.greaterThan(0);
      expect(xReached, 'Y did not wait for X’s backlog').to.be.below(X_EVENTS);
      // X holds at most half of the host's places: it is not known to answer.
      expect(xOpen).to.be.at.most(2);

      // X answers again (the hanging requests too): its whole backlog arrives, each attempt recorded once.
      xAnswers = true;
      for (const res of open) res.writeHead(200).end('ok');
      await waitFor(
        'X’s backlog delivered',
        async () =>
          (
            await t.service.db
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('endpoint_id', '=', xEndpoint.id)
              .where('status', '=', 'delivered')
              .execute()
          ).length === X_EVENTS,
        60_000,
        200,
      );
      expect(new Set(receiver.requests('/hangs').map((r) => r.event.id))).to.deep.equal(new Set(xEvents));
      checkReceived('/hangs', await checkHistories(xEndpoint.id));
      await waitFor(
        'Y recorded',
        async () =>
          (
            await t.service.db
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('endpoint_id', '=', yEndpoint.id)
              .where('status', '=', 'delivered')
              .execute()
          ).length === yEvents.length,
      );
      checkReceived('/answers', await checkHistories(yEndpoint.id));
    });

    it('holds a failing endpoint’s deliveries unsent (its circuit opens) without failing them, and delivers them all once it recovers', async () => {
      const x = await t.reseller();
      const y = await t.reseller();
      let down = true;
      const xEndpoint = await createEndpoint(
        t,
        x.key,
        receiver.hook('/fails', () => (down ? 503 : 200)),
      );
      const yEndpoint = await createEndpoint(t, y.key, receiver.hook('/fine'));
      const X_EVENTS = 60;
      const xEvents = await writeEvents(t, { resellerId: x.id, count: X_EVENTS });
      const [yEvent] = await writeEvents(t, { resellerId: y.id });

      // After five failures in a row the circuit holds X's deliveries: put off without an attempt
      // (no attempt spent, nothing failed for it), instead of each one being tried and retried.
      const held = await waitFor(
        'X’s circuit open',
        () => captured.lines.find((l) => l.endpointId === xEndpoint.id && String(l.message).includes('held')),
        20_000,
        20,
      );
      expect(held).to.include({ consecutiveFailures: 5, holdMs: 300 });
      await waitFor(
        'X deliveries held unsent',
        async () => {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from webhook_deliveries
            where endpoint_id = ${xEndpoint.id} and attempts = 0 and status = 'pending' and next_attempt_at > now()`.execute(
            t.service.db,
          );
          return rows[0]!.n > 0;
        },
        20_000,
        20,
      );
      await waitFor('Y delivered meanwhile', () => receiver.requests('/fine').some((r) => r.event.id === yEvent));
      const failed = await t.service.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', xEndpoint.id)
        .where('status', '=', 'failed')
        .execute();
      expect(failed).to.deep.equal([]);

      down = false;
      await waitFor(
        'X’s backlog delivered',
        async () =>
          (
            await t.service.db
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('endpoint_id', '=', xEndpoint.id)
              .where('status', '=', 'delivered')
              .execute()
          ).length === X_EVENTS,
        60_000,
        200,
      );
      expect(
        new Set(
          receiver
            .requests('/fails')
            .filter((r) => r.event)
            .map((r) => r.event.id),
        ),
      ).to.deep.equal(new Set(xEvents));
      checkReceived('/fails', await checkHistories(xEndpoint.id));
      await waitFor(
        'Y recorded',
        async () =>
          (
            await t.service.db
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('endpoint_id', '=', yEndpoint.id)
              .where('status', '=', 'delivered')
              .execute()
          ).length === 1,
      );
    });
  });
}
