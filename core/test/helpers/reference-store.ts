import { expect } from 'chai';
import { referenceConnector } from '../../../test/reference-connector/src/index.ts';
import { startFileServer } from '../orders/orders-helpers.ts';
import type { TestHttpsServer } from './https-server.ts';
import { ReferenceShop } from './reference-shop.ts';
import { startTestService, type Backend, type TestService } from './test-service.ts';
import { waitFor } from './wait.ts';

/** A service with the reference connector and one store of it, connected and caught up. */
export interface ReferenceStoreWorld {
  t: TestService;
  files: TestHttpsServer;
  shop: ReferenceShop;
  storeId: string;
  close(): Promise<void>;
}

/**
 * An approved reseller, its live wallet funded, selling `CARD-01` (business cards, their print file on `files`): what
 * the reference platform's orders hold.
 */
export async function cardsReseller(t: TestService, files: TestHttpsServer) {
  const r = await t.reseller();
  await t.admin('POST', `/resellers/${r.id}/wallet/top-ups`, { amountCents: 10_000_000 });
  const product = await t.api(r.key, 'POST', '/reseller-products', {
    sku: 'CARD-01',
    title: 'Cards',
    productId: 'business-cards',
    fileUrl: `${files.url}/art/flyer.pdf`,
  });
  expect(product.status, JSON.stringify(product.body)).to.equal(201);
  return r;
}

/**
 * Starts a service on `backend` with the reference connector, a reseller with a funded live
 * wallet selling `CARD-01` (business cards, a print file on a local HTTPS server), and a
 * reference shop connected to it, whose catch-up poll has run: the stage for tests that drive
 * the stores module's steps one by one.
 */
export async function referenceStoreWorld(
  ctx: Mocha.Context,
  backend: Backend,
  env: Record<string, string> = {},
): Promise<ReferenceStoreWorld> {
  const files = await startFileServer();
  const shop = await ReferenceShop.start();
  const t = await startTestService(ctx, backend, env, { connectors: [referenceConnector] });
  const r = await cardsReseller(t, files);
  const connected = await t.api(r.key, 'POST', '/stores', {
    platform: referenceConnector.manifest.platform,
    shopUrl: shop.url,
    token: 'tok-1',
  });
  expect(connected.status, JSON.stringify(connected.body)).to.equal(201);
  const storeId = connected.body.data.id as string;
  const polled = async () =>
    (
      await t.service.db
        .selectFrom('stores')
        .select('last_polled_at')
        .where('id', '=', storeId)
        .executeTakeFirstOrThrow()
    ).last_polled_at;
  await waitFor('the catch-up poll', async () => (await polled()) !== null);
  return {
    t,
    files,
    shop,
    storeId,
    close: async () => {
      await t.close();
      await shop.close();
      await files.close();
    },
  };
}
