import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { sendBytes } from '../helpers/https-server.ts';
import { describeEachBackend } from '../helpers/test-service.ts';
import { tinyHtml, tinyPdf } from '../print-files/print-file-fixtures.ts';
import { orderBody, placeOrder, PRODUCT, RECIPIENT, startFileServer } from './orders-helpers.ts';

async function eventsOf(db: any, orderId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('events')
    .select(['type', 'created_at', 'id'])
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r: { type: string }) => r.type);
}

describeEachBackend('orders', (get) => {
  let files: TestHttpsServer;
  before(async () => {
    files = await startFileServer();
  });
  after(() => files.close());

  async function funded(cents = 1_000_000, opts: { mode?: 'live' | 'test' } = {}) {
    const t = get();
    const r = await t.reseller(opts);
    if (cents > 0)
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: cents, mode: opts.mode ?? 'live' });
    return r;
  }

  describe('placement', () => {
    it('places a wallet-paid order: 201, SUBMITTED/PAID, one debit, events in the outbox', async () => {
      const t = get();
      const r = await funded();
      const res = await placeOrder(t, r.key, orderBody(files));
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const order = res.body.data;
      expect(order).to.include({
        state: 'SUBMITTED',
        status: 'PAID',
        source: 'API',
        duplicate: false,
        testMode: false,
      });
      expect(order.payment).to.include({ method: 'wallet', status: 'paid' });
      expect(order.totals.totalCents).to.be.a('number').greaterThan(0);
      expect(order.totals.totalCents).to.equal(
        order.totals.netCents + order.totals.shippingCents + order.totals.vatCents,
      );
      const line = order.lines[0];
      expect(line.unitPrice).to.match(/^\d+(\.\d+)?$/);
      expect(line.unitPriceCents).to.be.a('number');
      expect(line).to.have.property('discountCents');
      const wallet = (await t.api(r.key, 'GET', '/wallet')).body.data;
      expect(wallet.balanceCents).to.equal(1_000_000 - order.totals.totalCents);
      expect(wallet.entries.data[0]).to.include({
        kind: 'order_payment',
        amountCents: -order.totals.totalCents,
        orderId: order.id,
      });
      expect(await eventsOf(t.service.db, order.id)).to.deep.equal(['order.created', 'order.submitted']);
      expect((await t.api(r.key, 'GET', `/orders/${order.id}`)).body.data.id).to.equal(order.id);
    });

    it('answers, and writes its events, exactly as the stored order reads back', async () => {
      const t = get();
      const r = await funded();
      for (const body of [
        orderBody(files),
        orderBody(files, {
          lines: [
            { ...PRODUCT, fileUrl: `${files.url}/art/logo.eps` },
            { ...PRODUCT, quantity: 500 },
          ],
        }),
      ]) {
        const res = await placeOrder(t, r.key, body);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        const { duplicate: _d, ...placed } = res.body.data;
        const read = (await t.api(r.key, 'GET', `/orders/${placed.id}`)).body.data;
        // Byte for byte: the answer is built from the rows as written, in jsonb's key order.
        expect(JSON.stringify(placed)).to.equal(JSON.stringify(read));
        const events = await t.service.db
          .selectFrom('events')
          .select(['type', 'payload'])
          .where('order_id', '=', placed.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        const payloads = events.map(
          (e: { payload: any }) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data.order,
        );
        // (the outbox keeps payloads as jsonb, so their key order is its own)
        expect(payloads.at(-1)).to.deep.equal(read);
        // order.created is committed with the placement's last change: it carries the order as that
        // commit left it (paid at once, or waiting for a file), never a state the order was not in.
        expect(events.map((e: { type: string }) => e.type)).to.deep.equal([
          'order.created',
          read.state === 'SUBMITTED' ? 'order.submitted' : 'order.file_problem',
        ]);
        expect(payloads[0]).to.deep.equal(read);
      }
    });

    it('requires an Idempotency-Key', async () => {
      const t = get();
      const r = await funded();
      const res = await t.api(r.key, 'POST', '/orders', orderBody(files));
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.message).to.contain('Idempotency-Key');
    });

    it('answers a repeat with the same order, 200 and duplicate: true, and charges once', async () => {
      const t = get();
      const r = await funded();
      const body = orderBody(files);
      const key = randomUUID();
      const first = await placeOrder(t, r.key, body, key);
      const second = await placeOrder(t, r.key, body, key);
      expect(second.status).to.equal(200);
      expect(second.body.data.duplicate).to.equal(true);
      expect(second.body.data.id).to.equal(first.body.data.id);
      const ledger = (await t.api(r.key, 'GET', '/wallet')).body.data.entries.data;
      expect(ledger.filter((e: { kind: string }) => e.kind === 'order_payment')).to.have.length(1);
    });

    it('answers a repeat with its first order even when its file cannot be read any more, and charges once', async () => {
      const t = get();
      const r = await funded();
      const path = `/art/replaced-${randomUUID().slice(0, 8)}.pdf`;
      files.route(path, sendBytes(tinyPdf(), 'application/pdf'));
      const body = orderBody(files, { lines: [{ ...PRODUCT, fileUrl: `${files.url}${path}` }] });
      const key = randomUUID();
      const first = await placeOrder(t, r.key, body, key);
      expect(first.status).to.equal(201);
      files.route(path, sendBytes(tinyHtml(), 'text/html'));
      const second = await placeOrder(t, r.key, body, key);
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      expect(second.body.data).to.include({ id: first.body.data.id, duplicate: true });
      // The same key with another body that fails too: still the key's answer.
      const other = await placeOrder(t, r.key, { ...body, externalOrderId: 'other' }, key);
      expect(other.status).to.equal(422);
      expect(other.body.error.code).to.equal('idempotency_key_reused');
      const ledger = (await t.api(r.key, 'GET', '/wallet')).body.data.entries.data;
      expect(ledger.filter((e: { kind: string }) => e.kind === 'order_payment')).to.have.length(1);
    });

    it('refuses the same key with a different body', async () => {
      const t = get();
      const r = await funded();
      const key = randomUUID();
      await placeOrder(t, r.key, orderBody(files), key);
      const res = await placeOrder(t, r.key, orderBody(files, { externalOrderId: 'other' }), key);
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('idempotency_key_reused');
    });

    it('validates the body and names every field', async () => {
      const t = get();
      const r = await funded();
      const res = await placeOrder(t, r.key, { lines: [{ quantity: 0 }], recipient: { name: '' } });
      expect(res.status).to.equal(400);
      const fields = res.body.error.details.map((d: { field: string }) => d.field);
      expect(fields).to.include.members([
        'lines[0].quantity',
        'recipient.name',
        'recipient.address1',
        'recipient.country',
      ]);
      const none = await placeOrder(t, r.key, { recipient: RECIPIENT, lines: [] });
      expect(none.status).to.equal(400);
    });

    it("keeps the recipient's company and province: in the answer, on a read, in the order's events", async () => {
      const t = get();
      const r = await funded();
      const recipient = {
        name: 'Giulia Rossi',
        company: 'Tipografia Rossi S.r.l.',
        address1: 'Via Torino 12',
        postalCode: '20121',
        city: 'Milano',
        state: 'MI',
        country: 'IT',
      };
      const res = await placeOrder(t, r.key, orderBody(files, { recipient }));
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.data.recipient).to.deep.equal(recipient);
      expect((await t.api(r.key, 'GET', `/orders/${res.body.data.id}`)).body.data.recipient).to.deep.equal(recipient);
      const events = await t.service.db
        .selectFrom('events')
        .select('payload')
        .where('order_id', '=', res.body.data.id)
        .execute();
      expect(events).to.not.be.empty;
      for (const e of events)
        expect((typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).data.order.recipient).to.deep.equal(
          recipient,
        );
      const bad = await placeOrder(
        t,
        r.key,
        orderBody(files, { recipient: { ...recipient, state: '', company: 'x'.repeat(101) } }),
      );
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details.map((d: { field: string }) => d.field)).to.include.members([
        'recipient.state',
        'recipient.company',
      ]);
    });

    it('uses the reseller contact for the carrier when the recipient has none, and says so', async () => {
      const t = get();
      const r = await funded();
      const { email: _e, phone: _p, ...bare } = RECIPIENT;
      const res = await placeOrder(t, r.key, orderBody(files, { recipient: bare }));
      expect(res.body.data.carrierContact).to.deep.equal({ emailSource: 'reseller', phoneSource: 'reseller' });
      const withEmail = await placeOrder(
        t,
        r.key,
        orderBody(files, { recipient: { ...bare, email: 'x@example.com' } }),
      );
      expect(withEmail.body.data.carrierContact).to.deep.equal({ emailSource: 'recipient', phoneSource: 'reseller' });
    });

    it('never charges a sandbox order, and still submits it', async () => {
      const t = get();
      const r = await t.reseller({ mode: 'test' });
      const res = await placeOrder(t, r.key, orderBody(files));
      expect(res.status).to.equal(201);
      expect(res.body.data).to.include({ state: 'SUBMITTED', status: 'PAID', testMode: true });
      expect(res.body.data.payment.status).to.equal('not_charged');
      expect((await t.api(r.key, 'GET', '/wallet')).body.data.entries.data).to.deep.equal([]);
    });

    it('keeps test and live orders apart, and tenants apart', async () => {
      const t = get();
      const live = await funded();
      const order = (await placeOrder(t, live.key, orderBody(files))).body.data;
      const testKey = (await t.admin('POST', `/resellers/${live.id}/api-keys`, { mode: 'test' })).body.data.key;
      expect((await t.api(testKey, 'GET', `/orders/${order.id}`)).status).to.equal(404);
      const other = await funded(0);
      const res = await t.api(other.key, 'GET', `/orders/${order.id}`);
      expect(res.status).to.equal(404);
      expect((await t.api(other.key, 'POST', `/orders/${order.id}/cancel`)).status).to.equal(404);
      expect((await t.api(other.key, 'GET', '/orders')).body.data).to.deep.equal([]);
    });
  });

  describe('payment', () => {
    it('waits for funds without a card, and a top-up releases waiting orders oldest first', async () => {
      const t = get();
      const r = await funded(0);
      const a = (await placeOrder(t, r.key, orderBody(files))).body.data;
      const b = (await placeOrder(t, r.key, orderBody(files))).body.data;
      expect(a.state).to.equal('AWAITING_FUNDS');
      expect(b.state).to.equal('AWAITING_FUNDS');
      expect(await eventsOf(t.service.db, a.id)).to.deep.equal(['order.created', 'order.awaiting_funds']);
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: a.totals.totalCents });
      expect((await t.api(r.key, 'GET', `/orders/${a.id}`)).body.data.state).to.equal('SUBMITTED');
      expect((await t.api(r.key, 'GET', `/orders/${b.id}`)).body.data.state).to.equal('AWAITING_FUNDS');
      expect((await t.api(r.key, 'GET', '/wallet')).body.data.balanceCents).to.equal(0);
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: b.totals.totalCents + 5 });
      expect((await t.api(r.key, 'GET', `/orders/${b.id}`)).body.data.state).to.equal('SUBMITTED');
      expect((await t.api(r.key, 'GET', '/wallet')).body.data.balanceCents).to.equal(5);
    });

    it('charges the saved card when the wallet is short', async () => {
      const t = get();
      const r = await funded(0);
      await t.admin('PUT', `/resellers/${r.id}/card`, { token: 'tok_visa' });
      const res = await placeOrder(t, r.key, orderBody(files));
      expect(res.body.data).to.include({ state: 'SUBMITTED', status: 'PAID' });
      expect(res.body.data.payment).to.include({ method: 'card', status: 'paid' });
    });

    it('marks a declined card PAYMENT_FAILED', async () => {
      const t = get();
      const r = await funded(0);
      await t.admin('PUT', `/resellers/${r.id}/card`, { token: 'tok_chargeDeclined' });
      const res = await placeOrder(t, r.key, orderBody(files));
      expect(res.body.data).to.include({ state: 'PAYMENT_FAILED', status: 'PENDING' });
      expect(res.body.data.payment.error).to.contain('card_declined');
      expect(await eventsOf(t.service.db, res.body.data.id)).to.deep.equal(['order.created', 'order.payment_failed']);
    });

    it('refuses an unknown card token with 422, without echoing it (it may be a card number)', async () => {
      const t = get();
      const r = await funded(0);
      const res = await t.admin('PUT', `/resellers/${r.id}/card`, { token: '4242424242424242' });
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('card_rejected');
      expect(JSON.stringify(res.body)).not.to.contain('4242424242424242');
    });
  });

  describe('print files', () => {
    it('refuses an HTML page named .pdf with invalid_file_url naming the line, and writes nothing', async () => {
      const t = get();
      const r = await funded();
      const body = orderBody(files, {
        lines: [
          { ...PRODUCT, fileUrl: `${files.url}/art/flyer.pdf` },
          { ...PRODUCT, fileUrl: `${files.url}/art/fake.pdf` },
        ],
      });
      const res = await placeOrder(t, r.key, body);
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('invalid_file_url');
      expect(res.body.error.details).to.have.length(1);
      expect(res.body.error.details[0]).to.include({ line: 1, field: 'fileUrl', code: 'invalid_file_url' });
      expect((await t.api(r.key, 'GET', '/orders')).body.data).to.deep.equal([]);
      expect((await t.api(r.key, 'GET', '/wallet')).body.data.balanceCents).to.equal(1_000_000);
    });

    it('refuses a print file on a private address', async () => {
      const t = get();
      const r = await funded();
      const res = await placeOrder(
        t,
        r.key,
        orderBody(files, { lines: [{ ...PRODUCT, fileUrl: 'https://10.0.0.7/art.pdf' }] }),
      );
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('invalid_file_url');
    });

    it('holds an EPS line in AWAITING_FILE until the back-office confirms the conversion, then pays', async () => {
      const t = get();
      const r = await funded();
      const res = await placeOrder(
        t,
        r.key,
        orderBody(files, { lines: [{ ...PRODUCT, fileUrl: `${files.url}/art/logo.eps` }] }),
      );
      expect(res.status).to.equal(201);
      expect(res.body.data).to.include({ state: 'AWAITING_FILE', status: 'PENDING' });
      expect(res.body.data.lines[0].fileStatus).to.equal('needs_conversion');
      expect(await eventsOf(t.service.db, res.body.data.id)).to.deep.equal(['order.created', 'order.file_problem']);
      expect((await t.api(r.key, 'GET', '/wallet')).body.data.balanceCents).to.equal(1_000_000);
      const done = await t.admin('POST', `/orders/${res.body.data.id}/lines/0/conversion`, {
        fileUrl: `${files.url}/art/flyer.pdf`,
      });
      expect(done.status).to.equal(200);
      expect(done.body.data).to.include({ state: 'SUBMITTED', status: 'PAID' });
    });

    it('takes a missing file later through PUT /orders/{id}/lines/{line}/file', async () => {
      const t = get();
      const r = await funded();
      const res = await placeOrder(t, r.key, orderBody(files, { lines: [{ ...PRODUCT }] }));
      expect(res.body.data.state).to.equal('AWAITING_FILE');
      const bad = await t.api(r.key, 'PUT', `/orders/${res.body.data.id}/lines/0/file`, {
        fileUrl: `${files.url}/art/fake.pdf`,
      });
      expect(bad.status).to.equal(422);
      const good = await t.api(r.key, 'PUT', `/orders/${res.body.data.id}/lines/0/file`, {
        fileUrl: `${files.url}/art/poster.png`,
      });
      expect(good.status).to.equal(200);
      expect(good.body.data).to.include({ state: 'SUBMITTED', status: 'PAID' });
      const again = await t.api(r.key, 'PUT', `/orders/${res.body.data.id}/lines/0/file`, {
        fileUrl: `${files.url}/art/poster.png`,
      });
      expect(again.status).to.equal(409);
    });

    it('fetches an identical file URL once per order', async () => {
      const t = get();
      const r = await funded();
      const before = files.hits('/art/poster.png');
      const url = `${files.url}/art/poster.png`;
      const res = await placeOrder(
        t,
        r.key,
        orderBody(files, {
          lines: [
            { ...PRODUCT, fileUrl: url },
            { ...PRODUCT, fileUrl: url },
            { ...PRODUCT, fileUrl: url },
          ],
        }),
      );
      expect(res.status).to.equal(201);
      expect(files.hits('/art/poster.png') - before).to.equal(1);
    });
  });

  describe('cancel and production', () => {
    it('cancels an unpaid order', async () => {
      const t = get();
      const r = await funded(0);
      const order = (await placeOrder(t, r.key, orderBody(files))).body.data;
      const res = await t.api(r.key, 'POST', `/orders/${order.id}/cancel`);
      expect(res.body.data).to.include({ state: 'CANCELLED', status: 'CANCELLED' });
      expect((await t.api(r.key, 'POST', `/orders/${order.id}/cancel`)).status).to.equal(409);
    });

    it('cancels a paid order with a refund to the wallet', async () => {
      const t = get();
      const r = await funded();
      const order = (await placeOrder(t, r.key, orderBody(files))).body.data;
      const res = await t.api(r.key, 'POST', `/orders/${order.id}/cancel`);
      expect(res.body.data).to.include({ state: 'CANCELLED', status: 'REFUNDED' });
      const wallet = (await t.api(r.key, 'GET', '/wallet')).body.data;
      expect(wallet.balanceCents).to.equal(1_000_000);
      expect(wallet.entries.data[0]).to.include({ kind: 'order_refund', amountCents: order.totals.totalCents });
      expect(await eventsOf(t.service.db, order.id)).to.deep.equal([
        'order.created',
        'order.submitted',
        'order.cancelled',
      ]);
    });

    it('refuses to cancel once production started (409 order_not_cancellable)', async () => {
      const t = get();
      const r = await funded();
      const order = (await placeOrder(t, r.key, orderBody(files))).body.data;
      expect((await t.admin('POST', `/orders/${order.id}/production`, { status: 'PROCESSING' })).status).to.equal(200);
      const res = await t.api(r.key, 'POST', `/orders/${order.id}/cancel`);
      expect(res.status).to.equal(409);
      expect(res.body.error.code).to.equal('order_not_cancellable');
    });

    it('follows production reports to DELIVERED with tracking, and refuses illegal ones', async () => {
      const t = get();
      const r = await funded();
      const order = (await placeOrder(t, r.key, orderBody(files))).body.data;
      expect(
        (
          await t.admin('POST', `/orders/${order.id}/production`, {
            status: 'SHIPPED',
            tracking: { carrier: 'PostNL', trackingNumber: '3SABC', trackingUrl: 'https://postnl.example/3SABC' },
          })
        ).status,
      ).to.equal(409);
      for (const status of ['PROCESSING', 'PRINTING'])
        expect((await t.admin('POST', `/orders/${order.id}/production`, { status })).status).to.equal(200);
      expect((await t.admin('POST', `/orders/${order.id}/production`, { status: 'SHIPPED' })).status).to.equal(400);
      const shipped = await t.admin('POST', `/orders/${order.id}/production`, {
        status: 'SHIPPED',
        tracking: { carrier: 'PostNL', trackingNumber: '3SABC', trackingUrl: 'https://postnl.example/3SABC' },
      });
      expect(shipped.body.data.tracking).to.deep.equal({
        carrier: 'PostNL',
        trackingNumber: '3SABC',
        trackingUrl: 'https://postnl.example/3SABC',
      });
      expect(
        (await t.admin('POST', `/orders/${order.id}/production`, { status: 'DELIVERED' })).body.data.status,
      ).to.equal('DELIVERED');
      expect((await t.admin('POST', `/orders/${order.id}/production`, { status: 'PRINTING' })).status).to.equal(409);
      expect(await eventsOf(t.service.db, order.id)).to.deep.equal([
        'order.created',
        'order.submitted',
        'order.in_production',
        'order.shipped',
        'order.delivered',
      ]);
      const shippedEvent = await t.service.db
        .selectFrom('events')
        .select('payload')
        .where('order_id', '=', order.id)
        .where('type', '=', 'order.shipped')
        .executeTakeFirstOrThrow();
      expect((shippedEvent.payload as any).data.tracking.trackingNumber).to.equal('3SABC');
      expect((shippedEvent.payload as any).data.order.status).to.equal('SHIPPED');
    });
  });

  describe('listing', () => {
    it('lists newest first with every filter, and refuses bad filters', async () => {
      const t = get();
      const r = await funded(0);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await placeOrder(t, r.key, orderBody(files, { externalOrderId: `ext-${i}` }))).body.data.id);
      const list = await t.api(r.key, 'GET', '/orders');
      expect(list.body.data.map((o: { id: string }) => o.id)).to.deep.equal([...ids].reverse());
      expect(
        (await t.api(r.key, 'GET', '/orders?externalOrderId=ext-1')).body.data.map((o: { id: string }) => o.id),
      ).to.deep.equal([ids[1]]);
      expect((await t.api(r.key, 'GET', '/orders?state=AWAITING_FUNDS')).body.data).to.have.length(3);
      expect((await t.api(r.key, 'GET', '/orders?state=SUBMITTED')).body.data).to.have.length(0);
      expect((await t.api(r.key, 'GET', '/orders?status=PENDING&source=API')).body.data).to.have.length(3);
      expect(
        (
          await t.api(
            r.key,
            'GET',
            `/orders?createdFrom=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
          )
        ).body.data,
      ).to.have.length(0);
      expect((await t.api(r.key, 'GET', '/orders?createdTo=2020-01-01T00:00:00Z')).body.data).to.have.length(0);
      const page = await t.api(r.key, 'GET', '/orders?limit=2');
      expect(page.body.data).to.have.length(2);
      const next = await t.api(r.key, 'GET', `/orders?limit=2&cursor=${page.body.nextCursor}`);
      expect(next.body.data.map((o: { id: string }) => o.id)).to.deep.equal([ids[0]]);
      for (const bad of [
        'state=SHIPPING',
        'status=LOST',
        'source=MYSPACE',
        'createdFrom=yesterday',
        'createdTo=2026-13-45',
      ]) {
        const res = await t.api(r.key, 'GET', `/orders?${bad}`);
        expect(res.status, bad).to.equal(400);
      }
    });
  });
});
