import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type autocannon from 'autocannon';
import type { SignedWebhook } from '@print-api/connector-kit/testing';
import { shopifyWebhook } from '../connectors/shopify/test/webhook-signer.ts';
import { wooCommerceWebhook } from '../connectors/woocommerce/test/webhook-signer.ts';
import { SecretBox } from '../core/src/infra/crypto.ts';
import { newId } from '../core/src/infra/ids.ts';
import shopifyOrder from '../connectors/shopify/test/fixtures/order.json' with { type: 'json' };
import wooOrder from '../connectors/woocommerce/test/fixtures/order.json' with { type: 'json' };
import { etsyBench } from './connectors/etsy.ts';
import { apiHeaders, benchReseller, type BenchContext, type Scenario } from './scenarios.ts';
import { amazonBench } from './connectors/amazon.ts';
import { benchResellerId, topUp } from './order-scenarios.ts';
import type { Measured } from './run.ts';
import { wixBench } from './connectors/wix.ts';
import { tiktokShopBench } from './connectors/tiktok-shop.ts';

/** Store orders sent per connector as fast as they are taken (each one a webhook with a new order). */
const STORE_ORDERS = Number(process.env.BENCH_STORE_ORDERS ?? 2000);
/** Webhooks per second offered while the acknowledgement latency is measured (the ingestion target rate). */
const ACK_RATE = Number(process.env.BENCH_ACK_RATE ?? 200);
const SKU = 'POSTER-TULIPS';

/**
 * A platform measured otherwise than by webhooks (a polled one, through sync pages): its own measurement of the seeded
 * store.
 */
export interface MeasuredPlatform {
  name: string;
  slug: string;
  platform: string;
  externalId: (ctx: BenchContext) => string;
  credentials: (ctx: BenchContext) => unknown;
  measure: (ctx: BenchContext, store: { id: string; key: string }) => Promise<Measured[]>;
}

/**
 * A connector in the bench: its seeded store and its signed deliveries (new platforms: a descriptor in
 * bench/connectors/<slug>.ts).
 */
export interface Platform {
  name: string;
  slug: string;
  platform: string;
  externalId: (ctx: BenchContext) => string;
  credentials: (ctx: BenchContext) => unknown;
  /** The signed delivery of store order number `n`. */
  delivery: (ctx: BenchContext, n: number, secret: string) => SignedWebhook;
  /** The secret deliveries are signed with: the app's (Shopify) or the store's (WooCommerce). */
  secret: (ctx: BenchContext) => string;
  storeSecret: boolean;
  /**
   * Deliveries go to the app-level URL (`/connectors/<slug>/webhooks`, the store named by the delivery) instead of the
   * store's.
   */
  appLevelWebhooks?: boolean;
  /**
   * Runs before the measurements, told how many deliveries they will take (e.g. to sign costly signatures ahead, off
   * the clock).
   */
  prepare?: (ctx: BenchContext, deliveries: number) => void | Promise<void>;
}

