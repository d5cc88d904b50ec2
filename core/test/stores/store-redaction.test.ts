import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { referenceConnector, mapReferenceOrder } from '../../../test/reference-connector/src/index.ts';
import { ReferenceShop, refOrder, type RefOrderJson } from '../helpers/reference-shop.ts';
import { referenceStoreWorld, type ReferenceStoreWorld } from '../helpers/reference-store.ts';
import type { Backend, TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

const PLATFORM = referenceConnector.manifest.platform;

/**
 * A privacy request (customers/redact) can come while the store's deliveries are still being
 * ingested: a delivery is stored, its order placed, and only then is the delivery marked
 * processed. These tests put the steps of that race in the losing order, one after the other,
 * on the real pipeline: nothing personal may outlive the redaction.
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`redaction while ingestion is under way [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let shop: ReferenceShop;
    let storeId: string;

    const module = () => t.service.services.storesModule;
    const store = () =>
      t.service.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
    const ingest = (externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirstOrThrow();
    const event = (id: string) =>
      t.service.db.selectFrom('store_webhook_events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    /** A delivery of `order` as receiving stores it, not yet processed (no job queued: the steps are the test's). */
    async function storedDelivery(order: RefOrderJson): Promise<string> {
      const id = `whe_${randomUUID().replace(/-/g, '')}`;
      const { headers, body } = shop.signed(order);
      await t.service.db
        .insertInto('store_webhook_events')
        .values({
          id,
          platform: PLATFORM,
          store_id: storeId,
          event_key: id,
          topic: 'order.updated',
          headers: JSON.stringify(headers),
          raw_body: Buffer.from(body),
          path: storeId,
          received_at: new Date(),
          processed_at: null,
        })
        .execute();
      return id;
    }

    let world: ReferenceStoreWorld | undefined;
    before(async function () {
      world = await referenceStoreWorld(this, backend);
      ({ t, shop, storeId } = world);
    });
    after(async () => {
      await world?.close();
    });

    it('erases a delivery whose order was placed before it was marked processed, once it is marked', async () => {
      const order = refOrder('R-1');
      const delivery = await storedDelivery(order);
      // Its order is placed (by this delivery's ingestion, or another delivery of the same order)…
      await module().ingester.ingest(await store(), mapReferenceOrder(order));
      expect((await ingest('R-1')).status).to.equal('placed');
      // …the privacy request is carried out before the delivery is marked processed…
      await module().redactor.redact(storeId, ['R-1']);
      // …and the delivery's ingestion ends.
      await module().events.process(delivery);
      const after = await event(delivery);
      expect(after.processed_at).not.to.equal(null);
      expect(after.raw_body).to.have.length(0);
      expect(after.headers).to.deep.equal({});
      expect((await ingest('R-1')).external_name).to.equal(null);
    });

    it('keeps an order erased when an outcome of a delivery received before the request is recorded after it', async () => {
      const items = [
        { id: 'R-2-1', sku: 'CARD-01', qty: 250 },
        { id: 'R-2-2', sku: 'MUG-DELFT', qty: 1 },
      ];
      await module().ingester.ingest(
        await store(),
        mapReferenceOrder(refOrder('R-2', { items, paid: false, updated_at: '2026-11-20T10:01:00Z' })),
      );
      expect(await ingest('R-2')).to.include({ status: 'waiting_payment', external_name: '#R-2' });
      const paid = await storedDelivery(refOrder('R-2', { items, paid: true, updated_at: '2026-11-20T10:03:00Z' }));
      await module().redactor.redact(storeId, ['R-2']);
      await module().events.process(paid);
      const row = await ingest('R-2');
      expect(row.status).to.equal('placed');
      expect(row.external_name).to.equal(null);
      expect(row.skipped_lines).to.deep.equal([]);
      expect((await event(paid)).raw_body).to.have.length(0);
    });

    it('leaves other orders and deliveries received after the request as they are', async () => {
      const later = await storedDelivery(refOrder('R-3'));
      await module().events.process(later);
      expect((await ingest('R-3')).external_name).to.equal('#R-3');
      expect((await event(later)).raw_body).not.to.have.length(0);
      expect((await ingest('R-1')).external_name).to.equal(null);
    });
  });
}
