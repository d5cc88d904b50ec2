import type autocannon from 'autocannon';
import type { CpuReading, Measured } from './run.ts';
import type { PacedRequest } from './paced.ts';

export interface BenchContext {
  baseUrl: string;
  /**
   * A local HTTPS server with print files and the webhook receiver (bench/file-server.ts; the service trusts it through
   * NODE_EXTRA_CA_CERTS).
   */
  fileServerUrl: string;
  /** The CA of that server's certificate. */
  fileServerCa: string;
  adminToken: string;
  env: Record<string, string>;
  root: string;
  connections: number;
  duration: number;
  measure(name: string, opts: autocannon.Options & { warmUp?: boolean }): Promise<Measured>;
  /**
   * A reading of the CPU time the service's processes have spent; `perUnit` turns two readings into a row's CPU
   * figures, per unit of work done between them.
   */
  cpu(): CpuReading | undefined;
  perUnit(
    before: CpuReading | undefined,
    after: CpuReading | undefined,
    units: number,
  ): Pick<Measured, 'cpuUsPerRequest' | 'apiCpuUsPerRequest'>;
  /** Requests at a constant arrival rate, latency from when each was due (bench/paced.ts). */
  measurePaced(
    name: string,
    opts: { baseUrl: string; rate: number; next: (i: number) => PacedRequest },
  ): Promise<Measured>;
}

export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<Measured[]>;
}

const UA = 'print-api-bench/1.0';

async function call(
  ctx: BenchContext,
  method: string,
  path: string,
  body?: unknown,
  token = ctx.adminToken,
): Promise<any> {
  const res = await fetch(`${ctx.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': UA,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An approved reseller with a funded wallet and a live key. */
export async function benchReseller(ctx: BenchContext, topUpCents = 0): Promise<{ id: string; key: string }> {
  const r = await call(ctx, 'POST', '/admin/v1/resellers', {
    name: 'Bench Prints',
    email: 'bench@example.com',
    phone: '+31 20 123 4567',
    discountPercent: 10,
  });
  await call(ctx, 'POST', `/admin/v1/resellers/${r.data.id}/approve`);
  const k = await call(ctx, 'POST', `/admin/v1/resellers/${r.data.id}/api-keys`, { mode: 'live' });
  if (topUpCents > 0)
    await call(ctx, 'POST', `/admin/v1/resellers/${r.data.id}/wallet/top-ups`, { amountCents: topUpCents });
  return { id: r.data.id, key: k.data.key };
}

export const apiHeaders = (key: string) => ({ authorization: `Bearer ${key}`, 'user-agent': UA });

export const authScenario: Scenario = {
  name: 'auth',
  async run(ctx) {
    const { key } = await benchReseller(ctx);
    return [
      await ctx.measure('GET /me (API key auth + rate limiter)', {
        url: `${ctx.baseUrl}/api/reseller/v1/me`,
        headers: apiHeaders(key),
        warmUp: true,
      }),
    ];
  },
};

export const catalogScenario: Scenario = {
  name: 'catalog',
  async run(ctx) {
    const { key } = await benchReseller(ctx);
    const detail = await ctx.measure('GET /products/{id} (product detail)', {
      url: `${ctx.baseUrl}/api/reseller/v1/products/business-cards?lang=en`,
      headers: apiHeaders(key),
      warmUp: true,
    });
    const quote = await ctx.measure('POST /quotes (three lines)', {
      url: `${ctx.baseUrl}/api/reseller/v1/quotes`,
      method: 'POST',
      warmUp: true,
      headers: { ...apiHeaders(key), 'content-type': 'application/json' },
      body: JSON.stringify({
        country: 'DE',
        lines: [
          { productId: 'flyers-a5', quantity: 500, options: { paper: 'mc170' } },
          { productId: 'business-cards', quantity: 250, options: { finish: 'soft-touch', paper: 'mc400' } },
          { productId: 'posters', quantity: 3, options: { size: 'a0' } },
        ],
      }),
    });
    return [detail, quote];
  },
};
