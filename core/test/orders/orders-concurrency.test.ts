import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { SandboxGateway } from '../../src/modules/payments/sandbox-gateway.ts';
import type { ChargeResult } from '../../src/modules/payments/payment-gateway.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { createTestPostgresDatabase } from '../helpers/services.ts';
import { describeEachBackend, startTestService, type TestService } from '../helpers/test-service.ts';
import { orderBody, placeOrder, startFileServer } from './orders-helpers.ts';
import { scaled } from '../helpers/wait.ts';

describe('orders under concurrency', function () {
  this.timeout(scaled(120_000));
  let files: TestHttpsServer;
  before(async () => {
    files = await startFileServer();
  });
  after(() => files.close());

  it('turns 50 identical concurrent requests on two app instances into one order and one debit [postgres+redis]', async function () {
    const { url, drop } = await createTestPostgresDatabase().catch(() => ({ url: '', drop: async () => undefined }));
    const prefix = `pa-test-${randomBytes(4).toString('hex')}`;
    const env = { DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '100000' };
    const a = await startTestService(this, 'postgres+redis', env, { redisPrefix: prefix });
    const b = await startTestService(this, 'postgres+redis', env, { redisPrefix: prefix });
    try {
      const r = await a.reseller();
      await a.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 10_000_000 });
      const body = orderBody(files);
      const key = randomUUID();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => placeOrder(i % 2 ? a : b, r.key, body, key)),
      );
      const ids = new Set(results.map((res) => res.body.data?.id));
      expect(ids.size, JSON.stringify(results.find((x) => !x.body.data))).to.equal(1);
      expect(results.filter((res) => res.status === 201)).to.have.length(1);
      expect(results.filter((res) => res.status === 200 && res.body.data.duplicate)).to.have.length(49);
      const debits = await a.service.db
        .selectFrom('wallet_ledger')
        .selectAll()
        .where('reseller_id', '=', r.id)
        .where('kind', '=', 'order_payment')
        .execute();
      expect(debits).to.have.length(1);
      expect(
        await a.service.db.selectFrom('orders').select('id').where('reseller_id', '=', r.id).execute(),
      ).to.have.length(1);
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });

  describeEachBackend(
    'wallet race',
    (get) => {
      it('pays exactly as many of 200 concurrent orders as the balance covers; the rest wait for funds', async () => {
        const t = get();
        const r = await t.reseller();
        const probe = (await placeOrder(t, r.key, orderBody(files))).body.data;
        expect(probe.state).to.equal('AWAITING_FUNDS');
        const price = probe.totals.totalCents;
        await t.api(r.key, 'POST', `/orders/${probe.id}/cancel`);
        await t.service.services.wallet.topUp({ resellerId: r.id, mode: 'live', amountCents: price * 100 });
        const results = await Promise.all(Array.from({ length: 200 }, () => placeOrder(t, r.key, orderBody(files))));
        expect(
          results.every((res) => res.status === 201),
          JSON.stringify(results.find((res) => res.status !== 201)?.body),
        ).to.equal(true);
        const states = results.map((res) => res.body.data.state);
        expect(states.filter((s) => s === 'SUBMITTED')).to.have.length(100);
        expect(states.filter((s) => s === 'AWAITING_FUNDS')).to.have.length(100);
        const wallet = await t.service.db
          .selectFrom('wallets')
          .select('balance_cents')
          .where('reseller_id', '=', r.id)
          .where('mode', '=', 'live')
          .executeTakeFirstOrThrow();
        expect(wallet.balance_cents).to.equal(0);
        const ledger = await t.service.db
          .selectFrom('wallet_ledger')
          .select(['amount_cents', 'balance_after_cents', 'created_at', 'id'])
          .where('reseller_id', '=', r.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        expect(ledger.reduce((sum, e) => sum + e.amount_cents, 0)).to.equal(wallet.balance_cents);
        expect(ledger.every((e) => e.balance_after_cents >= 0)).to.equal(true);
      });
    },
    { RATE_LIMIT_PER_MINUTE: '100000' },
  );

  /** A gateway that charges, then "crashes" before our commit: the first time only. */
  class CrashAfterCharge extends SandboxGateway {
    crashes = 1;
    charges = new Map<string, number>();
    override async charge(input: {
      paymentMethod: string;
      amountCents: number;
      idempotencyKey: string;
    }): Promise<ChargeResult> {
      const result = await super.charge(input);
      this.charges.set(input.idempotencyKey, (this.charges.get(input.idempotencyKey) ?? 0) + 1);
      if (this.crashes-- > 0) throw new Error('process died after the charge');
      return result;
    }
  }

  for (const backend of ['pglite', 'postgres+redis'] as const) {
    it(`leaves no charge without an order when the process dies between charge and commit [${backend}]`, async function () {
      const gateway = new CrashAfterCharge();
      const t: TestService = await startTestService(this, backend, {}, { gateway });
      try {
        const r = await t.reseller();
        await t.admin('PUT', `/resellers/${r.id}/card`, { token: 'tok_visa' });
        const res = await placeOrder(t, r.key, orderBody(files));
        expect(res.status).to.equal(201);
        expect(res.body.data.payment.status).to.equal('charging');
        // The recovery sweep repeats the charge with the same idempotency key: the gateway answers with the first
        // charge.
        await t.service.services.orders.payments.recoverInterruptedCharges(0);
        const order = (await t.api(r.key, 'GET', `/orders/${res.body.data.id}`)).body.data;
        expect(order).to.include({ state: 'SUBMITTED', status: 'PAID' });
        expect(order.payment.status).to.equal('paid');
        expect([...gateway.charges.keys()]).to.deep.equal([`order:${order.id}`]);
      } finally {
        await t.close();
      }
    });
  }
});
