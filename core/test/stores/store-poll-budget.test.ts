import { expect } from 'chai';
import { z } from 'zod';
import {
  ConnectorError,
  defineConnector,
  type Connector,
  type ConnectorManifest,
  type StoreOrder,
} from '@print-api/connector-kit';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import { cardsReseller } from '../helpers/reference-store.ts';
import { startTestService, type Backend, type TestService } from '../helpers/test-service.ts';
import { waitFor, scaled } from '../helpers/wait.ts';
import { startFileServer } from '../orders/orders-helpers.ts';

/** A polled-only platform, in memory: its sellers' orders, what it was asked and when. */
const platform = {
  orders: new Map<string, StoreOrder[]>(),
  calls: [] as Array<{ store: string; at: number }>,
  revoked: new Set<string>(),
};
const order = (id: string): StoreOrder => ({
  externalId: id,
  paid: true,
  cancelled: false,
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  lines: [{ externalLineId: `${id}-1`, sku: 'CARD-01', quantity: 100 }],
  recipient: {
    name: 'Sanne Bakker',
    address1: 'Oudegracht 140',
    postalCode: '3511 AZ',
    city: 'Utrecht',
    country: 'NL',
  },
});
let n = 0;

type Seller = { seller: string };

/** A polled-only platform whose sellers connect by name, with its budgets and its order search. */
function polledPlatform(
  platform: string,
  budgets: Pick<ConnectorManifest<Seller>, 'rateLimit' | 'pollBudget'>,
  rest: Pick<Connector<Seller>, 'listOrders' | 'storeNotices'>,
): Connector<Seller> {
  return defineConnector<Seller>({
    manifest: {
      platform,
      displayName: `${platform} platform`,
      connectSchema: z.strictObject({ seller: z.string() }),
      examples: { connect: { seller: 'S1' } },
      credentialsSchema: z.object({ seller: z.string() }),
      capabilities: { webhooks: false, polling: true, fulfilment: false, oauth: false },
      ...budgets,
    },
    connect: async (_ctx, input) => {
      const { seller } = input as Seller;
      return { externalId: seller, name: `Seller ${seller}`, credentials: { seller } };
    },
    verifyWebhook: () => ({ ok: false, reason: 'no webhooks' }),
    parseWebhook: async () => ({ kind: 'ignored', reason: 'no webhooks' }),
    ...rest,
  });
}

/** Searches metered at 2 at once, one more every 3 s; every page ends its run (`done`); renewals to remind of. */
const metered = polledPlatform(
  'METERED',
  { rateLimit: { max: 100, durationMs: 1000 }, pollBudget: { burst: 2, refillMs: 3000 } },
  {
    async listOrders(_ctx, store) {
      platform.calls.push({ store: store.credentials.seller, at: Date.now() });
      if (platform.revoked.has(store.credentials.seller))
        throw new ConnectorError('auth', 'The seller withdrew our access on the platform.', { revoked: true });
      // The cursor moves on every call (a checkpoint of the platform's clock): `done` ends the run.
      return {
        orders: platform.orders.get(store.credentials.seller) ?? [],
        nextCursor: `checkpoint-${Date.now()}-${n++}`,
        done: true,
      };
    },
    storeNotices: (store) => [`Renew the authorisation of ${store.credentials.seller} by 2027-01-01.`],
  },
);

/**
 * Searches metered on their own (a budget per operation) and paged: a run's pages take from that budget, not from the
 * store's general one of one call in ten minutes.
 */
const pages = { calls: [] as string[] };
const meteredPages = polledPlatform(
  'METERED_PAGES',
  { rateLimit: { max: 1, durationMs: 600_000 }, pollBudget: { burst: 10, refillMs: 600_000 } },
  {
    async listOrders(_ctx, store, cursor) {
      pages.calls.push(`${store.credentials.seller}:${cursor ?? 'start'}`);
      const page = cursor ? Number(cursor.split('-')[1]) : 0;
      return page < 3
        ? { orders: [order(`${store.credentials.seller}-P${page}`)], nextCursor: `page-${page + 1}` }
        : { orders: [], nextCursor: cursor };
    },
  },
);

