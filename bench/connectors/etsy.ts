import { randomBytes } from 'node:crypto';
import { standardWebhook } from '@print-api/connector-kit/testing';
import receiptFixture from '../../connectors/etsy/test/fixtures/receipt.json' with { type: 'json' };
import type { Platform } from '../connector-scenarios.ts';

/** The bench's Etsy shop (and its owner): the store the signed order.paid deliveries name. */
const SHOP_ID = 90001;
const USER_ID = 9000100;
const SKU = 'POSTER-TULIPS';
const RECEIPT = /^\/v3\/application\/shops\/(\d+)\/receipts\/(\d+)$/;

/**
 * The service's settings for the bench's Etsy: the app's keys, its webhook secret, and the
 * file server (which answers Etsy's receipt calls, `etsyAnswer`) as Open API's origin.
 */
export function etsyBenchEnv(fileServerUrl: string): Record<string, string> {
  return {
    CONNECTOR_ETSY_KEYSTRING: 'benchkeystring0000000000',
    CONNECTOR_ETSY_SHARED_SECRET: 'benchsharedsecret',
    CONNECTOR_ETSY_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
    CONNECTOR_ETSY_API_URL: fileServerUrl,
  };
}

/**
 * Etsy as the bench's file server plays it: receipt N of the bench shop, paid, one poster
 * (the connector fetches the receipt each thin `order.paid` names); no receipts to poll and no
 * listings. Null for other paths.
 */
export function etsyAnswer(url: URL): { status: number; body: string } | null {
  const m = RECEIPT.exec(url.pathname);
  if (m) {
    const id = Number(m[2]);
    const now = Math.floor(Date.now() / 1000);
    const line = receiptFixture.transactions[0]!;
    const receipt = { ...receiptFixture, receipt_id: id, create_timestamp: now, created_timestamp: now, update_timestamp: now, updated_timestamp: now, transactions: [{ ...line, transaction_id: id * 10, receipt_id: id, sku: SKU, quantity: 1 }] };
    return { status: 200, body: JSON.stringify(receipt) };
  }
  if (/^\/v3\/application\/shops\/\d+\/(receipts|listings)$/.test(url.pathname)) return { status: 200, body: '{"count":0,"results":[]}' };
  return null;
}

/**
 * Etsy's ingestion: each store order a Standard Webhooks-signed thin `order.paid` (the app's
 * `whsec_` secret) naming a new receipt, which the service fetches from Etsy (the file server)
 * before placing it: one Etsy call per order, under the connector's budget of calls per store.
 */
export const etsyBench: Platform = {
  name: 'Etsy',
  slug: 'etsy',
  platform: 'ETSY',
  externalId: () => String(SHOP_ID),
  credentials: () => ({
    shopId: String(SHOP_ID),
    userId: String(USER_ID),
    accessToken: `${USER_ID}.${randomBytes(32).toString('base64url')}`,
    // Not due for renewal during the bench.
    accessTokenExpiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
    refreshToken: `${USER_ID}.${randomBytes(32).toString('base64url')}`,
  }),
  secret: (ctx) => ctx.env.CONNECTOR_ETSY_WEBHOOK_SECRET!,
  storeSecret: false,
  delivery: (_ctx, n, secret) =>
    standardWebhook({
      payload: { event_type: 'order.paid', resource_url: `https://openapi.etsy.com/v3/application/shops/${SHOP_ID}/receipts/${7_000_000_000 + n}`, shop_id: SHOP_ID },
      secret,
      id: `msg_bench_${n}_${randomBytes(6).toString('hex')}`,
    }),
};
