import { expect } from 'chai';
import type { Backend, TestService } from '../../helpers/test-service.ts';
import { createEndpoint, Receiver, signatureIsValid, waitFor, writeEvents } from '../webhook-test-helpers.ts';
import { waitForProgress } from '../../helpers/wait.ts';

/**
 * Many events to several endpoints: every one arrives, signed, exactly where it should.
 * 1,000 events on PostgreSQL + Redis; the embedded database (one connection, in this
 * process) runs 250 to keep the suite short unless WEBHOOK_VOLUME_EVENTS says otherwise.
 */
export function volumeCases(get: () => TestService, backend: Backend): void {
  const EVENTS = Number(process.env.WEBHOOK_VOLUME_EVENTS ?? (backend === 'pglite' ? 250 : 1000));
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
  });
  after(() => receiver.close());

  it(`delivers ${EVENTS} events to each of 3 endpoints`, async function () {
    // How long this takes is the machine's throughput, which load divides: the waits below fail when the
    // deliveries stop coming (a stall), not after a budget for all of them.
    this.timeout(0);
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const paths = ['/volume-a', '/volume-b', '/volume-c'];
    const endpoints: Array<{ id: string; secret: string }> = [];
    for (const p of paths) endpoints.push(await createEndpoint(t, key, receiver.hook(p)));
    const written: string[] = [];
    // Ten commits of a hundred, as a busy order flow would write them.
    for (let i = 0; i < EVENTS; i += 100)
      written.push(...(await writeEvents(t, { resellerId, count: Math.min(100, EVENTS - i) })));

    // Counting hits is cheap; the bodies are parsed once everything is in.
    await waitForProgress(
      'every event at every endpoint',
      () => paths.reduce((n, p) => n + Math.min(EVENTS, receiver.server.hits(p)), 0),
      EVENTS * paths.length,
    );
    await waitFor(
      'distinct ids',
      () => paths.every((p) => new Set(receiver.requests(p).map((r) => r.event.id)).size === EVENTS),
      10_000,
      500,
    );
    paths.forEach((p, i) => {
      const seen = receiver.requests(p);
      expect(new Set(seen.map((r) => r.event.id))).to.deep.equal(new Set(written));
      expect(
        seen.every((r) => signatureIsValid(endpoints[i]!.secret, r.headers, r.raw)),
        `signatures at ${p}`,
      ).to.equal(true);
    });
    const statuses = async () =>
      t.service.db
        .selectFrom('webhook_deliveries')
        .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
        .where(
          'endpoint_id',
          'in',
          endpoints.map((e) => e.id),
        )
        .groupBy('status')
        .execute();
    await waitForProgress(
      'all recorded as delivered',
      async () => Number((await statuses()).find((r) => r.status === 'delivered')?.n ?? 0),
      EVENTS * 3,
    );
    const rows = await statuses();
    expect(rows.map((r) => [r.status, Number(r.n)])).to.deep.equal([['delivered', EVENTS * 3]]);
  });
}
