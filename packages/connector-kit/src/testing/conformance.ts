import assert from 'node:assert/strict';
import type { Connector } from '../connector.ts';
import { eventually } from './eventually.ts';
import { publishingScenarios } from './publishing-conformance.ts';
import type { ConformanceService, FakeHttpsServer, FakePlatform, FakeStore, OrderSpec } from './fake-platform.ts';
import { storeProbes } from './store-probes.ts';
import { scaledDeadline } from './time-scale.ts';

/** The service under test, as `@print-api/core/testing` starts it. */
export interface ConformanceHarness extends ConformanceService {
  /** The reseller product SKU every scenario sells (a poster with its artwork). */
  sku: string;
  /** An approved reseller with one key and `sku` for sale; live: a funded wallet (`walletCents`). */
  reseller(mode: 'live' | 'test'): Promise<{ id: string; key: string; walletCents: number }>;
  /** Production reports the order's status (what the print partner's callback does). */
  reportProduction(orderId: string, status: 'PROCESSING'): Promise<void>;
  close(): Promise<void>;
}

/** What `@print-api/core/testing` exports, loaded at run time (core depends on the kit, not the reverse). */
export interface CoreTestingModule {
  startFakePlatformService(
    ctx: Mocha.Context,
    serve: (server: FakeHttpsServer) => Promise<Record<string, string>>,
    opts: { connectors: Connector[]; publicUrl: string; env?: Record<string, string> },
  ): Promise<ConformanceHarness>;
}

export interface ConformanceOptions {
  // The suite is generic over every connector's credentials and settings.
  connector: Connector<any, any>;
  /** Makes the fake platform (one per suite run). */
  fakePlatform: () => FakePlatform;
  /** More service environment. */
  env?: Record<string, string>;
  /** The suite's title; `<platform> conformance` when absent. */
  title?: string;
}

const PUBLIC_URL = 'https://print-api.example.com';
const OTHER_SKU = 'MUG-DELFT';

/**
 * The shared scenarios every connector passes, run against the real service (PostgreSQL +
 * Redis, its queues and workers) and the connector's fake platform: connect; a paid order
 * placed once with the right source and only the SKU-matched lines; unpaid then paid;
 * duplicate and out-of-order deliveries; forged and stale signatures; cancellation before and
 * after production; polling catch-up; token refresh (platforms with expiring tokens); tracking
 * pushed back; a 429 answered by waiting; uninstall; and, for connectors declaring
 * `capabilities.publishing`, publishing (publishing-conformance.ts: publish, update, unpublish).
 * Registers one mocha suite.
 *
 * A platform without webhooks (`capabilities.webhooks` false: Amazon) runs the polling variant
 * of each scenario: where a webhook would arrive, the order is saved in the fake store and the
 * store synced (`POST /stores/{id}/sync`); the changes carry the fake's own clock (a poll sees
 * a change when it happens, never an older one); repeated polls of the same state stand in for
 * duplicate deliveries, and the signature scenarios do not exist. Its `uninstall` withdraws our
 * access on the platform: the next call to it finds out and disconnects the store with a reason.
 *
 * @example
 * ```ts
 * // connectors/acme/test/conformance.test.ts
 * import { connectorConformance } from '@print-api/connector-kit/testing';
 * import { acmeConnector } from '../src/index.ts';
 * import { FakeAcme } from './fake-acme.ts';
 *
 * connectorConformance({ connector: acmeConnector, fakePlatform: () => new FakeAcme() });
 * ```
 */
