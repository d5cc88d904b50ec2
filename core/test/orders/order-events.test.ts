import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ChargeResult } from '../../src/modules/payments/payment-gateway.ts';
import { SandboxGateway } from '../../src/modules/payments/sandbox-gateway.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { describeEachBackend, type TestService } from '../helpers/test-service.ts';
import { waitFor } from '../helpers/wait.ts';
import { orderBody, placeOrder, PRODUCT, startFileServer } from './orders-helpers.ts';

/** The sandbox gateway, whose charges can be held: meanwhile the order stands committed as `charging`. */
class HeldGateway extends SandboxGateway {
  #gate: Promise<void> = Promise.resolve();
  #open: () => void = () => undefined;
  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }
  release(): void {
    this.#open();
  }
  override async charge(input: {
    paymentMethod: string;
    amountCents: number;
    idempotencyKey: string;
  }): Promise<ChargeResult> {
    await this.#gate;
    return super.charge(input);
  }
}

const gateway = new HeldGateway();

/** An order's events as stored in the outbox, in the order they were written, each with the order it carries. */
async function storedEvents(t: TestService, orderId: string): Promise<Array<{ type: string; order: any }>> {
  const rows = await t.service.db
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
  return rows.map((r) => {
    const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { data: { order: unknown } };
    return { type: r.type, order: payload.data.order };
  });
}

/**
 * Follows one order through the steps a test takes: after each step, the events that step wrote
 * must carry the order exactly as GET /orders/{id} shows it then (every event of a step is
 * committed with the step's last change, or checked at its own commit by the test).
 */
class OrderFollower {
  readonly #t: TestService;
  readonly #key: string;
  readonly orderId: string;
  #seen = 0;
  #updatedAt = '';
  readonly types: string[] = [];

  constructor(t: TestService, key: string, orderId: string) {
    this.#t = t;
    this.#key = key;
    this.orderId = orderId;
  }

  /** The events written since the last check, each carrying the order GET shows now: their types. */
  async check(step: string): Promise<string[]> {
    const current = await this.#t.api(this.#key, 'GET', `/orders/${this.orderId}`);
    expect(current.status).to.equal(200);
    const events = await storedEvents(this.#t, this.orderId);
    const fresh = events.slice(this.#seen);
    this.#seen = events.length;
    for (const e of fresh) {
      expect(
        e.order,
        `${step}: ${e.type} carries ${e.order.state}/${e.order.status}, GET shows ${current.body.data.state}/${current.body.data.status}`,
      ).to.deep.equal(current.body.data);
    }
    // A step's changes are later than the last step's: a receiver orders the events by updatedAt.
    if (fresh.length > 0) {
      expect(
        current.body.data.updatedAt > this.#updatedAt,
        `${step}: updatedAt ${current.body.data.updatedAt} after ${this.#updatedAt}`,
      ).to.equal(true);
      this.#updatedAt = current.body.data.updatedAt;
    }
    const types = fresh.map((e) => e.type);
    this.types.push(...types);
    return types;
  }
}

describeEachBackend(
  'order events carry the order as committed with them',
  (get) => {
    let files: TestHttpsServer;
    before(async () => {
      files = await startFileServer();
    });
    after(() => files.close());

    async function reseller(opts: { fundsCents?: number; mode?: 'live' | 'test'; card?: string } = {}) {
      const t = get();
      const r = await t.reseller(opts.mode ? { mode: opts.mode } : {});
      if (opts.fundsCents)
        await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, {
          amountCents: opts.fundsCents,
          mode: opts.mode ?? 'live',
        });
      if (opts.card)
        expect((await t.admin('PUT', `/resellers/${r.id}/card`, { token: opts.card })).status).to.equal(200);
      return r;
    }

    async function place(key: string, body: unknown): Promise<OrderFollower> {
      const res = await placeOrder(get(), key, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return new OrderFollower(get(), key, res.body.data.id);
    }

    it('wallet-paid: created and submitted both say SUBMITTED/PAID; production and delivery follow', async () => {
      const t = get();
      const r = await reseller({ fundsCents: 1_000_000 });
      const order = await place(r.key, orderBody(files));
      expect(await order.check('placed')).to.deep.equal(['order.created', 'order.submitted']);
      for (const status of ['PROCESSING', 'PRINTING', 'SHIPPED', 'DELIVERED']) {
        const tracking =
          status === 'SHIPPED'
            ? {
                tracking: { carrier: 'PostNL', trackingNumber: '3SEVT1', trackingUrl: 'https://postnl.example/3SEVT1' },
              }
            : {};
        expect((await t.admin('POST', `/orders/${order.orderId}/production`, { status, ...tracking })).status).to.equal(
          200,
        );
        await order.check(status);
      }
      expect(order.types).to.deep.equal([
        'order.created',
        'order.submitted',
        'order.in_production',
        'order.shipped',
        'order.delivered',
      ]);
    });

    it('wallet-paid side by side (the wallet group commit) and past the balance (the careful path): each order as committed', async () => {
      const t = get();
      const r = await reseller();
      const probe = await place(r.key, orderBody(files));
      await probe.check('probe');
      const price = (await t.api(r.key, 'GET', `/orders/${probe.orderId}`)).body.data.totals.totalCents as number;
      expect((await t.api(r.key, 'POST', `/orders/${probe.orderId}/cancel`)).status).to.equal(200);
      await probe.check('probe cancelled');
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: price * 4 });
      const results = await Promise.all(Array.from({ length: 8 }, () => placeOrder(t, r.key, orderBody(files))));
      const states: string[] = [];
      for (const res of results) {
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        states.push(res.body.data.state);
        const types = await new OrderFollower(t, r.key, res.body.data.id).check(`placed ${res.body.data.state}`);
        expect(types).to.deep.equal([
          'order.created',
          res.body.data.state === 'SUBMITTED' ? 'order.submitted' : 'order.awaiting_funds',
        ]);
      }
      expect(states.filter((s) => s === 'SUBMITTED')).to.have.length(4);
    });

    it("moves updatedAt forward on every change, also when this process's clock is behind the last writer's", async () => {
      const t = get();
      const r = await reseller({ fundsCents: 1_000_000 });
      const order = await place(r.key, orderBody(files));
      await order.check('placed');
      // Another process, its clock a minute ahead, wrote the order last.
      const ahead = new Date(Date.now() + 60_000);
      await t.service.db.updateTable('orders').set({ updated_at: ahead }).where('id', '=', order.orderId).execute();
      expect((await t.admin('POST', `/orders/${order.orderId}/production`, { status: 'PROCESSING' })).status).to.equal(
        200,
      );
      expect(await order.check('in production')).to.deep.equal(['order.in_production']);
      const moved = (await storedEvents(t, order.orderId)).at(-1)!.order;
      expect(new Date(moved.updatedAt).getTime()).to.be.greaterThan(ahead.getTime());
    });

    it('card-paid: created is committed while the card is charged (AWAITING_FUNDS, charging), submitted after', async () => {
      const t = get();
      const r = await reseller({ card: 'tok_visa' });
      const body = orderBody(files);
      gateway.hold();
      let placing: ReturnType<typeof placeOrder> | undefined;
      try {
        placing = placeOrder(t, r.key, body);
        // The order is committed before its card is charged: find it while the charge is held.
        const listed = await waitFor(
          'the order committed before its charge',
          async () => (await t.api(r.key, 'GET', `/orders?externalOrderId=${body.externalOrderId}`)).body.data[0],
        );
        const order = new OrderFollower(t, r.key, listed.id);
        expect(await order.check('committed, charging')).to.deep.equal(['order.created']);
        expect(listed).to.include({ state: 'AWAITING_FUNDS', status: 'PENDING' });
        expect(listed.payment).to.include({ method: 'card', status: 'charging' });
        gateway.release();
        const res = await placing;
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.data).to.include({ state: 'SUBMITTED', status: 'PAID' });
        expect(await order.check('charged')).to.deep.equal(['order.submitted']);
      } finally {
        gateway.release();
        await placing;
      }
    });

