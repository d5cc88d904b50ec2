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
    const endpoint = await createEndpoint(
      t,
      key,
      receiver.hook(`/failing-${resellerId}`, () => (up ? 200 : 500)),
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
    expect((await webhooks.sweep()).disabled).to.equal(1);
    const disabled = (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data;
    expect(disabled).to.include({ enabled: false, disabledReason: 'failing_continuously' });
    expect(disabled.disabledAt).to.be.a('string');
    expect(failingSince).to.be.a('string');
    expect(logLines.some((l) => l.endpointId === endpoint.id && String(l.message).includes('disabled'))).to.equal(true);

    // While disabled it gets nothing new.
    up = true;
    const before = receiver.requests(`/failing-${resellerId}`).length;
    await writeEvents(t, { resellerId });
    await sleep(1200);
    expect(
      receiver.requests(`/failing-${resellerId}`).length - before,
      'neither new events nor pending retries',
    ).to.equal(0);
    const log = await deliveries(t, key, endpoint.id);
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
