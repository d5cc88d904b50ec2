import { expect } from 'chai';
import type { TestService } from '../../helpers/test-service.ts';
import { createEndpoint, deliveries, Receiver, sleep, waitFor, writeEvents } from '../webhook-test-helpers.ts';

const DAY = 24 * 3600 * 1000;

/** An endpoint failing continuously is disabled, and can be enabled again. */
export function endpointHealthCases(get: () => TestService, logLines: Array<Record<string, unknown>>): void {
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
  });
  after(() => receiver.close());

  it('disables an endpoint whose attempts failed for 5 days, with a log line, until it is enabled again', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    let up = false;
    // The first attempt fails at once (the failure streak starts); the retries are never answered, so the
    // delivery is still pending when the endpoint is disabled, however long a busy machine takes to get there
    // (answered 500, the fast retry schedule could be spent first).
    const endpoint = await createEndpoint(
      t,
      key,
      receiver.hook(`/failing-${resellerId}`, (n) => (up ? 200 : n === 1 ? 500 : 'hang')),
    );
    await writeEvents(t, { resellerId });
    const failingSince = await waitFor(
      'the failure streak',
      async () => (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data.failingSince,
    );

    // Four days and a half of failures is not yet enough.
    const { webhooks } = t.service.services;
    await t.service.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: new Date(Date.now() - 4.5 * DAY) })
      .where('id', '=', endpoint.id)
      .execute();
    await webhooks.sweep();
    expect((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data.enabled).to.equal(true);

    await t.service.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: new Date(Date.now() - 5 * DAY - 60_000) })
      .where('id', '=', endpoint.id)
      .execute();
    // The service's own sweep (every 300 ms) may get there first: one of the two disables it, once.
    await webhooks.sweep();
    const disabled = (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data;
    expect(disabled).to.include({ enabled: false, disabledReason: 'failing_continuously' });
    expect(disabled.disabledAt).to.be.a('string');
    expect(failingSince).to.be.a('string');
    expect(
      logLines.filter((l) => l.endpointId === endpoint.id && String(l.message).includes('disabled')),
    ).to.have.length(1);

    // While disabled it gets nothing new.
    up = true;
    const before = receiver.requests(`/failing-${resellerId}`).length;
    const [ignored] = await writeEvents(t, { resellerId });
    await sleep(1200);
    const late = receiver.requests(`/failing-${resellerId}`).slice(before);
    expect(
      late.filter((r) => r.event.id === ignored),
      'no new event',
    ).to.deep.equal([]);
    // A retry sent before the endpoint was disabled may reach the receiver only now; no later one comes.
    expect(late.length, 'no pending retry').to.be.at.most(1);
    // The retry under way ends at its timeout; the next one finds the endpoint disabled and closes the delivery.
    const log = (await waitFor('the delivery closed', async () => {
      const all = await deliveries(t, key, endpoint.id);
      return all.every((d) => d.status !== 'pending') ? all : undefined;
    }))!;
    expect(log.map((d) => [d.status, d.lastError])).to.deep.equal([['failed', 'endpoint disabled']]);

    const enabled = await t.api(key, 'POST', `/webhooks/${endpoint.id}/enable`);
    expect(enabled.status).to.equal(200);
    expect(enabled.body.data).to.include({ enabled: true, disabledAt: null, disabledReason: null, failingSince: null });
    const [eventId] = await writeEvents(t, { resellerId });
    await waitFor('delivery after enabling', () =>
      receiver.requests(`/failing-${resellerId}`).some((r) => r.event.id === eventId),
    );
  });
}
