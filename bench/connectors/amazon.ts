import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { testCertificates } from '../../core/test/helpers/tls.ts';
import type { BenchContext } from '../scenarios.ts';
import type { Measured } from '../run.ts';

/**
 * Amazon in the connectors bench, measured through sync pages (Amazon has no webhooks): a
 * connected seller whose searchOrders answers BENCH_STORE_ORDERS new unshipped orders, 100 a
 * page (Orders API v2026-01-01 shapes, pagination tokens), played by an HTTPS server in the
 * bench process (the service trusts its CA). `POST /stores/{id}/sync` polls them: reported as
 * store orders placed per second from the sync request to the last print order. The search
 * budget (20 at once, then one every 3 minutes) allows 20 pages, 2,000 orders, in one sync.
 *
 * The service learns the fake's address from CONNECTOR_AMAZON_* set here on import (its
 * processes inherit the bench's environment), before run.ts starts them.
 */
const STORE_ORDERS = Number(process.env.BENCH_STORE_ORDERS ?? 2000);
const MARKETPLACE = 'A1PA6795UKMFR9';
const SELLER = 'ABENCHSELLER0001';
const wanted =
  (!process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes('connectors')) &&
  (!process.env.BENCH_PLATFORMS || process.env.BENCH_PLATFORMS.split(',').includes('amazon'));
const run = randomBytes(3).toString('hex');
const base = Date.now();

function order(i: number): Record<string, unknown> {
  const id = `302-${String(parseInt(run, 16) % 10_000_000).padStart(7, '0')}-${String(i).padStart(7, '0')}`;
  const at = new Date(base + i).toISOString();
  return {
    orderId: id,
    createdTime: at,
    lastUpdatedTime: at,
    salesChannel: { channelName: 'AMAZON', marketplaceId: MARKETPLACE, marketplaceName: 'Amazon.de' },
    buyer: { buyerName: 'Ada Weber', buyerEmail: 'bench-buyer@marketplace.amazon.de' },
    recipient: {
      deliveryAddress: {
        name: 'Ada Weber',
        addressLine1: 'Kastanienallee 12',
        city: 'Berlin',
        stateOrRegion: 'Berlin',
        postalCode: '10435',
        countryCode: 'DE',
        addressType: 'RESIDENTIAL',
      },
    },
    fulfillment: { fulfillmentStatus: 'UNSHIPPED', fulfilledBy: 'MERCHANT', fulfillmentServiceLevel: 'STANDARD' },
    orderItems: [
      {
        orderItemId: `${String(i).padStart(10, '0')}0001`,
        quantityOrdered: 1,
        product: {
          asin: 'B0BENCH001',
          title: 'Tulip poster A2',
          sellerSku: 'POSTER-TULIPS',
          price: { unitPrice: { amount: '24.99', currencyCode: 'EUR' } },
        },
      },
    ],
    packages: [],
  };
}

if (wanted) {
  // The bench process's test CA, which run.ts has the service trust.
  const { cert, key } = await testCertificates();
  const amazon = createServer({ cert, key }, (req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'https://localhost');
    const json = (status: number, body: unknown) =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers['x-amz-access-token'] !== 'Atza|bench-access-token')
      return json(403, {
        errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.', details: '' }],
      });
    if (url.pathname === '/orders/2026-01-01/orders') {
      const from = Number(url.searchParams.get('paginationToken') ?? 0);
      const size = Number(url.searchParams.get('maxResultsPerPage') ?? 100);
      const orders = [];
      for (let i = from; i < Math.min(STORE_ORDERS, from + size); i++) orders.push(order(i));
      return json(200, {
        orders,
        lastUpdatedBefore: new Date().toISOString(),
        ...(from + size < STORE_ORDERS ? { pagination: { nextToken: String(from + size) } } : {}),
      });
    }
    if (url.pathname.startsWith('/listings/2021-08-01/items/')) return json(200, { numberOfResults: 0, items: [] });
    return json(404, {
      errors: [{ code: 'NotFound', message: `${url.pathname} is not served by the bench`, details: '' }],
    });
  });
  await new Promise<void>((resolve) => amazon.listen(0, '127.0.0.1', resolve));
  // Never what keeps the bench running once it is done.
  amazon.unref();
  const url = `https://localhost:${(amazon.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    CONNECTOR_AMAZON_LWA_CLIENT_ID: 'amzn1.application-oa2-client.bench',
    CONNECTOR_AMAZON_LWA_CLIENT_SECRET: randomBytes(24).toString('hex'),
    CONNECTOR_AMAZON_API_URL: url,
    CONNECTOR_AMAZON_LWA_URL: url,
    CONNECTOR_AMAZON_MARKETPLACE_IDS: MARKETPLACE,
  });
}

async function placedCount(databaseUrl: string, storeId: string): Promise<{ placed: number; last: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const row = (
      await client.query(`select count(*)::int as n, max(created_at) as last from orders where store_id = $1`, [
        storeId,
      ])
    ).rows[0];
    return { placed: row.n, last: row.last ? new Date(row.last).getTime() : 0 };
  } finally {
    await client.end();
  }
}

export const amazonBench = {
  name: 'Amazon',
  slug: 'amazon',
  platform: 'AMAZON',
  externalId: () => SELLER,
  credentials: () => ({
    sellingPartnerId: SELLER,
    refreshToken: 'Atzr|bench-refresh-token',
    accessToken: 'Atza|bench-access-token',
    accessTokenExpiresAt: new Date(Date.now() + 10 * 3600_000).toISOString(),
    marketplaceIds: [MARKETPLACE],
    authorizedAt: new Date().toISOString(),
  }),
  /** One sync of the seeded store: every page read and every order placed, timed end to end. */
  async measure(ctx: BenchContext, store: { id: string; key: string }): Promise<Measured[]> {
    const databaseUrl = ctx.env.DATABASE_URL!;
    const started = Date.now();
    const res = await fetch(`${ctx.baseUrl}/api/reseller/v1/stores/${store.id}/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.key}` },
    });
    if (res.status !== 202) throw new Error(`POST /stores/{id}/sync answered ${res.status}: ${await res.text()}`);
    const deadline = Date.now() + 300_000;
    let state = await placedCount(databaseUrl, store.id);
    while (state.placed < STORE_ORDERS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      state = await placedCount(databaseUrl, store.id);
    }
    const seconds = Math.max(0.001, ((state.last || Date.now()) - started) / 1000);
    process.stdout.write(
      `connectors: Amazon: ${state.placed} of ${STORE_ORDERS} orders placed from ${Math.ceil(STORE_ORDERS / 100)} searchOrders pages in ${seconds.toFixed(1)} s\n`,
    );
    return [
      {
        name: `Amazon store orders placed/s (sync pages of 100 -> print order)`,
        requests: state.placed,
        rps: state.placed / seconds,
        p50: 0,
        p99: 0,
        errors: STORE_ORDERS - state.placed,
        non2xx: 0,
      },
    ];
  },
};
