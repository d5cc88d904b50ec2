import { expect } from 'chai';
import { z } from 'zod';
import { defineConnector } from '@print-api/connector-kit';
import { referenceConnector } from '../../../test/reference-connector/src/index.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { ReferenceShop, refOrder } from '../helpers/reference-shop.ts';
import { cardsReseller } from '../helpers/reference-store.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';
import { startFileServer } from '../orders/orders-helpers.ts';

const PLATFORM = referenceConnector.manifest.platform;

/** A platform that only sends webhooks: it cannot be asked for its orders. */
const webhookOnly = defineConnector<{ token: string }>({
  manifest: {
    platform: 'WEBHOOK_ONLY',
    displayName: 'Webhook-only platform',
    connectSchema: z.strictObject({ token: z.string() }),
    examples: { connect: { token: 'webhook-only-token' } },
    credentialsSchema: z.object({ token: z.string() }),
    capabilities: { webhooks: true, polling: false, fulfilment: false, oauth: false },
    rateLimit: { max: 10, durationMs: 1000 },
  },
  connect: async (_ctx, input) => ({
    externalId: 'webhook-only-1',
    name: 'Webhook only',
    credentials: input as { token: string },
  }),
  verifyWebhook: () => ({ ok: false, reason: 'not in this test' }),
  parseWebhook: async () => ({ kind: 'ignored', reason: 'not in this test' }),
});
const connectors = [referenceConnector, webhookOnly];

/**
 * `POST /stores/{id}/sync` polls a store now; one sync at a time per store, whichever process
 * is asked (the lease is a column of the store's row).
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`POST /stores/{id}/sync [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    let shop: ReferenceShop;
    let key: string;
    let storeId: string;

    const storeRow = () =>
      t.service.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
    const pollEnded = () =>
      waitFor(
        'the poll to end',
        async () => (await storeRow()).poll_lease_until === null && (await storeRow()).last_polled_at !== null,
      );
    const sync = (id = storeId, apiKey = key) => t.api(apiKey, 'POST', `/stores/${id}/sync`);
    const ingest = (externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirst();

    before(async function () {
      files = await startFileServer();
      shop = await ReferenceShop.start();
      t = await startTestService(this, backend, {}, { connectors });
      const r = await cardsReseller(t, files);
      key = r.key;
      const store = await t.api(key, 'POST', '/stores', { platform: PLATFORM, shopUrl: shop.url, token: 'tok-1' });
      expect(store.status, JSON.stringify(store.body)).to.equal(201);
      storeId = store.body.data.id;
      // Connecting queues a catch-up poll: it holds the store until it ends.
      await pollEnded();
    });
    after(async () => {
      await t?.close();
      await shop?.close();
      await files?.close();
    });

    it('polls the store now: an order the store holds is placed without waiting for the next interval', async () => {
      shop.orders.set('S-1', refOrder('S-1'));
      const res = await sync();
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      expect(res.body.data.storeId).to.equal(storeId);
      expect(Date.parse(res.body.data.requestedAt)).to.be.closeTo(Date.now(), 60_000);
      const placed = await waitFor('S-1 placed', async () =>
        (await ingest('S-1'))?.status === 'placed' ? ingest('S-1') : undefined,
      );
      const order = (await t.api(key, 'GET', `/orders/${placed!.order_id}`)).body.data;
      expect(order).to.include({ source: PLATFORM, externalOrderId: 'S-1', storeId });
      await pollEnded();
    });

    it('answers 409 sync_in_progress while a poll of the store runs, and accepts a sync again once it ended', async () => {
      shop.holdOrders();
      const asked = shop.orderLists();
      expect((await sync()).status).to.equal(202);
      await waitFor('the poll to ask the store for its orders', () => shop.orderLists() > asked);
      const refused = await sync();
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('sync_in_progress');
      shop.orders.set('S-2', refOrder('S-2', { updated_at: '2026-11-20T11:00:00Z' }));
      shop.release();
      await pollEnded();
      expect((await sync()).status).to.equal(202);
      await waitFor('S-2 placed', async () => (await ingest('S-2'))?.status === 'placed');
      await pollEnded();
    });

    if (backend === 'pglite') {
      it("polls on a sync even while the store's previous poll is still finishing as a job (its lease released, its job not yet done)", async () => {
        await pollEnded();
        // As the in-process queue holds a poll job that has released the store but not yet ended.
        const finishing = {
          queue: `ingest-${PLATFORM.toLowerCase()}`,
          job_id: `poll-${storeId}`,
          data: JSON.stringify({ kind: 'poll', storeId }),
          run_at: new Date(Date.now() + 3600_000),
          state: 'active' as const,
          attempt: 1,
          max_attempts: 12,
        };
        await t.service.db
          .insertInto('queue_jobs')
          .values(finishing)
          .onConflict((oc) =>
            oc.columns(['queue', 'job_id']).doUpdateSet({ state: 'active', run_at: finishing.run_at }),
          )
          .execute();
        try {
          shop.orders.set('S-4', refOrder('S-4', { updated_at: '2026-11-20T12:00:00Z' }));
          expect((await sync()).status).to.equal(202);
          await waitFor('S-4 placed', async () => (await ingest('S-4'))?.status === 'placed');
          await pollEnded();
        } finally {
          await t.service.db
            .deleteFrom('queue_jobs')
            .where('queue', '=', finishing.queue)
            .where('job_id', '=', finishing.job_id)
            .execute();
        }
      });
    }

    if (backend === 'postgres+redis') {
      it('refuses the sync in another process while one runs in this one', async function () {
        const other = await startTestService(
          this,
          backend,
          { DATABASE_URL: t.service.config.DATABASE_URL! },
          { connectors },
        );
        try {
          shop.holdOrders();
          const asked = shop.orderLists();
          expect((await sync()).status).to.equal(202);
          await waitFor('the poll to ask the store for its orders', () => shop.orderLists() > asked);
          const refused = await other.api(key, 'POST', `/stores/${storeId}/sync`);
          expect(refused.status).to.equal(409);
          expect(refused.body.error.code).to.equal('sync_in_progress');
          shop.release();
          await pollEnded();
          expect((await other.api(key, 'POST', `/stores/${storeId}/sync`)).status).to.equal(202);
          await pollEnded();
        } finally {
          shop.release();
          await other.close();
        }
      });
    }

    it("answers 404 for another reseller's store, 403 without stores:write, 422 for a platform that cannot list orders, 409 for a disconnected store", async () => {
      const stranger = await t.reseller();
      expect((await sync(storeId, stranger.key)).status).to.equal(404);
      const readOnly = await t.reseller({ scopes: ['stores:read'] });
      expect((await sync(storeId, readOnly.key)).status).to.equal(403);
      const other = await t.api(key, 'POST', '/stores', { platform: webhookOnly.manifest.platform, token: 't' });
      expect(other.status, JSON.stringify(other.body)).to.equal(201);
      const unsupported = await sync(other.body.data.id);
      expect(unsupported.status).to.equal(422);
      expect(unsupported.body.error.code).to.equal('sync_not_supported');
      expect((await t.api(key, 'DELETE', `/stores/${storeId}`)).status).to.equal(200);
      const disconnected = await sync();
      expect(disconnected.status).to.equal(409);
      expect(disconnected.body.error.code).to.equal('store_disconnected');
    });
  });
}
