import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { startHttpsServer } from '../core/test/helpers/https-server.ts';
import { apiHeaders, benchReseller, type BenchContext, type Scenario } from './scenarios.ts';
import { benchResellerId, RECIPIENT, topUp } from './order-scenarios.ts';
import type { Measured } from './run.ts';

const ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 10);

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
 * places wallet-paid orders as fast as autocannon drives it; every order's events fan out to
 * every endpoint. Reports deliveries/s at the receiver (first to last receipt, including the
 * drain after the load stops) and the latency from the event's commit (its `createdAt`) to
 * its receipt.
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
      const orders = await ctx.measure(`POST /orders while delivering to ${ENDPOINTS} endpoints`, {
        url: `${ctx.baseUrl}/api/reseller/v1/orders`,
        method: 'POST',
        headers: { ...apiHeaders(key), 'content-type': 'application/json' },
        body,
        requests: [{ method: 'POST', path: '/api/reseller/v1/orders', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
      } as autocannon.Options);
      // Let the backlog drain: done when nothing has arrived for 3 s.
      await settle(() => receipts.length, 3000, 180_000);
      if (receipts.length === 0) {
        const log = await fetch(`${ctx.baseUrl}/api/reseller/v1/webhooks/${endpointIds[0]}/deliveries?limit=1`, { headers: apiHeaders(key) });
        throw new Error(`webhooks: nothing arrived; the first endpoint's delivery log: ${await log.text()}`);
      }
      // The receiver keeps every request for tests; the bench only needs the timings.
      receiver.requests.length = 0;
      const first = Math.min(...receipts.map((r) => r.at));
      const last = Math.max(...receipts.map((r) => r.at));
      const latencies = receipts.map((r) => r.latency).sort((a, b) => a - b);
      const seconds = Math.max(0.001, (last - first) / 1000);
      process.stdout.write(`webhooks: ${receipts.length} deliveries of ${orders.requests} orders' events to ${ENDPOINTS} endpoints in ${seconds.toFixed(1)} s\n`);
      return [
        orders,
        {
          name: `webhook deliveries/s; p50/p99 = commit -> receipt`,
          requests: receipts.length,
          rps: receipts.length / seconds,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          errors: refused,
          non2xx: 0,
        },
      ];
    } finally {
      await receiver.close();
    }
  },
};
