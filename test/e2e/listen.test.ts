import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { verifyWebhook } from '../../packages/sdk/src/index.ts';
import { startTestService, type TestService } from '../../core/test/helpers/test-service.ts';
import { waitFor, scaled } from '../../core/test/helpers/wait.ts';
import { readServerSentEvents } from '../../packages/sdk/src/server-sent-events.ts';
import {
  sampleFileUrl,
  sandboxOrderBody,
  startListen,
  startLocalReceiver,
  type ListenProcess,
  type LocalReceiver,
} from './listen-helpers.ts';

const JOURNEY = ['order.created', 'order.submitted', 'order.in_production', 'order.shipped', 'order.delivered'];

for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`listen: events streamed from the service and delivered signed to a local URL [${backend}]`, function () {
    this.timeout(scaled(120_000));
    let t: TestService;
    /** The sample PDF the service serves to test keys: sandbox orders need no file host. */
    let fileUrl = '';
    let receiver: LocalReceiver;
    let listening: ListenProcess | undefined;

    before(async function () {
      // The sandbox simulator moves a test order through production a step every 100 ms.
      t = await startTestService(this, backend, { PRODUCTION_SIMULATOR_STEP_MS: '100' });
      const r = await t.reseller({ mode: 'test' });
      fileUrl = await sampleFileUrl(t, r.key);
    });
    beforeEach(async () => {
      receiver = await startLocalReceiver();
    });
    afterEach(async () => {
      await listening?.stop();
      listening = undefined;
      await receiver.close();
    });
    after(async () => {
      await t?.close();
    });

    function bodiesOf(received: LocalReceiver['received'], secret: string) {
      return received.map((r) => verifyWebhook(r.body, r.headers, secret));
    }

    it('`npm run admin -- listen` forwards a sandbox order’s events, each signed with the printed session secret, to a plain-HTTP localhost receiver', async () => {
      const r = await t.reseller({ mode: 'test' });
      listening = await startListen([r.id, '--forward-to', receiver.url], {
        PUBLIC_URL: t.baseUrl,
        ADMIN_TOKEN: t.service.adminToken,
      });
      expect(listening.lines.join('\n')).to.match(
        /Listening for test events, forwarding to http:\/\/127\.0\.0\.1:\d+\/hooks/,
      );

      const placed = await t.api(r.key, 'POST', '/orders', sandboxOrderBody(fileUrl), {
        'idempotency-key': randomUUID(),
      });
      expect(placed.status).to.equal(201);
      const orderId = placed.body.data.id as string;
      await waitFor(
        'order.delivered at the local receiver',
        () => bodiesOf(receiver.received, listening!.secret).some((e) => e.type === 'order.delivered'),
        60_000,
      );

      const events = bodiesOf(receiver.received, listening.secret);
      expect(events.map((e) => e.type)).to.deep.equal(JOURNEY);
      for (const e of events) {
        expect(e.testMode).to.equal(true);
        expect((e.data as { order: { id: string } }).order.id).to.equal(orderId);
      }
      // The headers of a real delivery, and the body exactly as the outbox stored it.
      const first = receiver.received[0]!;
      expect(first.headers['x-service-event']).to.equal('order.created');
      expect(first.headers['x-service-delivery']).to.match(/^dlv_/);
      expect(first.headers['x-service-attempt']).to.equal('1');
      expect(first.headers['content-type']).to.equal('application/json');
      const stored = await t.service.db
        .selectFrom('events')
        .select(['id', 'type'])
        .where('order_id', '=', orderId)
        .orderBy('id')
        .execute();
      expect(events.map((e) => e.id)).to.deep.equal(stored.map((s) => s.id));
      // Another secret does not verify: the signature is the session's.
      expect(() => verifyWebhook(first.body, first.headers, 'whsec_other')).to.throw(/signature/);
    });

    it('streams only the mode asked for (test by default) and the types asked for, with --secret reused', async () => {
      const r = await t.reseller({ mode: 'test' });
      const live = await t.admin('POST', `/resellers/${r.id}/api-keys`, { mode: 'live' });
      const secret = 'whsec_listen-session-secret-for-the-test';
      listening = await startListen(
        [r.id, '--forward-to', receiver.url, '--events', 'order.created', '--secret', secret],
        {
          PUBLIC_URL: t.baseUrl,
          ADMIN_TOKEN: t.service.adminToken,
        },
      );
      expect(listening.secret).to.equal(secret);
      // A live order (no file: it waits in AWAITING_FILE; sample files are for test keys) must not arrive; the test one
      // must.
      const liveBody = { ...sandboxOrderBody(fileUrl), lines: [{ productId: 'business-cards', quantity: 250 }] };
      const liveOrder = await t.api(live.body.data.key, 'POST', '/orders', liveBody, {
        'idempotency-key': randomUUID(),
      });
      expect(liveOrder.status).to.equal(201);
      const testOrder = await t.api(r.key, 'POST', '/orders', sandboxOrderBody(fileUrl), {
        'idempotency-key': randomUUID(),
      });
      await waitFor('the test order.created', () =>
        bodiesOf(receiver.received, secret).some((e) => (e.data as any).order.id === testOrder.body.data.id),
      );
      // Wait for the sandbox order's journey to end, then nothing but its order.created came.
      await waitFor(
        'the test order delivered',
        async () => (await t.api(r.key, 'GET', `/orders/${testOrder.body.data.id}`)).body.data.status === 'DELIVERED',
        60_000,
      );
      const events = bodiesOf(receiver.received, secret);
      expect(events.map((e) => `${e.type} ${(e.data as any).order.id}`)).to.deep.equal([
        `order.created ${testOrder.body.data.id}`,
      ]);
    });

    it('retries a local delivery the receiver refused, signed afresh with the next attempt number', async () => {
      const r = await t.reseller({ mode: 'test' });
      receiver.status = 503;
      listening = await startListen([r.id, '--forward-to', receiver.url, '--events', 'order.created'], {
        PUBLIC_URL: t.baseUrl,
        ADMIN_TOKEN: t.service.adminToken,
      });
      await t.api(r.key, 'POST', '/orders', sandboxOrderBody(fileUrl), { 'idempotency-key': randomUUID() });
      await waitFor('a first refused attempt', () => receiver.received.length >= 1, 30_000);
      receiver.status = 200;
      await waitFor('a second attempt', () => receiver.received.length >= 2, 30_000);
      const [a, b] = receiver.received;
      expect([a!.headers['x-service-attempt'], b!.headers['x-service-attempt']]).to.deep.equal(['1', '2']);
      expect(b!.headers['x-service-delivery']).to.equal(a!.headers['x-service-delivery']);
      expect(verifyWebhook(b!.body, b!.headers, listening.secret).type).to.equal('order.created');
    });

    it('GET /events/stream with a test key: a ready message, then each event as the webhook body; Last-Event-ID resumes after it', async () => {
      const r = await t.reseller({ mode: 'test' });
      const open = async (headers: Record<string, string> = {}) => {
        const abort = new AbortController();
        const res = await fetch(`${t.baseUrl}/api/reseller/v1/events/stream`, {
          headers: { authorization: `Bearer ${r.key}`, 'user-agent': 'print-api-tests/1.0', ...headers },
          signal: abort.signal,
        });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
        return { messages: readServerSentEvents(res.body!), abort };
      };
      const first = await open();
      expect((await first.messages.next()).value?.event).to.equal('ready');
      const placed = await t.api(r.key, 'POST', '/orders', sandboxOrderBody(fileUrl), {
        'idempotency-key': randomUUID(),
      });
      const created = (await first.messages.next()).value!;
      expect(created.event).to.equal('order.created');
      const body = JSON.parse(created.data);
      expect(Object.keys(body)).to.deep.equal(['id', 'type', 'createdAt', 'testMode', 'data']);
      expect(body.data.order.id).to.equal(placed.body.data.id);
      expect(created.id).to.equal(body.id);
      first.abort.abort();

      // Reconnecting after order.created replays what came next (at least order.submitted).
      const again = await open({ 'last-event-id': created.id! });
      expect((await again.messages.next()).value?.event).to.equal('ready');
      expect((await again.messages.next()).value?.event).to.equal('order.submitted');
      again.abort.abort();

      const bad = await fetch(`${t.baseUrl}/api/reseller/v1/events/stream?types=order.exploded`, {
        headers: { authorization: `Bearer ${r.key}`, 'user-agent': 'print-api-tests/1.0' },
      });
      expect(bad.status).to.equal(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).to.equal('invalid_request');
    });
  });
}
