import { expect } from 'chai';
import { ConnectorError, defineConnector, type ConnectorContext } from '@print-api/connector-kit';
import { mapReferenceOrder, referenceConnector } from '../../../test/reference-connector/src/index.ts';
import { ConnectorRegistry } from '../../src/modules/stores/connector-registry.ts';
import { StoreCalls } from '../../src/modules/stores/outbound/store-calls.ts';
import { createRateLimiter } from '../../src/infra/rate-limit.ts';
import { RetryLaterError } from '../../src/infra/queue/job-queue.ts';
import { refOrder } from '../helpers/reference-shop.ts';
import { referenceStoreWorld, type ReferenceStoreWorld } from '../helpers/reference-store.ts';
import type { Backend, TestService } from '../helpers/test-service.ts';
import { scaled } from '../helpers/wait.ts';

type RefCredentials = { shopUrl: string; token: string };

/**
 * Credentials renewed before platform calls (StoreCalls): one renewal at a time per store
 * across processes, each on the credentials as stored then (a rotated refresh token is never
 * spent twice), and a renewal the platform refuses disconnects the store with the reason. And
 * a store order whose platform withheld the address waits for it (waiting_address).
 */
for (const backend of ['pglite', 'postgres+redis'] as Backend[]) {
  describe(`store credential renewal and withheld addresses [${backend}]`, function () {
    this.timeout(scaled(60_000));
    let world: ReferenceStoreWorld | undefined;
    let t: TestService;
    let storeId: string;

    before(async function () {
      world = await referenceStoreWorld(this, backend);
      ({ t, storeId } = world);
    });
    after(async () => {
      await world?.close();
    });

    const store = () =>
      t.service.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();
    const ingest = (externalId: string) =>
      t.service.db
        .selectFrom('store_ingests')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('external_order_id', '=', externalId)
        .executeTakeFirstOrThrow();

    /** StoreCalls as one more process would have it, with the reference connector renewing as `refresh` says. */
    function processWith(
      refresh: (credentials: RefCredentials) => Promise<RefCredentials | null>,
      due?: (credentials: RefCredentials) => boolean,
    ): StoreCalls {
      const connector = defineConnector<RefCredentials>({
        ...referenceConnector,
        refreshCredentials: (_ctx: unknown, s: { credentials: RefCredentials }) => refresh(s.credentials),
        ...(due ? { credentialsDue: (s: { credentials: RefCredentials }) => due(s.credentials) } : {}),
      } as never);
      const context = (): ConnectorContext => ({ clock: () => new Date() }) as ConnectorContext;
      return new StoreCalls({
        connections: t.service.services.stores.connections,
        credentials: t.service.services.stores.credentials,
        connectors: new ConnectorRegistry([connector]),
        context,
        callLimiter: () => ({
          consume: async () => ({ allowed: true, limit: 1000, remaining: 1000, resetSeconds: 1, msBeforeNext: 0 }),
        }),
      });
    }

    it('renews one at a time across processes, each renewal on the token the previous one stored', async () => {
      const spent: string[] = [];
      // A platform that rotates the refresh token on every use (Etsy, Shopify): a token spent twice is refused.
      const rotate = async (c: RefCredentials): Promise<RefCredentials> => {
        if (spent.includes(c.token)) throw new ConnectorError('auth', `refresh token ${c.token} was used already`);
        spent.push(c.token);
        await new Promise((r) => setTimeout(r, 20));
        return { ...c, token: `rot-${spent.length}` };
      };
      const processes = [processWith(rotate), processWith(rotate), processWith(rotate)];
      const row = await store();
      const seen = await Promise.all(processes.flatMap((p) => [p.connection(row), p.connection(row)]));
      expect(spent).to.have.length.within(3, 6);
      expect(new Set(spent).size).to.equal(spent.length);
      const stored = t.service.services.stores.credentials.connection(await store()).credentials as RefCredentials;
      expect(stored.token).to.equal(`rot-${spent.length}`);
      for (const c of seen) expect((c.credentials as RefCredentials).token).to.match(/^rot-\d+$/);
      expect((await store()).status).to.equal('connected');
    });

    it('a renewal that is not due changes nothing and hands over the stored credentials', async () => {
      const before = await store();
      const calls = processWith(async () => null);
      const c = await calls.connection(before);
      expect(c.credentials).to.deep.equal(t.service.services.stores.credentials.connection(before).credentials);
      expect((await store()).credentials_sealed).to.equal(before.credentials_sealed);
    });

    it('renews only when the connector says the credentials are due (credentialsDue), with the stored credentials either way', async () => {
      const row = await store();
      const asked: string[] = [];
      const notDue = processWith(
        async (c) => (asked.push(c.token), null),
        () => false,
      );
      const c = await notDue.connection(row);
      expect(asked, 'no renewal run when nothing is due').to.deep.equal([]);
      expect(c.credentials).to.deep.equal(t.service.services.stores.credentials.connection(row).credentials);
      const due = processWith(
        async (c) => (asked.push(c.token), { ...c, token: `${c.token}-renewed` }),
        (c) => !c.token.endsWith('-renewed'),
      );
      const renewed = (await due.connection(await store())).credentials as RefCredentials;
      expect(asked).to.have.length(1);
      expect(renewed.token).to.match(/-renewed$/);
      expect(
        ((await due.connection(await store())).credentials as RefCredentials).token,
        'the renewed credentials are not due again',
      ).to.equal(renewed.token);
      expect(asked).to.have.length(1);
    });

    it("waits for one of the store's calls up to the time given (connectionWithin), and past it says when to try again", async () => {
      const connector = defineConnector<RefCredentials>({ ...referenceConnector } as never);
      const calls = new StoreCalls({
        connections: t.service.services.stores.connections,
        credentials: t.service.services.stores.credentials,
        connectors: new ConnectorRegistry([connector]),
        context: (): ConnectorContext => ({ clock: () => new Date() }) as ConnectorContext,
        // One call a second per store, counted by the real in-memory limiter.
        callLimiter: () => createRateLimiter({ points: 1, durationMs: 1000, keyPrefix: `within-${backend}` }),
      });
      const row = await store();
      await calls.connection(row);
      const started = Date.now();
      await calls.connectionWithin(row, 3000);
      expect(Date.now() - started, 'waited for the next window').to.be.above(0);
      const refused = await calls.connectionWithin(row, 10).catch((err: unknown) => err);
      expect(refused).to.be.instanceOf(RetryLaterError);
      expect((refused as RetryLaterError).retryAfterMs).to.be.within(1, 1000);
    });

    it('records a store order whose platform withheld the address as waiting_address with the reason, and places it once the address comes', async () => {
      const ingester = t.service.services.storesModule.ingester;
      const withheld = {
        ...mapReferenceOrder(refOrder('W-1', { updated_at: '2026-11-20T10:01:00Z' })),
        recipient: null,
        recipientMissing: 'The platform shares addresses with approved apps only.',
      };
      await ingester.ingest(await store(), withheld);
      expect(await ingest('W-1')).to.include({
        status: 'waiting_address',
        error: 'The platform shares addresses with approved apps only.',
        order_id: null,
      });
      // Without a reason the outcome stays what it was: a failure.
      await ingester.ingest(await store(), { ...mapReferenceOrder(refOrder('W-2')), recipient: null });
      expect(await ingest('W-2')).to.include({ status: 'failed', error: 'The store order has no shipping address.' });
      await ingester.ingest(await store(), mapReferenceOrder(refOrder('W-1', { updated_at: '2026-11-20T10:03:00Z' })));
      const placed = await ingest('W-1');
      expect(placed.status).to.equal('placed');
      expect(placed.error).to.equal(null);
    });

    // Last: the store is disconnected by it.
    it('a renewal the platform refuses (auth) disconnects the store with the reason', async () => {
      const calls = processWith(async () => {
        throw new ConnectorError('auth', 'the refresh token was revoked', { revoked: true });
      });
      let failure: unknown;
      await calls.connection(await store()).catch((err: unknown) => (failure = err));
      expect(failure).to.be.instanceOf(ConnectorError);
      const row = await store();
      expect(row.status).to.equal('disconnected');
      expect(row.last_error).to.equal(
        "Reference shop refused to renew the store's access, so it was disconnected: the refresh token was revoked. Connect the store again.",
      );
    });
  });
}