const SHOP = 'bench-prints.myshopify.com';
const platforms: Array<Platform | MeasuredPlatform> = [
  {
    name: 'Shopify',
    slug: 'shopify',
    platform: 'SHOPIFY',
    externalId: () => SHOP,
    credentials: () => ({
      kind: 'oauth',
      shop: SHOP,
      accessToken: `shpat_${randomBytes(16).toString('hex')}`,
      scope: 'read_orders',
      expiresAt: null,
      refreshToken: null,
      refreshTokenExpiresAt: null,
    }),
    secret: (ctx) => ctx.env.CONNECTOR_SHOPIFY_API_SECRET!,
    storeSecret: false,
    delivery: (_ctx, n, secret) => {
      const id = 7_000_000_000_000 + n;
      const signed = shopifyWebhook({
        payload: {
          ...shopifyOrder,
          id,
          admin_graphql_api_id: `gid://shopify/Order/${id}`,
          name: `#B${n}`,
          order_number: n,
        },
        secret,
        topic: 'orders/paid',
        shop: SHOP,
      });
      return { body: signed.body, headers: { ...signed.headers, 'user-agent': 'Shopify-Captain-Hook' } };
    },
  },
  {
    name: 'WooCommerce',
    slug: 'woocommerce',
    platform: 'WOOCOMMERCE',
    externalId: (ctx) => ctx.fileServerUrl,
    credentials: (ctx) => ({
      storeUrl: ctx.fileServerUrl,
      consumerKey: `ck_${randomBytes(20).toString('hex')}`,
      consumerSecret: `cs_${randomBytes(20).toString('hex')}`,
    }),
    secret: () => randomBytes(32).toString('hex'),
    storeSecret: true,
    delivery: (ctx, n, secret) =>
      wooCommerceWebhook({
        payload: { ...wooOrder, id: 100_000 + n, number: String(100_000 + n) },
        secret,
        topic: 'order.updated',
        source: ctx.fileServerUrl,
      }),
  },
  wixBench,
  tiktokShopBench,
  etsyBench,
  amazonBench,
];

/**
 * A connected store, written straight into the bench's database as `POST /stores` would leave
 * it (the platforms themselves cannot be reached from here): credentials sealed with the
 * service's key, polled and its listings synced just now so neither the catch-up poll nor the
 * listings sync calls the platform.
 */
async function seedStore(
  ctx: BenchContext,
  p: Platform | MeasuredPlatform,
  resellerId: string,
  webhookSecret: string | null,
): Promise<string> {
  const box = new SecretBox(ctx.env.ENCRYPTION_KEY!);
  const id = newId('sto');
  const client = new pg.Client({ connectionString: ctx.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(
      `insert into stores (id, reseller_id, mode, platform, external_id, name, credentials_sealed, webhook_secret_sealed, status, poll_cursor, last_polled_at, last_error, created_at, updated_at, disconnected_at, listings_synced_at)
       values ($1, $2, 'live', $3, $4, $5, $6, $7, 'connected', null, now(), null, now(), now(), null, now())`,
      [
        id,
        resellerId,
        p.platform,
        p.externalId(ctx),
        `Bench ${p.name} store`,
        box.sealJson(p.credentials(ctx)),
        webhookSecret ? box.seal(webhookSecret) : null,
      ],
    );
  } finally {
    await client.end();
  }
  return id;
}

async function placed(
  databaseUrl: string,
  storeId: string,
): Promise<{ events: number; placed: number; firstReceived: number; lastPlaced: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const events = await client.query(
      `select count(*)::int as n, min(received_at) as first from store_webhook_events where store_id = $1`,
      [storeId],
    );
    const orders = await client.query(
      `select count(*)::int as n, max(created_at) as last from orders where store_id = $1`,
      [storeId],
    );
    return {
      events: events.rows[0].n,
      placed: orders.rows[0].n,
      firstReceived: events.rows[0].first ? new Date(events.rows[0].first).getTime() : 0,
      lastPlaced: orders.rows[0].last ? new Date(orders.rows[0].last).getTime() : 0,
    };
  } finally {
    await client.end();
  }
}

/** Waits (at most five minutes) until every stored webhook of the store has become a print order. */
async function drained(databaseUrl: string, storeId: string): Promise<Awaited<ReturnType<typeof placed>>> {
  let state = await placed(databaseUrl, storeId);
  const deadline = Date.now() + 300_000;
  while (state.placed < state.events && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    state = await placed(databaseUrl, storeId);
  }
  return state;
}

/**
 * Each connector's ingestion: STORE_ORDERS signed `orders/paid` (Shopify) or `order.updated`
 * (WooCommerce) webhooks, each a new paid order with one print line, posted by autocannon.
 * Reports the store orders placed per second end to end (first webhook stored -> last print
 * order placed, wallet-paid, file checked) with the webhooks sent flat out, then the
 * acknowledgement latency with webhooks arriving at BENCH_ACK_RATE a second (default 200).
 */