export function connectorConformance(opts: ConformanceOptions): void {
  const platform = opts.connector.manifest.platform;
  describe(opts.title ?? `${platform} conformance (the connector kit's shared scenarios)`, function () {
    // A job that fails once is retried after 2 s, then 4 s (the stores module's backoff): the waits
    // (30 s) leave room for that on a busy machine, and each scenario for its waits.
    this.timeout(scaledDeadline(90_000));
    let h: ConformanceHarness;
    // Made now, not in a hook: its capabilities decide which scenarios exist (none is registered only to be skipped).
    const fake = opts.fakePlatform();
    const webhooks = opts.connector.manifest.capabilities.webhooks;

    before(async function () {
      // A module name in a variable: the kit takes no build dependency on core (core depends on the kit).
      const coreTesting = '@print-api/core/testing';
      const core = (await import(coreTesting)) as CoreTestingModule;
      h = await core.startFakePlatformService(this, (server) => fake.start(server), {
        connectors: [opts.connector],
        publicUrl: PUBLIC_URL,
        env: opts.env,
      });
    });
    after(async () => {
      await h?.close();
      await fake.close?.();
    });

    const { ingests, ingest, ingestIn, orders, order, sync, syncRead } = storeProbes(() => h);

    /** A paid order of two posters: the id given, or none yet (the store picks it when saved). */
    function printOrder(id: string, over?: Partial<OrderSpec>): OrderSpec & { id: string };
    function printOrder(id?: undefined, over?: Partial<OrderSpec>): OrderSpec;
    function printOrder(id?: string, over: Partial<OrderSpec> = {}): OrderSpec {
      return { paid: true, lines: [{ sku: h.sku, quantity: 2 }], ...over, ...(id ? { id } : {}) };
    }
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    /** A change `n` minutes ago; on a polled platform, now (the fake's clock): a poll sees changes as they happen. */
    const past = (n: number) => (webhooks ? minutesAgo(n) : undefined);

    /**
     * The order's change reaches us: its webhook for `event` (our HTTP status), or on a platform
     * without webhooks a sync that polls it from the store (200 once the poll read it).
     */
    async function arrive(
      key: string,
      store: FakeStore,
      spec: OrderSpec & { id: string },
      event: Parameters<FakeStore['deliver']>[1],
    ): Promise<number> {
      if (webhooks) return store.deliver(spec, event);
      await syncRead(key, store.storeId);
      return 200;
    }

    /** A fresh reseller with a store on the fake platform (its connect-time poll done). */
    async function connected(
      mode: 'live' | 'test' = 'live',
    ): Promise<{ key: string; store: FakeStore; walletCents: number }> {
      const r = await h.reseller(mode);
      return { key: r.key, walletCents: r.walletCents, store: await fake.connect(h, r.key) };
    }

    // Connectors that create products in their stores (POST /stores/{id}/listings), where the fake shows what they
    // made.
    if (opts.connector.manifest.capabilities.publishing && fake.holdsProducts)
      describe('publishing', () =>
        publishingScenarios({
          service: () => h,
          connected,
          eventually,
          publishYields: fake.publishYields ?? 'active',
        }));

    it('connects: the store is listed connected under its platform', async () => {
      const { key, store } = await connected();
      const view = (await h.api(key, 'GET', `/stores/${store.storeId}`)).body.data;
      assert.equal(view.platform, platform);
      assert.equal(view.status, 'connected');
      assert.equal(view.lastError, null);
    });

    it('places a paid order once, with the platform as source and only the SKU-matched lines', async () => {
      const { key, store } = await connected();
      const spec = printOrder(undefined, {
        lines: [
          { sku: h.sku, quantity: 2 },
          { sku: OTHER_SKU, quantity: 1 },
          { sku: '', quantity: 1 },
          { sku: null, quantity: 3 },
        ],
      });
      const id = store.saveOrder(spec);
      assert.equal(await arrive(key, store, { ...spec, id }, 'created'), 200);
      const placed = await ingestIn(key, store.storeId, id, 'placed');
      assert.deepEqual(
        placed.skippedLines.map((s) => [s.sku, s.quantity]),
        [
          [OTHER_SKU, 1],
          [null, 1],
          [null, 3],
        ],
      );
      const view = await order(key, placed.orderId!);
      assert.equal(view.source, platform);
      assert.equal(view.externalOrderId, id);
      assert.equal(view.storeId, store.storeId);
      assert.deepEqual(
        view.lines.map((l: { resellerSku: string; quantity: number }) => [l.resellerSku, l.quantity]),
        [[h.sku, 2]],
      );
      for (const [field, value] of Object.entries(fake.shipsTo))
        assert.equal(view.recipient[field], value, `recipient.${field}`);
      assert.equal(await arrive(key, store, { ...spec, id }, 'updated'), 200);
      if (!webhooks) await syncRead(key, store.storeId);
      assert.deepEqual(
        (await orders(key)).map((o) => o.id),
        [placed.orderId],
      );
    });

    it('records an order without print lines and places nothing', async () => {
      const { key, store } = await connected();
      const spec = printOrder(undefined, { lines: [{ sku: OTHER_SKU, quantity: 1 }] });
      const id = store.saveOrder(spec);
      assert.equal(await arrive(key, store, { ...spec, id }, 'created'), 200);
      await ingestIn(key, store.storeId, id, 'no_print_lines');
      assert.deepEqual(await orders(key), []);
    });

    it('waits for payment, then places the order when the paid update arrives', async () => {
      const { key, store } = await connected();
      const id = store.saveOrder(printOrder(undefined, { paid: false, updatedAt: past(10) }));
      assert.equal(await arrive(key, store, printOrder(id, { paid: false, updatedAt: past(10) }), 'created'), 200);
      // A polled platform whose order search leaves unpaid orders out (Amazon's PENDING) records nothing yet.
      if (webhooks) await ingestIn(key, store.storeId, id, 'waiting_payment');
      else
        assert.ok(
          [undefined, 'waiting_payment'].includes((await ingest(key, store.storeId, id))?.status),
          'unpaid: waiting, or not listed',
        );
      assert.deepEqual(await orders(key), []);
      store.saveOrder(printOrder(id, { updatedAt: past(5) }));
      assert.equal(await arrive(key, store, printOrder(id, { updatedAt: past(5) }), 'paid'), 200);
      await ingestIn(key, store.storeId, id, 'placed');
      assert.equal((await orders(key)).length, 1);
    });

    if (!webhooks)
      it('places an order once when polls read it again (a sync after a sync, the next run overlapping the last)', async () => {
        const { key, store } = await connected();
        const id = store.saveOrder(printOrder());
        await sync(key, store.storeId);
        const placed = await ingestIn(key, store.storeId, id, 'placed');
        await syncRead(key, store.storeId);
        await syncRead(key, store.storeId);
        assert.equal(
          Date.parse((await ingest(key, store.storeId, id))!.storeUpdatedAt!),
          Date.parse(placed.storeUpdatedAt!),
        );
        assert.deepEqual(
          (await orders(key)).map((o) => o.id),
          [placed.orderId],
        );
      });

    if (webhooks)
      it('places an order once when deliveries repeat and arrive out of order (the paid update before the creation)', async () => {
        const { key, store } = await connected();
        const paidAt = minutesAgo(5);
        const id = store.saveOrder(printOrder(undefined, { updatedAt: paidAt }));
        const created = printOrder(id, { paid: false, updatedAt: minutesAgo(10) });
        const paid = printOrder(id, { updatedAt: paidAt });
        assert.equal(await store.deliver(paid, 'updated', { deliveryId: 'd-3' }), 200);
        assert.equal(await store.deliver(created, 'created', { deliveryId: 'd-1' }), 200);
        assert.equal(await store.deliver(created, 'created', { deliveryId: 'd-1' }), 200);
        assert.equal(await store.deliver(paid, 'paid', { deliveryId: 'd-2' }), 200);
        assert.equal(await store.deliver(paid, 'paid', { deliveryId: 'd-2' }), 200);
        const placed = await ingestIn(key, store.storeId, id, 'placed');
        // The older state, delivered last, changed nothing.
        assert.equal(Date.parse(placed.storeUpdatedAt!), Date.parse(paidAt));
        assert.deepEqual(
          (await orders(key)).map((o) => o.id),
          [placed.orderId],
        );
      });

    if (webhooks)
      it('answers 401 to forged and stale deliveries and ingests nothing; the genuine one is taken', async () => {
        const { key, store } = await connected();
        // Not in the store yet: a poll cannot ingest it while the refused deliveries are checked.
        const id = store.nextOrderId();
        assert.equal(await store.deliver(printOrder(id), 'created', { tamper: 'forged' }), 401);
        assert.equal(await store.deliver(printOrder(id), 'created', { tamper: 'stale' }), 401);
        assert.deepEqual(await ingests(key, store.storeId), []);
        store.saveOrder(printOrder(id));
        assert.equal(await store.deliver(printOrder(id), 'created'), 200);
        await ingestIn(key, store.storeId, id, 'placed');
      });

    it('cancels our order when the store cancels it before production, and refunds the wallet', async () => {
      const { key, store, walletCents } = await connected();
      const id = store.saveOrder(printOrder(undefined, { updatedAt: past(10) }));
      await arrive(key, store, printOrder(id, { updatedAt: past(10) }), 'created');
      const placed = await ingestIn(key, store.storeId, id, 'placed');
      const cancelled = printOrder(id, { cancelled: true, updatedAt: past(1) });
      store.saveOrder(cancelled);
      assert.equal(await arrive(key, store, cancelled, 'cancelled'), 200);
      await ingestIn(key, store.storeId, id, 'cancelled');
      assert.equal((await order(key, placed.orderId!)).state, 'CANCELLED');
      assert.equal((await h.api(key, 'GET', '/wallet')).body.data.balanceCents, walletCents);
    });

    it('records, and does not undo, a store cancellation after production started', async () => {
      const { key, store } = await connected();
      const id = store.saveOrder(printOrder(undefined, { updatedAt: past(10) }));
      await arrive(key, store, printOrder(id, { updatedAt: past(10) }), 'created');
      const placed = await ingestIn(key, store.storeId, id, 'placed');
      await eventually(async () => (await order(key, placed.orderId!)).status === 'PAID', 'payment');
      await h.reportProduction(placed.orderId!, 'PROCESSING');
      const cancelled = printOrder(id, { cancelled: true, updatedAt: past(1) });
      store.saveOrder(cancelled);
      await arrive(key, store, cancelled, 'cancelled');
      const refused = await eventually(
        async () => (await ingest(key, store.storeId, id))?.error,
        'the recorded refusal',
      );
      assert.match(refused, /could not be/);
      assert.equal((await order(key, placed.orderId!)).status, 'PROCESSING');
    });

    it('catches up, on a sync, an order whose webhooks never came', async () => {
      const { key, store } = await connected();
      const id = store.saveOrder(printOrder(undefined, { updatedAt: past(1) }));
      await sync(key, store.storeId);
      await ingestIn(key, store.storeId, id, 'placed');
      assert.equal((await orders(key)).length, 1);
    });

    if (fake.expiringTokens)
      it('refreshes an expired access token before calling the platform', async () => {
        const { key, store } = await connected();
        const before = store.tokenRefreshes!();
        store.expireTokens!();
        const id = store.saveOrder(printOrder(undefined, { updatedAt: past(1) }));
        await sync(key, store.storeId);
        await ingestIn(key, store.storeId, id, 'placed');
        assert.ok(store.tokenRefreshes!() > before, 'a refresh-token grant');
      });

    it('pushes the tracking back to the store when production ships', async () => {
      const { key, store } = await connected('test');
      const id = store.saveOrder(printOrder());
      await arrive(key, store, printOrder(id), 'created');
      const placed = await ingestIn(key, store.storeId, id, 'placed');
      const [pushed] = await eventually(
        async () => store.pushedTracking(id).length > 0 && store.pushedTracking(id),
        'the tracking pushed',
      );
      const tracking = (await order(key, placed.orderId!)).tracking;
      assert.equal(pushed!.trackingNumber, tracking.trackingNumber);
      if (pushed!.trackingUrl !== undefined) assert.equal(pushed!.trackingUrl, tracking.trackingUrl);
      assert.equal(store.pushedTracking(id).length, 1);
    });

    it("answers the platform's 429 by waiting Retry-After, then pushes once", async () => {
      const { key, store } = await connected('test');
      const attempts = store.rateLimitNextPush(1);
      const id = store.saveOrder(printOrder());
      await arrive(key, store, printOrder(id), 'created');
      await eventually(async () => store.pushedTracking(id).length > 0, 'the tracking pushed');
      const at = attempts();
      assert.equal(at.length, 2, `push attempts: ${at.length}`);
      assert.ok(at[1]! - at[0]! >= 900, `waited ${at[1]! - at[0]!} ms`);
      assert.equal(store.pushedTracking(id).length, 1);
    });

    it('stops taking orders once the store is uninstalled (disconnected), keeping the orders placed', async () => {
      const { key, store } = await connected();
      const id = store.saveOrder(printOrder());
      await arrive(key, store, printOrder(id), 'created');
      await ingestIn(key, store.storeId, id, 'placed');
      if (store.uninstall) assert.equal(await store.uninstall(), 200);
      else assert.equal((await h.api(key, 'DELETE', `/stores/${store.storeId}`)).status, 200);
      // Without webhooks, the platform says nothing: our next call to it finds the access withdrawn.
      if (!webhooks && store.uninstall)
        await eventually(
          async () => [202, 409].includes((await h.api(key, 'POST', `/stores/${store.storeId}/sync`)).status),
          'a sync asked for',
        );
      await eventually(
        async () => (await h.api(key, 'GET', `/stores/${store.storeId}`)).body.data.status === 'disconnected',
        'disconnection',
      );
      if (!webhooks && store.uninstall)
        assert.ok(
          (await h.api(key, 'GET', `/stores/${store.storeId}`)).body.data.lastError,
          'the reason of the disconnection',
        );
      const sync = await h.api(key, 'POST', `/stores/${store.storeId}/sync`);
      assert.equal(sync.status, 409);
      assert.equal(sync.body.error.code, 'store_disconnected');
      assert.equal((await orders(key)).length, 1);
    });
  });
}
