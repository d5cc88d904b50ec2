import { expect } from 'chai';
import { DeliveryWriter, type DeliveryRow } from '../../src/modules/stores/inbound/delivery-writer.ts';
import { describeEachDatabase } from '../helpers/services.ts';

describeEachDatabase('deliveries received together are stored together', (t) => {
  let n = 0;
  const delivery = (over: Partial<DeliveryRow> = {}): DeliveryRow => {
    n += 1;
    return {
      id: `whe_w${n}`,
      platform: 'SHOPIFY',
      storeId: 'sto_w',
      eventKey: `orders/paid:${n}`,
      topic: 'orders/paid',
      headers: { 'x-shopify-topic': 'orders/paid' },
      rawBody: Buffer.from(`{"id":82098291194615450${n % 10}}`),
      path: 'sto_w',
      receivedAt: new Date(),
      ...over,
    };
  };
  const stored = (ids: string[]) =>
    t.db
      .selectFrom('store_webhook_events')
      .select(['id', 'event_key', 'raw_body', 'headers'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();

  it('answers each delivery once its row is stored, with its exact bytes', async () => {
    const writer = new DeliveryWriter(t.db);
    const rows = Array.from({ length: 40 }, () => delivery());
    expect(await Promise.all(rows.map((r) => writer.store(r)))).to.deep.equal(rows.map(() => true));
    const kept = await stored(rows.map((r) => r.id));
    expect(kept).to.have.length(40);
    for (const row of rows) expect(kept.find((k) => k.id === row.id)!.raw_body.equals(row.rawBody)).to.equal(true);
  });

  it('stores a delivery received twice in one batch once: the other answers as a duplicate', async () => {
    const writer = new DeliveryWriter(t.db);
    const first = delivery();
    const again = delivery({ eventKey: first.eventKey });
    const answers = await Promise.all([
      writer.store(first),
      writer.store(again),
      writer.store(delivery({ eventKey: first.eventKey })),
    ]);
    expect(answers.filter(Boolean)).to.have.length(1);
    expect(
      await t.db.selectFrom('store_webhook_events').select('id').where('event_key', '=', first.eventKey).execute(),
    ).to.have.length(1);
  });

  it('fails only the delivery the database refuses, and stores the ones received with it', async () => {
    const writer = new DeliveryWriter(t.db);
    const good = [delivery(), delivery()];
    // A NUL character in a text column: PostgreSQL refuses the row.
    const refused = delivery({ path: 'sto_w\u0000' });
    const answers = await Promise.allSettled([writer.store(good[0]!), writer.store(refused), writer.store(good[1]!)]);
    expect(answers.map((a) => a.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((await stored([...good, refused].map((r) => r.id))).map((r) => r.id)).to.deep.equal(
      good.map((r) => r.id).sort(),
    );
  });
});