export const connectorIngestScenario: Scenario = {
  name: 'connectors',
  async run(ctx) {
    const databaseUrl = ctx.env.DATABASE_URL;
    if (!databaseUrl) {
      process.stdout.write('connectors: skipped (needs PostgreSQL to seed the connected stores)\n');
      return [];
    }
    const rows: Measured[] = [];
    // BENCH_PLATFORMS=shopify,woocommerce,etsy (default: all)
    const only = process.env.BENCH_PLATFORMS?.split(',').filter(Boolean);
    for (const p of platforms.filter((x) => !only || only.includes(x.slug))) {
      const { key } = await benchReseller(ctx, 0);
      const resellerId = await benchResellerId(ctx, key);
      for (let i = 0; i < 20; i++) await topUp(ctx, resellerId, 100_000_000);
      const product = await fetch(`${ctx.baseUrl}/api/reseller/v1/reseller-products`, {
        method: 'POST',
        headers: { ...apiHeaders(key), 'content-type': 'application/json' },
        body: JSON.stringify({
          sku: SKU,
          title: 'Tulip poster A2',
          productId: 'posters',
          fileUrl: `${ctx.fileServerUrl}/flyer.pdf`,
        }),
      });
      if (product.status !== 201)
        throw new Error(`POST /reseller-products answered ${product.status}: ${await product.text()}`);
      if ('measure' in p) {
        rows.push(...(await p.measure(ctx, { id: await seedStore(ctx, p, resellerId, null), key })));
        continue;
      }
      const secret = p.secret(ctx);
      const storeId = await seedStore(ctx, p, resellerId, p.storeSecret ? secret : null);
      await p.prepare?.(ctx, STORE_ORDERS + Math.ceil(ACK_RATE * ctx.duration * 1.5));
      let n = 0;
      const path = p.appLevelWebhooks ? `/connectors/${p.slug}/webhooks` : `/connectors/${p.slug}/webhooks/${storeId}`;
      const webhooks = (extra: Partial<autocannon.Options>) =>
        ({
          url: `${ctx.baseUrl}${path}`,
          ...extra,
          requests: [
            {
              method: 'POST',
              path,
              setupRequest: (req: autocannon.Request) => {
                const signed = p.delivery(ctx, ++n, secret);
                return { ...req, headers: signed.headers, body: signed.body };
              },
            },
          ],
        }) as unknown as autocannon.Options;

      // 1. Capacity: STORE_ORDERS webhooks as fast as 50 connections send them; the store
      // orders placed per second end to end (first webhook stored -> last print order placed).
      const cpuBefore = ctx.cpu();
      const burst = await ctx.measure(
        `${p.name} webhook ack, ${STORE_ORDERS} sent flat out`,
        webhooks({ amount: STORE_ORDERS }),
      );
      rows.push(burst);
      const state = await drained(databaseUrl, storeId);
      // The service's CPU from the first webhook to the last print order, per store order placed.
      const cpuPerOrder = ctx.perUnit(cpuBefore, ctx.cpu(), state.placed);
      const seconds = Math.max(0.001, (state.lastPlaced - state.firstReceived) / 1000);
      process.stdout.write(
        `connectors: ${p.name}: ${state.events} webhooks stored, ${state.placed} print orders placed in ${seconds.toFixed(1)} s\n`,
      );
      rows.push({
        name: `${p.name} store orders placed/s (webhook -> print order)`,
        requests: state.placed,
        rps: state.placed / seconds,
        p50: 0,
        p99: 0,
        errors: state.events - state.placed,
        non2xx: 0,
        ...cpuPerOrder,
      });

      // 2. Acknowledgement latency at the target rate: ACK_RATE webhooks a second (each a new
      // order the service places meanwhile), the way a platform delivers them, not a closed loop
      // of 50 connections whose latency is only connections / throughput.
      // Evenly spaced arrivals, latency from when each was due (bench/paced.ts).
      const paced = await ctx.measurePaced(`${p.name} webhook ack at ${ACK_RATE}/s (orders placed meanwhile)`, {
        baseUrl: ctx.baseUrl,
        rate: ACK_RATE,
        next: () => {
          const signed = p.delivery(ctx, ++n, secret);
          return { method: 'POST', path, headers: signed.headers, body: signed.body };
        },
      });
      rows.push(paced);
      const after = await drained(databaseUrl, storeId);
      process.stdout.write(
        `connectors: ${p.name}: paced run: ${after.events - state.events} webhooks stored, ${after.placed - state.placed} more print orders placed\n`,
      );
    }
    return rows;
  },
};

