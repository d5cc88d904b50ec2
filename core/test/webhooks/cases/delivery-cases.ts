import { expect } from 'chai';
import type { TestService } from '../../helpers/test-service.ts';
import { isSubscribed } from '../../../src/modules/webhooks/webhook-event-types.ts';
import { verifyWebhook, WebhookVerificationError } from '../../../../packages/sdk/src/index.ts';
import {
  createEndpoint,
  deliveries,
  FAST_WEBHOOKS,
  Receiver,
  signatureIsValid,
  sleep,
  waitFor,
  writeEvents,
} from '../webhook-test-helpers.ts';

/**
 * Delivery: signature, headers, retries, timeouts, redirects, deletion, modes, SSRF at send time, redelivery, ping, the
 * log.
 */
export function deliveryCases(get: () => TestService): void {
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
  });
  after(() => receiver.close());

  it('POSTs the signed event with the documented headers, to subscribed endpoints only', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const url = receiver.hook('/signed');
    const endpoint = await createEndpoint(t, key, url, ['order.shipped']);
    const tracking = { carrier: 'PostNL', trackingNumber: '3SABC123', trackingUrl: 'https://track.example/3SABC123' };
    await writeEvents(t, { resellerId, type: 'order.created' });
    const [eventId] = await writeEvents(t, {
      resellerId,
      type: 'order.shipped',
      data: () => ({ order: { id: 'ord_x', status: 'SHIPPED', tracking }, tracking }),
    });
    await waitFor('the shipped event', () => receiver.requests('/signed').length > 0);
    const [request] = receiver.requests('/signed');
    await sleep(300);
    expect(receiver.requests('/signed'), 'order.created is not subscribed').to.have.length(1);

    const { headers, raw, event } = request!;
    expect(signatureIsValid(endpoint.secret, headers, raw)).to.equal(true);
    expect(signatureIsValid(`${endpoint.secret}x`, headers, raw)).to.equal(false);
    expect(headers['content-type']).to.equal('application/json');
    expect(headers['user-agent']).to.match(/^print-api-webhooks\//);
    expect(headers['x-service-event']).to.equal('order.shipped');
    expect(headers['x-service-delivery']).to.match(/^whd_/);
    expect(Math.abs(Number(headers['x-service-timestamp']) - Date.now() / 1000)).to.be.below(5);
    expect(String(headers['x-service-signature'])).to.match(/^v1=[0-9a-f]{64}$/);
    expect(Object.keys(event)).to.deep.equal(['id', 'type', 'createdAt', 'testMode', 'data']);
    expect(event).to.deep.include({ id: eventId, type: 'order.shipped', testMode: false });
    expect(event.data.tracking).to.deep.equal(tracking);

    const [delivery] = await waitFor(
      'the delivery log',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.status === 'delivered') &&
        deliveries(t, key, endpoint.id),
    );
    expect(delivery).to.include({
      id: headers['x-service-delivery'],
      eventId,
      eventType: 'order.shipped',
      status: 'delivered',
      attemptCount: 1,
      lastStatusCode: 200,
    });
    expect(delivery.attempts[0]).to.include({ attempt: 1, statusCode: 200, succeeded: true, trigger: 'scheduled' });
  });

  it('fans each event out to exactly the endpoints isSubscribed names, and a ping to none', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const subscriptions = [['*'], ['order.created'], ['order.shipped', 'order.cancelled']];
    const endpoints: Array<{ id: string; events: string[] }> = [];
    for (const [i, events] of subscriptions.entries())
      endpoints.push({ ...(await createEndpoint(t, key, receiver.hook(`/fan-${i}`), events)), events });
    const types = ['order.created', 'order.shipped', 'order.cancelled', 'ping'];
    const written: Array<{ type: string; id: string }> = [];
    for (const type of types) written.push({ type, id: (await writeEvents(t, { resellerId, type }))[0]! });
    const ids = written.map((w) => w.id);
    await waitFor(
      'every event fanned out',
      async () =>
        (
          await t.service.db
            .selectFrom('events')
            .select('id')
            .where('id', 'in', ids)
            .where('dispatched_at', 'is', null)
            .execute()
        ).length === 0,
    );
    const rows = await t.service.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'endpoint_id', 'event_type'])
      .where('event_id', 'in', ids)
      .execute();
    const made = rows.map((r) => `${r.event_id}>${r.endpoint_id}`).sort();
    const expected = written
      .flatMap((w) => endpoints.filter((e) => isSubscribed(e.events, w.type)).map((e) => `${w.id}>${e.id}`))
      .sort();
    expect(made).to.deep.equal(expected);
    expect(
      rows.every(
        (r) =>
          /^whd_[0-9A-HJKMNP-TV-Z]{26}$/.test(r.id) && r.event_type === written.find((w) => w.id === r.event_id)!.type,
      ),
    ).to.equal(true);
  });

  it('retries a receiver that answers 500 twice then 200: the same event id three times', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const endpoint = await createEndpoint(
      t,
      key,
      receiver.hook('/flaky', (n) => (n <= 2 ? 500 : 200)),
    );
    const [eventId] = await writeEvents(t, { resellerId });
    await waitFor('three attempts', () => receiver.requests('/flaky').length >= 3);
    const seen = receiver.requests('/flaky');
    expect(seen.map((r) => r.event.id)).to.deep.equal([eventId, eventId, eventId]);
    expect(new Set(seen.map((r) => r.headers['x-service-delivery'])).size, 'one delivery id across attempts').to.equal(
      1,
    );
    expect(seen.map((r) => r.headers['x-service-attempt'])).to.deep.equal(['1', '2', '3']);
    for (const r of seen) expect(signatureIsValid(endpoint.secret, r.headers, r.raw)).to.equal(true);

    const [delivery] = await waitFor(
      'delivered',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.status === 'delivered') &&
        deliveries(t, key, endpoint.id),
    );
    expect(delivery.attemptCount).to.equal(3);
    expect(delivery.attempts.map((a: any) => a.statusCode)).to.deep.equal([500, 500, 200]);
    expect(delivery.attempts[0].error).to.match(/^HTTP 500/);
    expect(delivery.nextAttemptAt).to.equal(null);
    // The streak is written just after the outcome (its own statement): a moment later, not with it.
    const ep = await waitFor(
      'the failure streak ended',
      async () => {
        const e = (await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data;
        return e.failingSince === null ? e : undefined;
      },
      10_000,
      250,
    );
    expect(ep.failingSince, 'a success ends the failure streak').to.equal(null);
  });

  it('retries a receiver that does not answer within the timeout', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const endpoint = await createEndpoint(
      t,
      key,
      // The first request is never answered: only the sender's own timeout can end it.
      receiver.hook('/slow', (n) => (n === 1 ? 'hang' : 200)),
    );
    const [eventId] = await writeEvents(t, { resellerId });
    const [delivery] = await waitFor(
      'delivered on the retry',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.status === 'delivered') &&
        deliveries(t, key, endpoint.id),
    );
    // Cut off at the send timeout (FAST_WEBHOOKS), not before it.
    const timeoutMs = FAST_WEBHOOKS.webhooks!.timeoutMs!;
    expect(delivery.attempts[0].error).to.equal(`timeout: no answer within ${timeoutMs} ms`);
    expect(delivery.attempts[0].latencyMs).to.be.at.least(timeoutMs - 100);
    expect(delivery.attempts[1]).to.include({ statusCode: 200, succeeded: true });
    expect(receiver.requests('/slow').map((r) => r.event.id)).to.deep.equal([eventId, eventId]);
  });

  it('does not follow redirects: a 3xx is a failure', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    receiver.hook('/moved-here');
    const endpoint = await createEndpoint(
      t,
      key,
      receiver.hook('/moved', () => ({ location: '/moved-here' })),
    );
    await writeEvents(t, { resellerId });
    const [delivery] = await waitFor(
      'a failed attempt',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.attempts.length > 0) && deliveries(t, key, endpoint.id),
    );
    expect(delivery.attempts[0]).to.include({ statusCode: 302, succeeded: false });
    expect(delivery.attempts[0].error).to.include('redirects are not followed');
    expect(receiver.requests('/moved-here')).to.have.length(0);
  });

  it('stops retrying once the endpoint is deleted', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const endpoint = await createEndpoint(
      t,
      key,
      receiver.hook('/deleted', () => 503),
    );
    await writeEvents(t, { resellerId });
    await waitFor('the first attempt', () => receiver.requests('/deleted').length === 1);
    expect((await t.api(key, 'DELETE', `/webhooks/${endpoint.id}`)).status).to.equal(200);
    const afterDelete = receiver.requests('/deleted').length;
    await sleep(1500); // several retry periods of the fast schedule
    expect(receiver.requests('/deleted').length).to.equal(afterDelete);
    expect(afterDelete).to.be.at.most(2); // an attempt already on the wire when DELETE arrived may still land
    const rows = await t.service.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows.map((r) => r.status)).to.deep.equal(['cancelled']);
  });

  it('never sends live events to a test key’s endpoint, nor test events to a live one', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const testKey = (await t.admin('POST', `/resellers/${resellerId}/api-keys`, { mode: 'test' })).body.data.key;
    await createEndpoint(t, key, receiver.hook('/live'));
    await createEndpoint(t, testKey, receiver.hook('/sandbox'));
    const [liveEvent] = await writeEvents(t, { resellerId, mode: 'live' });
    const [testEvent] = await writeEvents(t, { resellerId, mode: 'test' });
    await waitFor(
      'both deliveries',
      () => receiver.requests('/live').length === 1 && receiver.requests('/sandbox').length === 1,
    );
    await sleep(300);
    expect(receiver.requests('/live').map((r) => [r.event.id, r.event.testMode])).to.deep.equal([[liveEvent, false]]);
    expect(receiver.requests('/sandbox').map((r) => [r.event.id, r.event.testMode])).to.deep.equal([[testEvent, true]]);
  });

  it('refuses an SSRF target at send time and keeps retrying', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const endpoint = await createEndpoint(t, key, receiver.hook('/rebound'));
    // As if the host's DNS now pointed at a private address: 127.0.0.1 is not allow-listed, localhost is.
    const privateUrl = `https://127.0.0.1:${receiver.server.port}/rebound`;
    await t.service.db
      .updateTable('webhook_endpoints')
      .set({ url: privateUrl })
      .where('id', '=', endpoint.id)
      .execute();
    await writeEvents(t, { resellerId });
    const [delivery] = await waitFor(
      'two refused attempts',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.attempts.length >= 2) && deliveries(t, key, endpoint.id),
    );
    expect(delivery.status).to.be.oneOf(['pending', 'failed']);
    expect(delivery.attempts[0].statusCode).to.equal(null);
    expect(delivery.attempts[0].error).to.match(/^address_blocked/);
    expect(receiver.requests('/rebound')).to.have.length(0);
  });

  it('marks a delivery failed when the schedule is spent, and redelivers it on request', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    let up = false;
    const endpoint = await createEndpoint(
      t,
      key,
      receiver.hook('/down', () => (up ? 200 : 500)),
    );
    const [eventId] = await writeEvents(t, { resellerId });
    const [failed] = await waitFor(
      'failed',
      async () =>
        (await deliveries(t, key, endpoint.id)).find((d) => d.status === 'failed') && deliveries(t, key, endpoint.id),
      10_000,
    );
    expect(failed.attemptCount).to.equal(4); // 1 + the 3 retries of the fast schedule
    expect(failed.nextAttemptAt).to.equal(null);
    expect((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data.failingSince).to.be.a('string');

    up = true;
    const retried = await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`);
    expect(retried.status).to.equal(200);
    expect(retried.body.data).to.include({ id: failed.id, status: 'delivered', attemptCount: 5, lastStatusCode: 200 });
    expect(retried.body.data.attempts.at(-1)).to.include({ attempt: 5, trigger: 'manual', succeeded: true });
    const seen = receiver.requests('/down');
    expect(seen).to.have.length(5);
    expect(new Set(seen.map((r) => r.event.id))).to.deep.equal(new Set([eventId]));
    expect(signatureIsValid(endpoint.secret, seen.at(-1)!.headers, seen.at(-1)!.raw)).to.equal(true);
    expect((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data.failingSince).to.equal(null);
    expect((await t.api(key, 'POST', `/webhooks/${endpoint.id}/deliveries/whd_nope/retry`)).status).to.equal(404);
  });

  it('sends a signed ping on POST /webhooks/{id}/test, once', async () => {
    const t = get();
    const { key } = await t.reseller();
    const endpoint = await createEndpoint(t, key, receiver.hook('/ping'));
    const res = await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ eventType: 'ping', status: 'delivered', attemptCount: 1, lastStatusCode: 200 });
    const [ping] = receiver.requests('/ping');
    expect(signatureIsValid(endpoint.secret, ping!.headers, ping!.raw)).to.equal(true);
    expect(ping!.headers['x-service-event']).to.equal('ping');
    expect(ping!.event).to.deep.include({
      id: res.body.data.eventId,
      type: 'ping',
      testMode: false,
      data: { webhookId: endpoint.id },
    });

    const failing = await createEndpoint(
      t,
      key,
      receiver.hook('/ping-fails', () => 500),
    );
    const failed = await t.api(key, 'POST', `/webhooks/${failing.id}/test`);
    expect(failed.body.data).to.include({ status: 'failed', lastStatusCode: 500, nextAttemptAt: null });
    await sleep(800);
    expect(receiver.requests('/ping-fails'), 'a ping is not retried').to.have.length(1);
  });

  it('rotates the secret: the new one shown once, both sign until the previous one expires, 0 retires it at once', async () => {
    const t = get();
    const { key } = await t.reseller();
    const endpoint = await createEndpoint(t, key, receiver.hook('/rotate'));
    const rotated = await t.api(key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, {});
    expect(rotated.status).to.equal(200);
    const second: string = rotated.body.data.secret;
    expect(second)
      .to.match(/^whsec_[A-Za-z0-9_-]{43}$/)
      .and.not.equal(endpoint.secret);
    const overlapMs = Date.parse(rotated.body.data.previousSecretExpiresAt) - Date.now();
    expect(overlapMs).to.be.within(24 * 3_600_000 - 60_000, 24 * 3_600_000);
    const read = await t.api(key, 'GET', `/webhooks/${endpoint.id}`);
    expect(read.body.data.previousSecretExpiresAt).to.equal(rotated.body.data.previousSecretExpiresAt);
    expect(JSON.stringify(read.body)).to.not.include(second.slice(6)).and.not.include(endpoint.secret.slice(6));

    // During the overlap: v1=<new>,v1=<previous>, each checked on its own, and the SDK takes either secret.
    await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`);
    const during = receiver.requests('/rotate').at(-1)!;
    const [withNew, withPrevious, ...more] = String(during.headers['x-service-signature']).split(',');
    expect(more).to.deep.equal([]);
    expect(signatureIsValid(second, { ...during.headers, 'x-service-signature': withNew }, during.raw)).to.equal(true);
    expect(
      signatureIsValid(endpoint.secret, { ...during.headers, 'x-service-signature': withPrevious }, during.raw),
    ).to.equal(true);
    expect(verifyWebhook(during.raw, during.headers, endpoint.secret).type).to.equal('ping');
    expect(verifyWebhook(during.raw, during.headers, second).type).to.equal('ping');

    // Once the previous secret has expired, only the current one signs.
    await t.service.db
      .updateTable('webhook_endpoints')
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', endpoint.id)
      .execute();
    expect((await t.api(key, 'GET', `/webhooks/${endpoint.id}`)).body.data.previousSecretExpiresAt).to.equal(null);
    await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`);
    const expired = receiver.requests('/rotate').at(-1)!;
    expect(String(expired.headers['x-service-signature']).split(',')).to.have.length(1);
    expect(() => verifyWebhook(expired.raw, expired.headers, endpoint.secret)).to.throw(WebhookVerificationError);

    // expiresInHours 0: the secret it replaces stops signing at once.
    const third = await t.api(key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, { expiresInHours: 0 });
    expect(third.body.data.previousSecretExpiresAt).to.equal(null);
    await t.api(key, 'POST', `/webhooks/${endpoint.id}/test`);
    const after = receiver.requests('/rotate').at(-1)!;
    expect(signatureIsValid(third.body.data.secret, after.headers, after.raw)).to.equal(true);
    expect(() => verifyWebhook(after.raw, after.headers, second)).to.throw(WebhookVerificationError);
    const row = await t.service.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.previous_secret_sealed).to.equal(null);
    expect(row.secret_sealed).to.not.include(third.body.data.secret.slice(6));
  });

  it('answers a malformed rotation with 400, and another account’s or a deleted endpoint with 404', async () => {
    const t = get();
    const { key } = await t.reseller();
    const endpoint = await createEndpoint(t, key, receiver.hook('/rotate-bad'));
    for (const body of [
      { expiresInHours: -1 },
      { expiresInHours: 169 },
      { expiresInHours: 1.5 },
      { expiresInHours: 'soon' },
      { keep: true },
    ]) {
      const res = await t.api(key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
    }
    const other = await t.reseller();
    expect((await t.api(other.key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, {})).status).to.equal(404);
    expect((await t.api(key, 'DELETE', `/webhooks/${endpoint.id}`)).status).to.equal(200);
    expect((await t.api(key, 'POST', `/webhooks/${endpoint.id}/rotate-secret`, {})).status).to.equal(404);
    expect(receiver.requests('/rotate-bad')).to.deep.equal([]);
  });

  it('pages the delivery log and filters it by status', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    const endpoint = await createEndpoint(t, key, receiver.hook('/log'));
    await writeEvents(t, { resellerId, count: 5 });
    await waitFor('five deliveries', () => receiver.requests('/log').length === 5);
    await waitFor(
      'all recorded',
      async () => (await deliveries(t, key, endpoint.id)).filter((d) => d.status === 'delivered').length === 5,
    );
    const first = await t.api(key, 'GET', `/webhooks/${endpoint.id}/deliveries?limit=3`);
    expect(first.body.data).to.have.length(3);
    const second = await t.api(
      key,
      'GET',
      `/webhooks/${endpoint.id}/deliveries?limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.data).to.have.length(2);
    expect(new Set([...first.body.data, ...second.body.data].map((d: any) => d.id)).size).to.equal(5);
    expect((await t.api(key, 'GET', `/webhooks/${endpoint.id}/deliveries?status=failed`)).body.data).to.have.length(0);
    const other = await t.reseller();
    expect((await t.api(other.key, 'GET', `/webhooks/${endpoint.id}/deliveries`)).status).to.equal(404);
  });
}
