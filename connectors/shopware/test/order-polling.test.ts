import assert from 'node:assert/strict';
import type { ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { startFakePlatformServer, type FakePlatformServer } from '@print-api/core/testing';
import type { ShopwareCredentials } from '../src/config.ts';
import { shopwareConnector } from '../src/index.ts';
import { FakeShopware, saveOrder } from './fake-shopware.ts';
import type { FakeShopwareShop } from './fake-shopware-shop.ts';
import { hexId } from './fake-shopware-shop.ts';
import { takeContractViolations } from './shopware-contract.ts';

/** Every page of one poll, as core reads them: until `done`, an empty page, or the cursor stops moving. */
async function poll(ctx: ConnectorContext, store: StoreConnection<ShopwareCredentials>, cursor: string | null) {
  const seen: Array<{ id: string; paid: boolean; cancelled: boolean }> = [];
  for (let page = 0; page < 100; page++) {
    const res = await shopwareConnector.listOrders!(ctx, store, cursor);
    seen.push(...res.orders.map((o) => ({ id: o.externalId, paid: o.paid, cancelled: o.cancelled })));
    const next = res.nextCursor ?? cursor;
    const stop = res.done || res.orders.length === 0 || res.nextCursor === cursor;
    cursor = next;
    if (stop) break;
  }
  return { seen, cursor };
}

describe('Shopware order polling (the connector against the fake over local HTTPS)', function () {
  afterEach(() => assert.deepEqual(takeContractViolations(), []));
  this.timeout(60_000);
  let server: FakePlatformServer;
  let shop: FakeShopwareShop;
  let ctx: ConnectorContext;
  let store: StoreConnection<ShopwareCredentials>;

  before(async () => {
    server = await startFakePlatformServer();
    const shopware = new FakeShopware();
    await shopware.start(server);
    shop = shopware.newShop();
    ctx = server.context('shopware', {});
    store = await shopwareConnector.connect(ctx, {
      shopUrl: shop.url,
      accessKeyId: shop.accessKeyId,
      secretAccessKey: shop.secretAccessKey,
    });
  });
  after(async () => server?.close());

  it('reads every order across pages (ties at a page boundary included), then payments and cancellations', async () => {
    const base = Date.now() - 30 * 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 130; i++) {
      const id = hexId();
      ids.push(id);
      // Groups of three orders placed in the same millisecond.
      saveOrder(shop, {
        id,
        paid: false,
        lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }],
        updatedAt: new Date(base + Math.floor(i / 3) * 1000).toISOString(),
      });
    }
    const first = await poll(ctx, store, null);
    assert.deepEqual([...new Set(first.seen.map((o) => o.id))].sort(), [...ids].sort());
    assert.ok(shop.seen('POST', /^\/api\/search\/order$/).length >= 3, 'paged');

    // Nothing new: the next poll reads the overlap only, and stops.
    const again = await poll(ctx, store, first.cursor);
    assert.ok(again.seen.every((o) => ids.includes(o.id)));

    // Paid (only the transactions change) and cancelled (the order's state): both read by the next poll.
    saveOrder(shop, { id: ids[5]!, paid: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }] });
    saveOrder(shop, { id: ids[7]!, paid: false, cancelled: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }] });
    const later = await poll(ctx, store, again.cursor);
    assert.ok(later.seen.some((o) => o.id === ids[5] && o.paid));
    assert.ok(later.seen.some((o) => o.id === ids[7] && o.cancelled));
  });

  it('renews an expired token with the integration keys, and says when the integration is gone (revoked)', async () => {
    const grants = shop.tokenGrants;
    shop.expireTokens();
    await shopwareConnector.listOrders!(ctx, store, null);
    assert.equal(shop.tokenGrants, grants + 1);
    const due = { ...store, credentials: { ...store.credentials, accessTokenExpiresAt: new Date().toISOString() } };
    assert.equal(shopwareConnector.credentialsDue!(due, new Date()), true);
    const renewed = await shopwareConnector.refreshCredentials!(ctx, due);
    assert.ok(renewed?.accessToken && renewed.accessToken !== store.credentials.accessToken);
    shop.deleteIntegration();
    await assert.rejects(
      shopwareConnector.refreshCredentials!(ctx, due),
      (err: any) => err.kind === 'auth' && err.revoked,
    );
  });
});
