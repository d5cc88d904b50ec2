import { expect } from 'chai';
import { mapReferenceOrder } from '../../../test/reference-connector/src/index.ts';
import { OrderIngester } from '../../src/modules/stores/inbound/order-ingester.ts';
import type { ResellerProductsService } from '../../src/modules/reseller-products/reseller-products-service.ts';
import { refOrder } from '../helpers/reference-shop.ts';
import { referenceStoreWorld, type ReferenceStoreWorld } from '../helpers/reference-store.ts';
import type { Backend, TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';

/**
 * Two copies of one store order ingested side by side (Shopify sends orders/create and
 * orders/paid at once; one job may take the paid copy before the older unpaid one). Each reads
 * the ingest row, decides, then records: these tests hold the older copy between its read and
 * its record while the newer copy is ingested completely, the order a busy machine can produce.
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`copies of one store order ingested side by side [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let storeId: string;

    const store = () =>
      t.service.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
    const ingest = (externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirstOrThrow();
    const printOrders = (externalId: string) =>
      t.service.db
        .selectFrom('orders')
        .select('id')
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .execute();

    /** An ingester like the pipeline's whose SKU lookup (between reading the row and recording) waits for `gate`. */
    function heldIngester(gate: Promise<void>): OrderIngester {
      const products = t.service.services.resellerProducts;
      const held = Object.create(products) as ResellerProductsService;
      held.findBySkus = async (...args: Parameters<ResellerProductsService['findBySkus']>) => {
        await gate;
        return products.findBySkus(...args);
      };
      return new OrderIngester({
        db: t.service.db,
        links: t.service.services.stores.links,
        resellerProducts: held,
        orders: t.service.services.orders,
      });
    }

    let world: ReferenceStoreWorld | undefined;
    before(async function () {
      world = await referenceStoreWorld(this, backend);
      ({ t, storeId } = world);
    });
    after(async () => {
      await world?.close();
    });

    it('keeps the paid copy placed when the older unpaid copy records its outcome after it', async () => {
      let release!: () => void;
      const older = heldIngester(new Promise<void>((r) => (release = r)));
      const unpaid = mapReferenceOrder(refOrder('S-1', { paid: false, updated_at: '2026-11-20T10:01:00Z' }));
      const paid = mapReferenceOrder(refOrder('S-1', { paid: true, updated_at: '2026-11-20T10:03:00Z' }));

      // The unpaid copy reads the row (nothing recorded yet) and waits at its SKU lookup…
      const olderDone = older.ingest(await store(), unpaid);
      await waitFor(
        'the older copy has read the row',
        async () => (await ingest('S-1').catch(() => undefined)) !== undefined,
      );
      // …the paid copy is ingested completely meanwhile…
      await t.service.services.storesModule.ingester.ingest(await store(), paid);
      expect((await ingest('S-1')).status).to.equal('placed');
      // …and the unpaid copy records "waiting for payment" last: it must not win.
      release();
      await olderDone;
      const row = await ingest('S-1');
      expect(row.status).to.equal('placed');
      expect(row.order_id).to.be.a('string');
      expect(row.store_updated_at!.toISOString()).to.equal('2026-11-20T10:03:00.000Z');
      expect(await printOrders('S-1')).to.have.length(1);
    });

    it('still records a newer copy after an older one', async () => {
      await t.service.services.storesModule.ingester.ingest(
        await store(),
        mapReferenceOrder(refOrder('S-2', { paid: false, updated_at: '2026-11-20T10:01:00Z' })),
      );
      expect((await ingest('S-2')).status).to.equal('waiting_payment');
      await t.service.services.storesModule.ingester.ingest(
        await store(),
        mapReferenceOrder(refOrder('S-2', { paid: true, updated_at: '2026-11-20T10:03:00Z' })),
      );
      expect((await ingest('S-2')).status).to.equal('placed');
      expect(await printOrders('S-2')).to.have.length(1);
    });
  });
}
