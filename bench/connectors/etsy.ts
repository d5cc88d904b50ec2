import { createServer } from 'node:https';
import type { FakeRequestHandler } from '@print-api/connector-kit/testing';
import { APP, FakeEtsy } from '../../connectors/etsy/test/fake-etsy.ts';
import { receiptOf } from '../../connectors/etsy/test/fake-etsy-receipts.ts';
import { testCertificates } from '../../core/test/helpers/tls.ts';
import type { Platform } from '../connector-scenarios.ts';

/**
 * The bench's Etsy: the fake Etsy (every call's x-api-key and Bearer token checked) on an HTTPS
 * server of this process, whose CA the service trusts, started when the bench loads so its
 * settings reach the service (the child processes inherit process.env). Its budget is Etsy's
 * default, 10 calls a second, and a day's large enough for the bench.
 */
const etsy = new FakeEtsy();
etsy.limitPerSecond = 10;
etsy.limitPerDay = 1_000_000;
// Not due for renewal during the bench.
etsy.tokenLifetimeSeconds = 24 * 3600;
const { cert, key } = await testCertificates();
let handler: FakeRequestHandler | undefined;
const server = createServer({ cert, key }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => void (handler ? handler(req, res, Buffer.concat(chunks)) : res.writeHead(404).end()));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
server.unref();
const address = server.address();
const url = `https://localhost:${typeof address === 'object' && address ? address.port : 0}`;
Object.assign(
  process.env,
  etsy.serve({
    url,
    route: () => undefined,
    fallback: (h) => void (handler = h),
    close: async () => void server.close(),
  }),
);
const shop = etsy.addShop();
const tokens = etsy.issueTokens(shop);

/**
 * Etsy's ingestion: a shop seeded as connected; each store order a new paid receipt (one
 * POSTER-TULIPS to Utrecht) saved in the fake shop, and Etsy's thin `order.paid` naming it,
 * signed the Standard Webhooks way with the app's `whsec_` secret, posted to the app-level
 * webhook URL and routed by shop_id. The service fetches the receipts from the fake.
 */
export const etsyBench: Platform = {
  name: 'Etsy',
  slug: 'etsy',
  platform: 'ETSY',
  appLevelWebhooks: true,
  externalId: () => shop.shopId,
  credentials: () => ({
    shopId: shop.shopId,
    userId: shop.userId,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt.toISOString(),
    refreshToken: tokens.refreshToken,
  }),
  secret: () => APP.webhookSecret,
  storeSecret: false,
  delivery: (_ctx, _n, secret) => {
    const id = etsy.nextReceiptId();
    etsy.saveReceipt(shop, receiptOf({ id, paid: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }] }));
    return etsy.delivery(shop, id, { secret });
  },
};
