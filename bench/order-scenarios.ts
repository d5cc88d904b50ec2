import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type autocannon from 'autocannon';
import { apiHeaders, benchReseller, type BenchContext, type Scenario } from './scenarios.ts';

export const RECIPIENT = {
  name: 'Bench Recipient',
  email: 'r@example.nl',
  phone: '+31 6 1234 5678',
  address1: 'Dam 1',
  postalCode: '1012 JS',
  city: 'Amsterdam',
  country: 'NL',
};

const RESELLERS = Number(process.env.BENCH_RESELLERS ?? 10);
/** Orders a second offered in the paced run (BENCH_ORDER_RATE, default 400: the target). */
const ORDER_RATE = Number(process.env.BENCH_ORDER_RATE ?? 400);

/** `count` approved resellers with funded wallets; their live keys. */
async function fundedResellers(ctx: BenchContext, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let r = 0; r < count; r++) {
    const { key } = await benchReseller(ctx, 0);
    const reseller = await benchResellerId(ctx, key);
    for (let i = 0; i < 20; i++) await topUp(ctx, reseller, 100_000_000);
    keys.push(key);
  }
  return keys;
}

/**
 * Wallet-paid POST /orders, each with a new Idempotency-Key; the print file is served by a
 * local HTTPS server. Measured twice: every order from one reseller (all serialised on that
 * reseller's wallet row, the worst case), and spread over BENCH_RESELLERS resellers: both as
 * fast as 50 connections place them (capacity; the latency of a closed loop is only
 * connections / throughput). Then the latency at BENCH_ORDER_RATE orders a second, evenly
 * spaced over the resellers (bench/paced.ts).
 */
export const placeOrdersScenario: Scenario = {
  name: 'orders',
  async run(ctx) {
    const body = JSON.stringify({
      lines: [{ productId: 'business-cards', quantity: 250, fileUrl: `${ctx.fileServerUrl}/flyer.pdf` }],
      recipient: RECIPIENT,
    });
    const results = [];
    for (const count of [1, RESELLERS]) {
      const keys = await fundedResellers(ctx, count);
      let n = 0;
      results.push(
        await ctx.measure(`POST /orders (wallet-paid, file over HTTPS), ${count} reseller${count === 1 ? '' : 's'}`, {
          url: `${ctx.baseUrl}/api/reseller/v1/orders`,
          method: 'POST',
          // Each warm-up request is a new order too (new key): the measured run finds a compiled path.
          warmUp: true,
          headers: { ...apiHeaders(keys[0]!), 'content-type': 'application/json' },
          body,
          requests: [
            {
              method: 'POST',
              path: '/api/reseller/v1/orders',
              setupRequest: (req: autocannon.Request) => ({
                ...req,
                headers: {
                  ...req.headers,
                  authorization: `Bearer ${keys[n++ % keys.length]}`,
                  'idempotency-key': randomUUID(),
                },
              }),
            },
          ],
        } as autocannon.Options & { warmUp: boolean }),
      );
    }
    const keys = await fundedResellers(ctx, RESELLERS);
    results.push(
      await ctx.measurePaced(`POST /orders at ${ORDER_RATE}/s, ${RESELLERS} resellers`, {
        baseUrl: ctx.baseUrl,
        rate: ORDER_RATE,
        next: (i) => ({
          method: 'POST',
          path: '/api/reseller/v1/orders',
          headers: {
            ...apiHeaders(keys[i % keys.length]!),
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body,
        }),
      }),
    );
    return results;
  },
};

export async function benchResellerId(ctx: BenchContext, key: string): Promise<string> {
  const res = await fetch(`${ctx.baseUrl}/api/reseller/v1/me`, { headers: apiHeaders(key) });
  return ((await res.json()) as { data: { resellerId: string } }).data.resellerId;
}

export async function topUp(ctx: BenchContext, resellerId: string, amountCents: number): Promise<void> {
  await fetch(`${ctx.baseUrl}/admin/v1/resellers/${resellerId}/wallet/top-ups`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ctx.adminToken}`,
      'user-agent': 'print-api-bench/1.0',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ amountCents }),
  });
}

/** Inserts `count` orders for a reseller straight into PostgreSQL (the bench's own database). */
async function seedOrders(databaseUrl: string, resellerId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const batch = 250_000;
    for (let start = 0; start < count; start += batch) {
      const end = Math.min(count, start + batch);
      await client.query(
        `insert into orders (id, reseller_id, mode, source, external_order_id, store_id, state, status, country, recipient, carrier_contact,
           public_net_cents, discount_cents, net_cents, shipping_cents, vat_cents, total_cents, shipping, payment_method, payment_status,
           created_at, updated_at)
         select 'ord_seed_' || $1 || '_' || lpad(i::text, 8, '0'), $1, 'live', 'API', 'ext-' || i, null,
           'SUBMITTED', 'DELIVERED', 'NL', $2::jsonb, '{"emailSource":"recipient","phoneSource":"recipient"}'::jsonb,
           4000, 400, 3600, 495, 860, 4955, '{}'::jsonb, 'wallet', 'paid',
           now() - make_interval(secs => ($3::int - i)), now()
         from generate_series($4::int, $5::int) as i`,
        [resellerId, JSON.stringify(RECIPIENT), count, start + 1, end],
      );
    }
    await client.query('analyze orders');
  } finally {
    await client.end();
  }
}

/** A page of GET /orders costs the same at 1 million orders as at 10 thousand (keyset pagination). */
export const listOrdersScenario: Scenario = {
  name: 'order-pages',
  async run(ctx) {
    const databaseUrl = ctx.env.DATABASE_URL;
    if (!databaseUrl) {
      process.stdout.write('order-pages: skipped (needs PostgreSQL for the 1 million seeded orders)\n');
      return [];
    }
    const results = [];
    for (const count of [10_000, 1_000_000]) {
      const { key } = await benchReseller(ctx, 0);
      const resellerId = await benchResellerId(ctx, key);
      const started = Date.now();
      await seedOrders(databaseUrl, resellerId, count);
      process.stdout.write(`order-pages: seeded ${count} orders in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      // A page deep inside the list: the cursor of the 5th page of 100.
      let cursor = '';
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${ctx.baseUrl}/api/reseller/v1/orders?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: apiHeaders(key),
        });
        cursor = ((await res.json()) as { nextCursor: string }).nextCursor;
      }
      results.push(
        await ctx.measure(`GET /orders?limit=25 deep page, ${count.toLocaleString('en')} orders`, {
          url: `${ctx.baseUrl}/api/reseller/v1/orders?limit=25&cursor=${cursor}`,
          headers: apiHeaders(key),
        }),
      );
    }
    const [small, large] = results;
    if (small && large)
      process.stdout.write(
        `order-pages: p50 at 1M / p50 at 10k = ${(large.p50 / Math.max(small.p50, 0.001)).toFixed(2)}; req/s at 10k / at 1M = ${(small.rps / large.rps).toFixed(2)}\n`,
      );
    return results;
  },
};
