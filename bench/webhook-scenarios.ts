import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { startHttpsServer } from '../core/test/helpers/https-server.ts';
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

async function settle(count: () => number, quietMs: number, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  let last = -1;
  let quietSince = Date.now();
  while (Date.now() < end) {
    const now = count();
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
    const receipts: Array<{ at: number; latency: number }> = [];
    let refused = 0;
    const receiver = await startHttpsServer((req, res, body) => {
      const at = Date.now();
      try {
        const event = JSON.parse(body.toString('utf8')) as { createdAt: string };
        receipts.push({ at, latency: at - Date.parse(event.createdAt) });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } catch {
        refused++;
        res.writeHead(400).end();
      }
    });
    receiver.requests.length = 0;
    try {
      const { key } = await benchReseller(ctx, 0);
      const reseller = await benchResellerId(ctx, key);
      for (let i = 0; i < 20; i++) await topUp(ctx, reseller, 100_000_000);
      const endpointIds: string[] = [];
      for (let i = 0; i < ENDPOINTS; i++) {
        const res = await fetch(`${ctx.baseUrl}/api/reseller/v1/webhooks`, {
          method: 'POST',
          headers: { ...apiHeaders(key), 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${receiver.url}/hooks/${i}`, events: ['*'] }),
        });
        if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${await res.text()}`);
        endpointIds.push(((await res.json()) as { data: { id: string } }).data.id);
      }
      const body = JSON.stringify({ lines: [{ productId: 'business-cards', quantity: 250, fileUrl: `${ctx.fileServerUrl}/flyer.pdf` }], recipient: RECIPIENT });
      const place = (name: string, extra: Partial<autocannon.Options>) =>
        ctx.measure(name, {
          url: `${ctx.baseUrl}/api/reseller/v1/orders`,
          method: 'POST',
          headers: { ...apiHeaders(key), 'content-type': 'application/json' },
          body,
          ...extra,
          requests: [{ method: 'POST', path: '/api/reseller/v1/orders', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
        } as autocannon.Options);
      /** Receipts from `from` on, once the backlog has drained (nothing arrived for 3 s). */
      const drained = async (from: number) => {
        await settle(() => receipts.length, 3000, 180_000);
        if (receipts.length === from) {
          const log = await fetch(`${ctx.baseUrl}/api/reseller/v1/webhooks/${endpointIds[0]}/deliveries?limit=1`, { headers: apiHeaders(key) });
          throw new Error(`webhooks: nothing arrived; the first endpoint's delivery log: ${await log.text()}`);
        }
        // The receiver keeps every request for tests; the bench only needs the timings.
        receiver.requests.length = 0;
        return receipts.slice(from);
      };
      const deliveries = (name: string, got: typeof receipts): Measured => {
        const first = Math.min(...got.map((r) => r.at));
        const last = Math.max(...got.map((r) => r.at));
        const latencies = got.map((r) => r.latency).sort((a, b) => a - b);
        return { name, requests: got.length, rps: got.length / Math.max(0.001, (last - first) / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors: refused, non2xx: 0 };
      };

      // 1. Capacity: orders as fast as 50 connections place them; deliveries/s at the receiver
      // from the first receipt to the last, the drain included. When orders x events x
      // endpoints outrun the deliverer, a backlog builds and its latency says only that.
      const flatOut = await place(`POST /orders while delivering to ${ENDPOINTS} endpoints`, {});
      const burst = await drained(0);
      const perOrder = burst.length / Math.max(1, flatOut.requests);
      process.stdout.write(`webhooks: ${burst.length} deliveries of ${flatOut.requests} orders' events to ${ENDPOINTS} endpoints (${perOrder.toFixed(1)} per order)\n`);

      // 2. Latency at the target rate: orders paced so that their events make RATE deliveries a
      // second, the latency from each event's commit to its receipt.
      const ordersPerSecond = Math.max(1, Math.round(RATE / perOrder));
      const paced = await place(`POST /orders at ${ordersPerSecond}/s (about ${RATE} deliveries/s)`, { overallRate: ordersPerSecond });
      const steady = await drained(burst.length);
      process.stdout.write(`webhooks: paced run: ${steady.length} deliveries of ${paced.requests} orders' events\n`);
      return [
        flatOut,
        deliveries('webhook deliveries/s flat out; p50/p99 = commit -> receipt', burst),
        paced,
        deliveries(`webhook deliveries/s at ${ordersPerSecond} orders/s; p50/p99 = commit -> receipt`, steady),
      ];
    } finally {
      await receiver.close();
    }
  },
};
