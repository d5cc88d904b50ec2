import { createServer } from 'node:https';
import { answerWith } from '@print-api/connector-kit/testing';
import { APP, FakeTikTokShopPlatform } from '../../connectors/tiktok-shop/test/fake-tiktok-shop.ts';
import { tiktokId } from '../../connectors/tiktok-shop/test/fake-tiktok-shop-operations.ts';
import { tiktokOrderOf } from '../../connectors/tiktok-shop/test/fake-tiktok-shop-store.ts';
import { webhookSignature } from '../../connectors/tiktok-shop/src/signing.ts';
import { testCertificates } from '../../core/test/helpers/tls.ts';
import type { Platform } from '../connector-scenarios.ts';

/**
 * The bench's TikTok Shop: the fake TikTok Shop (every call's signature, token and cipher
 * checked) on an HTTPS server of this process, whose CA the service trusts, started when the
 * bench loads so its settings reach the service (the child processes inherit process.env).
 * TikTok's notifications carry no order: the service fetches each batch's orders from it.
 */
const tiktok = new FakeTikTokShopPlatform();
const { cert, key } = await testCertificates();
const handler = answerWith((req) => tiktok.answer(req));
const server = createServer({ cert, key }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => void handler(req, res, Buffer.concat(chunks)));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
server.unref();
const address = server.address();
const url = `https://localhost:${typeof address === 'object' && address ? address.port : 0}`;
Object.assign(
  process.env,
  tiktok.serve({ url, route: () => undefined, fallback: () => undefined, close: async () => void server.close() }),
);
const shop = tiktok.addShop({ name: 'Bench Prints DE' });
const tokens = tiktok.issueToken([shop.id]);

/**
 * TikTok Shop: a shop seeded as authorised (its token good for a week, so nothing is renewed),
 * type 1 ORDER_STATUS_CHANGE notifications signed with the app secret, posted to the app-level
 * webhook URL and routed by shop_id; each names a new AWAITING_SHIPMENT order (one unit of
 * POSTER-TULIPS to Berlin) that the fake holds, fetched by the service in batches.
 */
export const tiktokShopBench: Platform = {
  name: 'TikTok Shop',
  slug: 'tiktok-shop',
  platform: 'TIKTOK_SHOP',
  appLevelWebhooks: true,
  externalId: () => shop.id,
  credentials: () => ({
    shopId: shop.id,
    shopCipher: shop.cipher,
    region: shop.region,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: new Date(Date.now() + 7 * 86400_000).toISOString(),
    refreshToken: tokens.refreshToken,
    refreshTokenExpiresAt: new Date(Date.now() + 365 * 86400_000).toISOString(),
    openId: '7010736057180325637',
    sellerName: 'Bench Prints',
  }),
  secret: () => APP.appSecret,
  storeSecret: false,
  delivery: (_ctx, _n, secret) => {
    const order = tiktokOrderOf({ id: tiktokId(), paid: true, lines: [{ sku: 'POSTER-TULIPS', quantity: 1 }] });
    tiktok.save(shop, order);
    const body = JSON.stringify({
      type: 1,
      tts_notification_id: tiktokId(),
      shop_id: shop.id,
      timestamp: Math.floor(Date.now() / 1000),
      data: { is_on_hold_order: false, order_id: order.id, order_status: order.status, update_time: order.update_time },
    });
    return {
      body,
      headers: { 'content-type': 'application/json', authorization: webhookSignature(APP.appKey, secret, body) },
    };
  },
};
