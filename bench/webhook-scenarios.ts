import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { get as httpsGet } from 'node:https';
import { apiHeaders, benchReseller, type BenchContext, type Scenario } from './scenarios.ts';
import { benchResellerId, RECIPIENT, topUp } from './order-scenarios.ts';
import type { Measured } from './run.ts';

const ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 10);
/** Deliveries a second the paced run aims at (BENCH_WEBHOOK_RATE, default 1000: the target). */
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function settle(count: () => Promise<number>, quietMs: number, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  let last = -1;
  let quietSince = Date.now();
  while (Date.now() < end) {
    const now = await count();
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Webhook delivery: a reseller with ENDPOINTS endpoints (all events) on a local HTTPS receiver
 * places wallet-paid orders; every order's events fan out to every endpoint. First as fast as
 * autocannon drives it: deliveries/s at the receiver (first to last receipt, including the
 * drain after the load stops). Then paced to about BENCH_WEBHOOK_RATE deliveries a second: the
 * latency from each event's commit (its `createdAt`) to its receipt at that rate.
 */
export const webhookDeliveryScenario: Scenario = {
  name: 'webhooks',
  async run(ctx: BenchContext): Promise<Measured[]> {
    // The receiver lives in the file host's process (bench/file-server.ts), not in autocannon's.
    const receipts = async (from: number) => {
      const res = await request(`${ctx.fileServerUrl}/receipts?from=${from}`, { ca: ctx.fileServerCa });
      return res as { count: number; refused: number; receipts: Array<[number, number]> };
    };
    const start = (await receipts(0)).count;
    const { key } = await benchReseller(ctx, 0);
    const reseller = await benchResellerId(ctx, key);
    for (let i = 0; i < 20; i++) await topUp(ctx, reseller, 100_000_000);
    const endpointIds: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const res = await fetch(`${ctx.baseUrl}/api/reseller/v1/webhooks`, {
        method: 'POST',
        headers: { ...apiHeaders(key), 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${ctx.fileServerUrl}/hooks/${i}`, events: ['*'] }),
      });
      if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${await res.text()}`);
      endpointIds.push(((await res.json()) as { data: { id: string } }).data.id);
    }
    const body = JSON.stringify({
      lines: [{ productId: 'business-cards', quantity: 250, fileUrl: `${ctx.fileServerUrl}/flyer.pdf` }],
      recipient: RECIPIENT,
    });
    const place = (name: string, extra: Partial<autocannon.Options>) =>
      ctx.measure(name, {
        url: `${ctx.baseUrl}/api/reseller/v1/orders`,
        method: 'POST',
        headers: { ...apiHeaders(key), 'content-type': 'application/json' },
        body,
        ...extra,
        requests: [
          {
            method: 'POST',
            path: '/api/reseller/v1/orders',
            setupRequest: (req: autocannon.Request) => ({
              ...req,
              headers: { ...req.headers, 'idempotency-key': randomUUID() },
            }),
          },
        ],
      } as autocannon.Options);
    /** Receipts from `from` on, once the backlog has drained (nothing arrived for 3 s). */
    const drained = async (from: number) => {
      await settle(async () => (await receipts(0)).count, 3000, 180_000);
      const got = await receipts(from);
      if (got.receipts.length === 0) {
        const log = await fetch(`${ctx.baseUrl}/api/reseller/v1/webhooks/${endpointIds[0]}/deliveries?limit=1`, {
          headers: apiHeaders(key),
        });
        throw new Error(`webhooks: nothing arrived; the first endpoint's delivery log: ${await log.text()}`);
      }
      return got;
    };
    const deliveries = (name: string, got: Awaited<ReturnType<typeof receipts>>): Measured => {
      const times = got.receipts.map(([at]) => at);
      // A loop, not Math.min(...times): a long run's receipts overflow the call stack as arguments.
      let first = Infinity;
      let last = -Infinity;
      for (const at of times) {
        if (at < first) first = at;
        if (at > last) last = at;
      }
      const latencies = got.receipts.map(([, latency]) => latency).sort((a, b) => a - b);
      return {
        name,
        requests: times.length,
        rps: times.length / Math.max(0.001, (last - first) / 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        errors: got.refused,
        non2xx: 0,
      };
    };

    // 1. Capacity: orders as fast as 50 connections place them; deliveries/s at the receiver
    // from the first receipt to the last, the drain included. When orders x events x
    // endpoints outrun the deliverer, a backlog builds and its latency says only that.
    const cpuBefore = ctx.cpu();
    const flatOut = await place(`POST /orders while delivering to ${ENDPOINTS} endpoints`, {});
    const burst = await drained(start);
    // The service's CPU from the first order to the last delivery, per delivery (the orders' placement included).
    const cpuPerDelivery = ctx.perUnit(cpuBefore, ctx.cpu(), burst.receipts.length);
    // Every event of an order goes to every endpoint: a whole number of ENDPOINTS per order.
    // (Orders still in flight when autocannon stops are placed but not counted, so the raw
    // ratio is a little high.)
    const perOrder = Math.max(
      ENDPOINTS,
      ENDPOINTS * Math.floor(burst.receipts.length / Math.max(1, flatOut.requests) / ENDPOINTS),
    );
    process.stdout.write(
      `webhooks: ${burst.receipts.length} deliveries of ${flatOut.requests} orders' events to ${ENDPOINTS} endpoints (${perOrder.toFixed(1)} per order)\n`,
    );

    // 2. Latency at the target rate: orders paced so that their events make RATE deliveries a
    // second, the latency from each event's commit to its receipt.
    const ordersPerSecond = Math.max(1, Math.round(RATE / perOrder));
    // Evenly spaced orders (bench/paced.ts), not a burst at the start of every second.
    const paced = await ctx.measurePaced(`POST /orders at ${ordersPerSecond}/s (about ${RATE} deliveries/s)`, {
      baseUrl: ctx.baseUrl,
      rate: ordersPerSecond,
      next: () => ({
        method: 'POST',
        path: '/api/reseller/v1/orders',
        headers: { ...apiHeaders(key), 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
      }),
    });
    const steady = await drained(start + burst.receipts.length);
    process.stdout.write(
      `webhooks: paced run: ${steady.receipts.length} deliveries of ${paced.requests} orders' events\n`,
    );
    return [
      flatOut,
      { ...deliveries('webhook deliveries/s flat out; p50/p99 = commit -> receipt', burst), ...cpuPerDelivery },
      paced,
      deliveries(`webhook deliveries/s at ${ordersPerSecond} orders/s; p50/p99 = commit -> receipt`, steady),
    ];
  },
};

/** GET over HTTPS trusting `ca`, the JSON answer. */
function request(url: string, opts: { ca: string }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { ca: opts.ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
    }).on('error', reject);
  });
}