/** Listings in the bench store's catalogue (the file server's BENCH_LISTINGS, same default). */
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);

/**
 * A WooCommerce store's listings sync (BENCH_LISTINGS simple products, 100 a page, under
 * WooCommerce's budget of 4 calls a second per store): asked for through `POST
 * /stores/{id}/sync`, timed from the request to the end of the complete run. Reports listings
 * synced per second (bounded by the platform's budget, not by us: 400 a second at most).
 */
export const listingsScenario: Scenario = {
  name: 'listings',
  async run(ctx) {
    const databaseUrl = ctx.env.DATABASE_URL;
    if (!databaseUrl) {
      process.stdout.write('listings: skipped (needs PostgreSQL to seed the connected store)\n');
      return [];
    }
    const woo = platforms.find((p): p is Platform => p.slug === 'woocommerce')!;
    const { key } = await benchReseller(ctx, 0);
    const resellerId = await benchResellerId(ctx, key);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      // The connectors scenario's WooCommerce store has the same address (the file server): one connected store per
      // address.
      await client.query(
        `update stores set status = 'disconnected', disconnected_at = now() where platform = $1 and external_id = $2 and status = 'connected'`,
        [woo.platform, woo.externalId(ctx)],
      );
      const storeId = await seedStore(ctx, woo, resellerId, randomBytes(32).toString('hex'));
      const syncedAt = async () => {
        const row = await client.query(`select listings_synced_at from stores where id = $1`, [storeId]);
        return row.rows[0]?.listings_synced_at ? new Date(row.rows[0].listings_synced_at).getTime() : 0;
      };
      // Seeded as synced (so the connectors scenario's stores sync nothing): the run measured ends after it.
      const seeded = await syncedAt();
      const started = Date.now();
      const res = await fetch(`${ctx.baseUrl}/api/reseller/v1/stores/${storeId}/sync`, {
        method: 'POST',
        headers: apiHeaders(key),
      });
      if (res.status !== 202) throw new Error(`POST /stores/{id}/sync answered ${res.status}: ${await res.text()}`);
      const deadline = Date.now() + 600_000;
      let ended = 0;
      while (Date.now() < deadline) {
        if ((await syncedAt()) > seeded) {
          ended = Date.now();
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const count = (await client.query(`select count(*)::int as n from store_listings where store_id = $1`, [storeId]))
        .rows[0].n as number;
      const seconds = Math.max(0.001, ((ended || Date.now()) - started) / 1000);
      process.stdout.write(
        `listings: WooCommerce: ${count} of ${LISTINGS} listings synced in ${seconds.toFixed(1)} s${ended ? '' : ' (timed out)'}\n`,
      );
      return [
        {
          name: `WooCommerce listings synced/s (${LISTINGS}, 100 a page, 4 calls/s)`,
          requests: count,
          rps: count / seconds,
          p50: 0,
          p99: 0,
          errors: LISTINGS - count,
          non2xx: 0,
        },
      ];
    } finally {
      await client.end();
    }
  },
};
