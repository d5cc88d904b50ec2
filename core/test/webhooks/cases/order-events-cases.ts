import { expect } from 'chai';
import type { TestHttpsServer } from '../../helpers/https-server.ts';
import type { TestService } from '../../helpers/test-service.ts';
import { orderBody, placeOrder, startFileServer } from '../../orders/orders-helpers.ts';
import { createEndpoint, Receiver, signatureIsValid, waitFor } from '../webhook-test-helpers.ts';

/** A real order through the API: its events arrive as the order stood at each step. */
export function orderEventsCases(get: () => TestService): void {
  let receiver: Receiver;
  let files: TestHttpsServer;
  before(async () => {
    receiver = await Receiver.start();
    files = await startFileServer();
  });
  after(async () => {
    await receiver.close();
    await files.close();
  });

  it('delivers created, submitted, in_production and shipped (with tracking) for a placed order', async () => {
    const t = get();
    const { id: resellerId, key } = await t.reseller();
    await t.admin('POST', `/resellers/${resellerId}/wallet/top-ups`, { amountCents: 1_000_000 });
    const endpoint = await createEndpoint(t, key, receiver.hook('/orders'));
    const placed = await placeOrder(t, key, orderBody(files));
    expect(placed.status, JSON.stringify(placed.body)).to.equal(201);
    const orderId: string = placed.body.data.id;
    const tracking = {
      carrier: 'PostNL',
      trackingNumber: '3SPRINT0001',
      trackingUrl: 'https://postnl.example/track/3SPRINT0001',
    };
    expect((await t.admin('POST', `/orders/${orderId}/production`, { status: 'PROCESSING' })).status).to.equal(200);
    expect((await t.admin('POST', `/orders/${orderId}/production`, { status: 'SHIPPED', tracking })).status).to.equal(
      200,
    );

    await waitFor('four order events', () => receiver.requests('/orders').length === 4);
    const seen = receiver.requests('/orders');
    // Deliveries are not ordered: compare as a set.
    expect(seen.map((r) => r.event.type).sort()).to.deep.equal([
      'order.created',
      'order.in_production',
      'order.shipped',
      'order.submitted',
    ]);
    for (const r of seen) {
      expect(signatureIsValid(endpoint.secret, r.headers, r.raw)).to.equal(true);
      expect(r.event.data.order.id).to.equal(orderId);
      expect(r.event.testMode).to.equal(false);
    }
    const byType = Object.fromEntries(seen.map((r) => [r.event.type, r.event]));
    expect(byType['order.submitted'].data.order).to.include({ state: 'SUBMITTED', status: 'PAID' });
    // Paid in the placement's one commit: order.created carries the order as committed with it, paid.
    expect(byType['order.created'].data.order).to.deep.equal(byType['order.submitted'].data.order);
    expect(byType['order.in_production'].data.order.status).to.equal('PROCESSING');
    expect(byType['order.shipped'].data.tracking).to.deep.include(tracking);
    // The last event carries the order exactly as GET /orders/{id} shows it now.
    const current = await t.api(key, 'GET', `/orders/${orderId}`);
    expect(byType['order.shipped'].data.order).to.deep.equal(current.body.data);
  });
}
