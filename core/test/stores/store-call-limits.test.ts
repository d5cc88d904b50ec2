import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import nock from 'nock';
import { defineConnector } from '@print-api/connector-kit';
import { referenceConnector } from '../../../test/reference-connector/src/index.ts';
import { RetryLaterError } from '../../src/infra/queue/job-queue.ts';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { refOrder } from '../helpers/reference-shop.ts';
import { cardsReseller } from '../helpers/reference-store.ts';
import { startFileServer } from '../orders/orders-helpers.ts';
import { waitFor, scaled } from '../helpers/wait.ts';

/**
 * The reference connector with a tight budget: 3 calls per store per minute. Without its
 * listings (their sync on connect would spend a call of the budget these tests count; listings
 * syncs take their calls the same way, store-listings.test.ts).
 */
const { listListings: _listings, ...withoutListings } = referenceConnector;
const limited = defineConnector({
  ...withoutListings,
  manifest: { ...referenceConnector.manifest, rateLimit: { max: 3, durationMs: 60_000 } },
});
const SHOPS = ['https://limited-a.example', 'https://limited-b.example'];

/**
 * A platform's rate limit is a budget per store, taken before each call to the platform and
 * shared by every process: one store that spent its budget waits (its jobs are put back, no
 * attempt spent) while other stores go on, and orders that arrive in their webhooks (no call
 * to make) are never held back.
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`platform rate limits per store [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    let key: string;
    const stores: Array<{ id: string; secret: string }> = [];
    const listCalls = new Map<string, number>();

    before(async function () {
      files = await startFileServer();
      t = await startTestService(this, backend, {}, { connectors: [limited] });
      nock.disableNetConnect();
      nock.enableNetConnect(/127\.0\.0\.1|localhost/);
      const secrets = new Map<string, string>();
      for (const [i, shop] of SHOPS.entries()) {
        nock(shop)
          .persist()
          .get('/api/shop')
          .reply(200, { id: `limited-${i}`, name: `Limited ${i}` })
          .post('/api/webhooks', (body: unknown) => {
            const parsed = (typeof body === 'string' ? (body ? JSON.parse(body) : {}) : body) as
              | { secret?: string }
              | undefined;
            if (!parsed?.secret) return false;
            secrets.set(shop, parsed.secret);
            return true;
          })
          .reply(201, { id: 'wh-1' })
          .get(/\/api\/orders.*/)
          .reply(200, { orders: [] })
          // Counted as replied: nock 15's reply functions do not suit core's fetch.
          .on('replied', (req: { url?: string; path?: string }) => {
            if (new URL(req.url ?? req.path ?? '', shop).pathname === '/api/orders')
              listCalls.set(shop, (listCalls.get(shop) ?? 0) + 1);
          });
      }
      const r = await cardsReseller(t, files);
      key = r.key;
      for (const shop of SHOPS) {
        const res = await t.api(key, 'POST', '/stores', { platform: 'REFERENCE', shopUrl: shop, token: 'tok' });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        const secret = (await waitFor('webhook secret', () => secrets.get(shop)))!;
        stores.push({ id: res.body.data.id, secret });
      }
      // Connecting spent two calls of each store's budget: the webhook registration and the catch-up poll.
      await waitFor('catch-up polls', () => SHOPS.every((s) => listCalls.get(s) === 1));
    });
    after(async () => {
      nock.cleanAll();
      nock.enableNetConnect();
      await t?.close();
      await files?.close();
    });

    it('makes a store that spent its budget wait, without holding back another store', async () => {
      const { poller } = t.service.services.storesModule;
      const a = stores[0]!;
      const b = stores[1]!;
      await poller.poll(a.id);
      expect(listCalls.get(SHOPS[0]!)).to.equal(2);
      const waited = await poller.poll(a.id).then(
        () => null,
        (err: unknown) => err,
      );
      expect(waited).to.be.instanceOf(RetryLaterError);
      expect((waited as RetryLaterError).retryAfterMs)
        .to.be.greaterThan(1000)
        .and.at.most(60_000);
      expect(listCalls.get(SHOPS[0]!), 'no call beyond the budget').to.equal(2);
      await poller.poll(b.id);
      expect(listCalls.get(SHOPS[1]!)).to.equal(2);
    });

    it('places orders that arrive in webhooks for a store whose budget is spent', async () => {
      const a = stores[0]!;
      const ids = Array.from({ length: 10 }, (_, i) => `L-${i}`);
      for (const id of ids) {
        const body = JSON.stringify({ order: refOrder(id) });
        const res = await fetch(`${t.baseUrl}/connectors/reference/webhooks/${a.id}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-ref-signature': createHmac('sha256', a.secret).update(body).digest('hex'),
            'x-ref-event-id': randomUUID(),
            'x-ref-topic': 'order.updated',
            'user-agent': 'RefShop-Hookshot/1.0',
          },
          body,
        });
        expect(res.status).to.equal(200);
      }
      const placed = async () =>
        (
          await t.service.db
            .selectFrom('store_ingests')
            .select('status')
            .where('store_id', '=', a.id)
            .where('external_order_id', 'in', ids)
            .execute()
        ).filter((r) => r.status === 'placed').length;
      await waitFor('ten placed', async () => (await placed()) === 10);
    });
  });
}
