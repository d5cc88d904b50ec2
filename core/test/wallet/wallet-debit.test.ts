import { expect } from 'chai';
import { describeEachBackend } from '../helpers/test-service.ts';

describeEachBackend(
  'wallet debits',
  (get) => {
    async function walletOf(resellerId: string) {
      const t = get();
      const wallet = await t.service.db
        .selectFrom('wallets')
        .select('balance_cents')
        .where('reseller_id', '=', resellerId)
        .where('mode', '=', 'live')
        .executeTakeFirst();
      const ledger = await t.service.db
        .selectFrom('wallet_ledger')
        .selectAll()
        .where('reseller_id', '=', resellerId)
        .where('mode', '=', 'live')
        .execute();
      return { balance: wallet?.balance_cents, ledger };
    }

    const debit = (resellerId: string, amountCents: number, orderId: string) => ({
      resellerId,
      mode: 'live' as const,
      kind: 'order_payment' as const,
      amountCents: -amountCents,
      orderId,
    });

    it('never overdraws under 60 concurrent debits, and every entry continues the balance before it', async () => {
      const t = get();
      const { wallet } = t.service.services;
      const r = await t.reseller();
      await wallet.topUp({ resellerId: r.id, mode: 'live', amountCents: 1000 });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          t.service.db.transaction().execute((trx) => wallet.debit(trx, debit(r.id, 30, `ord_race_${r.id}_${i}`))),
        ),
      );
      const paid = results.filter((e) => e !== null);
      expect(paid).to.have.length(33);
      const { balance, ledger } = await walletOf(r.id);
      expect(balance).to.equal(10);
      expect(ledger.reduce((sum, e) => sum + e.amount_cents, 0)).to.equal(balance);
      // Applied one after another: the balances after the debits are 970, 940, ..., 10, each once.
      const after = ledger
        .filter((e) => e.kind === 'order_payment')
        .map((e) => e.balance_after_cents)
        .sort((a, b) => b - a);
      expect(after).to.deep.equal(Array.from({ length: 33 }, (_, i) => 970 - 30 * i));
    });

    it('writes nothing when the balance is short or there is no wallet yet, and nothing survives a rollback', async () => {
      const t = get();
      const { wallet } = t.service.services;
      const r = await t.reseller();
      expect(
        await t.service.db.transaction().execute((trx) => wallet.debit(trx, debit(r.id, 1, `ord_none_${r.id}`))),
      ).to.equal(null);
      await wallet.topUp({ resellerId: r.id, mode: 'live', amountCents: 500 });
      expect(
        await t.service.db.transaction().execute((trx) => wallet.debit(trx, debit(r.id, 501, `ord_short_${r.id}`))),
      ).to.equal(null);
      const rolledBack = t.service.db.transaction().execute(async (trx) => {
        const entry = await wallet.debit(trx, debit(r.id, 200, `ord_rb_${r.id}`));
        expect(entry).to.include({ amountCents: -200, balanceAfterCents: 300 });
        throw new Error('roll back');
      });
      await rolledBack.then(
        () => expect.fail('the transaction should have failed'),
        (err: Error) => expect(err.message).to.equal('roll back'),
      );
      const exact = await t.service.db
        .transaction()
        .execute((trx) => wallet.debit(trx, { ...debit(r.id, 500, `ord_exact_${r.id}`), id: 'wle_given_id' }));
      expect(exact).to.include({ id: 'wle_given_id', amountCents: -500, balanceAfterCents: 0 });
      const { balance, ledger } = await walletOf(r.id);
      expect(balance).to.equal(0);
      expect(ledger.map((e) => e.kind).sort()).to.deep.equal(['order_payment', 'top_up']);
    });

    it('refuses a second payment of the same order', async () => {
      const t = get();
      const { wallet } = t.service.services;
      const r = await t.reseller();
      await wallet.topUp({ resellerId: r.id, mode: 'live', amountCents: 500 });
      await t.service.db.transaction().execute((trx) => wallet.debit(trx, debit(r.id, 100, `ord_twice_${r.id}`)));
      let failed = false;
      await t.service.db
        .transaction()
        .execute((trx) => wallet.debit(trx, debit(r.id, 100, `ord_twice_${r.id}`)))
        .catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect((await walletOf(r.id)).balance).to.equal(400);
    });

    it('takes only a negative whole number of cents', async () => {
      const t = get();
      const { wallet } = t.service.services;
      for (const amountCents of [0, 5, -1.5]) {
        let error: unknown;
        await t.service.db
          .transaction()
          .execute((trx) => wallet.debit(trx, { resellerId: 'x', mode: 'live', kind: 'order_payment', amountCents }))
          .catch((err) => (error = err));
        expect(error).to.be.instanceOf(RangeError);
      }
    });
  },
  { RATE_LIMIT_PER_MINUTE: '100000' },
);