for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`a platform's order-search budget, runs that end on a page, revoked access and notices [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let t: TestService;
    let files: TestHttpsServer;
    let key: string;

    before(async function () {
      files = await startFileServer();
      t = await startTestService(this, backend, {}, { connectors: [metered, meteredPages] });
      const r = await cardsReseller(t, files);
      key = r.key;
    });
    after(async () => {
      await t?.close();
      await files?.close();
    });

    const calls = (seller: string) => platform.calls.filter((c) => c.store === seller);
    async function connected(): Promise<{ seller: string; storeId: string }> {
      const seller = `${backend}-${n++}`;
      const res = await t.api(key, 'POST', '/stores', { platform: 'METERED', seller });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await waitFor('the first poll', async () => calls(seller).length === 1 || undefined);
      const storeId = res.body.data.id as string;
      await waitFor(
        'the first poll to end',
        async () =>
          (
            await t.service.db
              .selectFrom('stores')
              .select('poll_lease_until')
              .where('id', '=', storeId)
              .executeTakeFirstOrThrow()
          ).poll_lease_until === null || undefined,
      );
      return { seller, storeId };
    }

    it('answers a sync with pollsAt: now within the burst, else when the next search is allowed; the poll searches then, and one page marked done ends the run', async () => {
      const { seller, storeId } = await connected();
      platform.orders.set(seller, [order(`${seller}-A`)]);
      const now = await t.api(key, 'POST', `/stores/${storeId}/sync`);
      expect(now.status).to.equal(202);
      expect(Date.parse(now.body.data.pollsAt) - Date.parse(now.body.data.requestedAt)).to.be.below(500);
      await waitFor('the order placed', async () => {
        const ingest = await t.service.db
          .selectFrom('store_ingests')
          .select(['status', 'error'])
          .where('store_id', '=', storeId)
          .executeTakeFirst();
        if (ingest?.status === 'failed') throw new Error(`ingest failed: ${ingest.error}`);
        return ingest?.status === 'placed' || undefined;
      });
      // The page held an order and the cursor moved, yet the run ended on it: two searches in all.
      expect(calls(seller)).to.have.length(2);
      const later = await waitFor<any>('a sync accepted', async () => {
        const res = await t.api(key, 'POST', `/stores/${storeId}/sync`);
        return res.status === 202 ? res : undefined;
      });
      const waitMs = Date.parse(later.body.data.pollsAt) - Date.parse(later.body.data.requestedAt);
      expect(waitMs).to.be.within(1000, 3000);
      // Asked again while the poll waits: the same answer, not a conflict (but in the instant the waiting poll checks
      // the budget).
      const again = await waitFor<any>('the sync asked again', async () => {
        const res = await t.api(key, 'POST', `/stores/${storeId}/sync`);
        return res.status === 202 ? res : undefined;
      });
      expect(Math.abs(Date.parse(again.body.data.pollsAt) - Date.parse(later.body.data.pollsAt))).to.be.below(250);
      await waitFor('the third search', async () => calls(seller).length === 3 || undefined, 20_000);
      expect(calls(seller)[2]!.at).to.be.at.least(Date.parse(later.body.data.pollsAt) - 250);
    });

    it("reads a run's pages within the search's own budget, not the store's general call budget", async () => {
      const seller = `${backend}-pages-${n++}`;
      const res = await t.api(key, 'POST', '/stores', { platform: 'METERED_PAGES', seller });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      // One general call in ten minutes would hold the second page back for ten minutes.
      await waitFor(
        'every page of the first poll',
        async () => pages.calls.filter((c) => c.startsWith(`${seller}:`)).length === 4 || undefined,
        20_000,
      );
      expect(pages.calls.filter((c) => c.startsWith(`${seller}:`))).to.deep.equal([
        `${seller}:start`,
        `${seller}:page-1`,
        `${seller}:page-2`,
        `${seller}:page-3`,
      ]);
    });

    it("disconnects a store whose access the merchant withdrew, with the connector's reason, and shows the connector's notices while connected", async () => {
      const { seller, storeId } = await connected();
      const view = (await t.api(key, 'GET', `/stores/${storeId}`)).body.data;
      expect(view.notices).to.deep.equal([`Renew the authorisation of ${seller} by 2027-01-01.`]);
      platform.revoked.add(seller);
      expect((await t.api(key, 'POST', `/stores/${storeId}/sync`)).status).to.equal(202);
      const gone = await waitFor('disconnection', async () => {
        const v = (await t.api(key, 'GET', `/stores/${storeId}`)).body.data;
        return v.status === 'disconnected' ? v : undefined;
      });
      expect(gone.lastError).to.equal('The seller withdrew our access on the platform.');
      expect(gone.notices).to.deep.equal([]);
    });
  });
}
