import { expect } from 'chai';
import { mapReferenceOrder } from '../../../test/reference-connector/src/index.ts';
import { refOrder } from '../helpers/reference-shop.ts';
import { referenceStoreWorld, type ReferenceStoreWorld } from '../helpers/reference-store.ts';
import type { TestService } from '../helpers/test-service.ts';

/**
 * What a connector can tell core beyond orders: an order the platform ships itself (recorded,
 * never placed, the reason on every line) and a warning the merchant must act on (the store's
 * lastError until it reconnects).
 */
describe('store orders not ours to print, and store warnings', function () {
  this.timeout(60_000);
  let world: ReferenceStoreWorld | undefined;
  let t: TestService;
  let storeId: string;
  const store = () => t.service.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();

  before(async function () {
    world = await referenceStoreWorld(this, 'pglite');
    ({ t, storeId } = world);
  });
  after(async () => world?.close());

  it('records an order the platform ships itself as no_print_lines, every line skipped with the reason, and places nothing', async () => {
    const order = { ...mapReferenceOrder(refOrder('N-1', { paid: true })), notForPrint: 'shipped by the platform itself' };
    await t.service.services.storesModule.ingester.ingest(await store(), order);
    const ingest = await t.service.db.selectFrom('store_ingests').selectAll().where('store_id', '=', storeId).where('external_order_id', '=', 'N-1').executeTakeFirstOrThrow();
    expect(ingest.status).to.equal('no_print_lines');
    expect(ingest.skipped_lines).to.deep.equal(order.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, reason: 'shipped by the platform itself' })));
    expect(await t.service.db.selectFrom('orders').select('id').where('store_id', '=', storeId).where('external_order_id', '=', 'N-1').execute()).to.deep.equal([]);
  });

  it("shows a warning as the connected store's lastError, and a disconnection's reason", async () => {
    await t.service.services.stores.noteProblem(storeId, 'The authorisation expires on 2026-12-25.');
    expect((await store()).last_error).to.equal('The authorisation expires on 2026-12-25.');
    expect((await store()).status).to.equal('connected');
    await t.service.services.stores.markDisconnected(storeId, 'The seller revoked the app.');
    await t.service.services.stores.noteProblem(storeId, 'a late warning');
    expect(await store()).to.deep.include({ status: 'disconnected', last_error: 'The seller revoked the app.' });
  });
});