    it('card declined: created as committed while charging, then payment_failed', async () => {
      const r = await reseller({ card: 'tok_chargeDeclined' });
      const order = await place(r.key, orderBody(files));
      // Both commits are over when the placement answers: the last event carries the order as it is now.
      const events = await storedEvents(get(), order.orderId);
      expect(events.map((e) => e.type)).to.deep.equal(['order.created', 'order.payment_failed']);
      expect(events[0]!.order).to.include({ state: 'AWAITING_FUNDS', status: 'PENDING' });
      expect(events[0]!.order.payment).to.include({ method: 'card', status: 'charging' });
      const current = (await get().api(r.key, 'GET', `/orders/${order.orderId}`)).body.data;
      expect(current).to.include({ state: 'PAYMENT_FAILED', status: 'PENDING' });
      expect(events[1]!.order).to.deep.equal(current);
      expect(events[1]!.order.updatedAt > events[0]!.order.updatedAt).to.equal(true);
    });

    it('awaiting funds, then paid after a top-up', async () => {
      const t = get();
      const r = await reseller();
      const order = await place(r.key, orderBody(files));
      expect(await order.check('placed')).to.deep.equal(['order.created', 'order.awaiting_funds']);
      await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 1_000_000 });
      expect(await order.check('topped up')).to.deep.equal(['order.submitted']);
    });

    it('awaiting a file, then paid once the file is supplied', async () => {
      const t = get();
      const r = await reseller({ fundsCents: 1_000_000 });
      const order = await place(r.key, orderBody(files, { lines: [{ ...PRODUCT }] }));
      expect(await order.check('placed without a file')).to.deep.equal(['order.created', 'order.file_problem']);
      const supplied = await t.api(r.key, 'PUT', `/orders/${order.orderId}/lines/0/file`, {
        fileUrl: `${files.url}/art/poster.png`,
      });
      expect(supplied.status, JSON.stringify(supplied.body)).to.equal(200);
      expect(await order.check('file supplied')).to.deep.equal(['order.submitted']);
    });

    it('awaiting a conversion, then paid once the back-office confirms it', async () => {
      const t = get();
      const r = await reseller({ fundsCents: 1_000_000 });
      const order = await place(
        r.key,
        orderBody(files, { lines: [{ ...PRODUCT, fileUrl: `${files.url}/art/logo.eps` }] }),
      );
      expect(await order.check('placed with an EPS file')).to.deep.equal(['order.created', 'order.file_problem']);
      expect(
        (
          await t.admin('POST', `/orders/${order.orderId}/lines/0/conversion`, {
            fileUrl: `${files.url}/art/flyer.pdf`,
          })
        ).status,
      ).to.equal(200);
      expect(await order.check('converted')).to.deep.equal(['order.submitted']);
    });

    it('test mode: created and submitted say SUBMITTED/PAID (not charged); cancelled after', async () => {
      const t = get();
      const r = await reseller({ mode: 'test' });
      const order = await place(r.key, orderBody(files, { externalOrderId: `test-${randomUUID().slice(0, 8)}` }));
      expect(await order.check('placed')).to.deep.equal(['order.created', 'order.submitted']);
      expect((await t.api(r.key, 'POST', `/orders/${order.orderId}/cancel`)).status).to.equal(200);
      expect(await order.check('cancelled')).to.deep.equal(['order.cancelled']);
    });
  },
  { RATE_LIMIT_PER_MINUTE: '100000' },
  { gateway },
);
