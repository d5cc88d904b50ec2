import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { Redis } from 'ioredis';
import { readFileSync, writeFileSync } from 'node:fs';
import { authScenario, catalogScenario, type BenchContext, type Scenario } from './scenarios.ts';
import { listOrdersScenario, placeOrdersScenario } from './order-scenarios.ts';
import { webhookDeliveryScenario } from './webhook-scenarios.ts';
import { connectorIngestScenario, listingsScenario } from './connector-scenarios.ts';
import { testCertificates } from '../core/test/helpers/tls.ts';
import { pacedRun, type PacedRequest } from './paced.ts';

// order-pages seeds a million orders: it runs last, so the others measure an ordinary database.
const scenarios: Scenario[] = [
  authScenario,
  catalogScenario,
  placeOrdersScenario,
  webhookDeliveryScenario,
  connectorIngestScenario,
  listingsScenario,
  listOrdersScenario,
];

/**
 * `npm run bench`: starts a bare Express baseline and the service (PostgreSQL + Redis when
 * reachable, else the embedded defaults), drives both with autocannon from this process, and
 * prints each scenario next to the baseline as a ratio.
 *
 * BENCH_TOPOLOGY (split: ROLE=api + ROLE=worker processes, the default with PostgreSQL + Redis;
 * single: one ROLE=all process), BENCH_DURATION (seconds per scenario, default 10), BENCH_WARMUP (unmeasured seconds
 * before the
 * baseline, auth, catalogue and order runs, default 2), BENCH_CONNECTIONS (default 50),
 * BENCH_ONLY (comma-separated scenario names: auth, catalog, orders, order-pages, webhooks,
 * connectors, listings), BENCH_LISTINGS (the bench store's catalogue, default 10000), BENCH_WEBHOOK_ENDPOINTS (default
 * 10), BENCH_STORE_ORDERS (per connector, default 2000),
 * BENCH_RESELLERS (default 10), BENCH_ORDER_RATE (default 400). BENCH_KEEP_DB=1 keeps the bench database.
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
/** split (default with PostgreSQL + Redis): an API process and a worker process; single: ROLE=all. */
const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? 'split';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const root = path.resolve(import.meta.dirname, '..');

async function reachable(): Promise<{ pg: boolean; redis: boolean }> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 1500 });
  const pgUp = await client.connect().then(
    () => true,
    () => false,
  );
  await client.end().catch(() => undefined);
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  const redisUp = await redis.connect().then(
    () => true,
    () => false,
  );
  redis.disconnect();
  return { pg: pgUp, redis: redisUp };
}

function startChild(
  script: string,
  env: Record<string, string>,
  ready?: RegExp,
): Promise<{ child: ChildProcess; port: number; announced: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_PROFILE && script.includes('main')
          ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE]
          : []),
        ...(script.includes('main') ? (process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []) : []),
        script,
      ],
      { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const port =
        /"port":(\d+)/.exec(out)?.[1] ??
        /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1] ??
        (ready?.test(out) ? '0' : undefined);
      if (port) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        const line = out.split('\n').find((l) => l.startsWith('{') && l.includes('"port"'));
        let announced: Record<string, unknown> = {};
        try {
          announced = line ? (JSON.parse(line) as Record<string, unknown>) : {};
        } catch {
          // a log line, not an announcement
        }
        resolve({ child, port: Number(port), announced });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    // BENCH_CHILD_LOG=<file>: keep what the children print (the service logs at LOG_LEVEL warn).
    if (process.env.BENCH_CHILD_LOG) {
      const log = createWriteStream(process.env.BENCH_CHILD_LOG, { flags: 'a' });
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
    }
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${out}`)));
  });
}

async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface Measured {
  name: string;
  /** CPU time (user + system) the measured process spent per request, in µs: steady whatever else runs. */
  cpuUsPerRequest?: number;
  /** The API process's share of cpuUsPerRequest (split topology; the rest is the worker's). */
  apiCpuUsPerRequest?: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** user + system CPU ticks of a process, in µs. */
function cpuMicros(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS);
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100;

/** The processes whose CPU time a measurement counts: the baseline's, or the service's (API and worker). */
let measuredPids: number[] = [];

/** CPU µs of the measured processes: all of them, and the first (the API process, or the baseline). */
export interface CpuReading {
  all: number;
  first: number;
}

function cpuOfMeasured(): CpuReading | undefined {
  let all = 0;
  const each: number[] = [];
  for (const pid of measuredPids) {
    const micros = cpuMicros(pid);
    if (micros === undefined) return undefined;
    each.push(micros);
    all += micros;
  }
  return each.length > 0 ? { all, first: each[0]! } : undefined;
}

/** CPU per request between two readings: of all measured processes, and of the API process alone. */
function cpuPerRequest(
  before: CpuReading | undefined,
  after: CpuReading | undefined,
  requests: number,
): Pick<Measured, 'cpuUsPerRequest' | 'apiCpuUsPerRequest'> {
  if (!before || !after || requests <= 0) return {};
  return {
    cpuUsPerRequest: (after.all - before.all) / requests,
    apiCpuUsPerRequest: (after.first - before.first) / requests,
  };
}

/**
 * One autocannon run of BENCH_DURATION seconds. `warmUp` first sends the same requests for
 * BENCH_WARMUP seconds (default 2), unmeasured, so the JIT has compiled the path being measured
 * (only for requests that can be repeated without changing what is measured).
 */
export async function measure(name: string, opts: autocannon.Options & { warmUp?: boolean }): Promise<Measured> {
  const { warmUp, ...options } = opts;
  if (warmUp && WARMUP > 0) await autocannon({ duration: WARMUP, connections: CONNECTIONS, ...options });
  opts = options;
  const cpuBefore = cpuOfMeasured();
  const result = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts });
  const cpuAfter = cpuOfMeasured();
  return {
    name,
    ...cpuPerRequest(cpuBefore, cpuAfter, result.requests.total),
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * One paced run of BENCH_DURATION seconds: requests at `rate` a second, evenly spaced
 * (bench/paced.ts), latency from when each was due. For latency at a given load, where
 * autocannon's `overallRate` would send each second's requests as one burst.
 */
export async function measurePaced(
  name: string,
  opts: { baseUrl: string; rate: number; next: (i: number) => PacedRequest },
): Promise<Measured> {
  const cpuBefore = cpuOfMeasured();
  const result = await pacedRun({ ...opts, durationSeconds: DURATION, connections: CONNECTIONS });
  const cpuAfter = cpuOfMeasured();
  return {
    name,
    ...cpuPerRequest(cpuBefore, cpuAfter, result.requests),
    ...result,
  };
}

async function main(): Promise<void> {
  const up = await reachable();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-bench-'));
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    PRODUCTION_SIMULATOR: 'off',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    CONNECTOR_SHOPIFY_API_KEY: 'bench-app',
    CONNECTOR_SHOPIFY_API_SECRET: randomBytes(24).toString('hex'),
  };
  let dropDb: (() => Promise<void>) | undefined;
  if (up.pg) {
    const name = `pa_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    // BENCH_KEEP_DB=1: leave the database for a look afterwards (its name is printed).
    if (process.env.BENCH_KEEP_DB) process.stdout.write(`bench database: ${name} (kept)\n`);
    dropDb = async () => {
      if (process.env.BENCH_KEEP_DB) return;
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  // A prefix of its own: nothing left in Redis by another run (or the service) mixes in.
  const redisPrefix = `pa-bench-${randomBytes(4).toString('hex')}`;
  if (up.redis && up.pg) {
    env.REDIS_URL = REDIS_URL;
    env.REDIS_PREFIX = redisPrefix;
  }
  const backend = `${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} + ${env.REDIS_URL ? 'Redis' : 'in-process queue, memory limits'}`;

  const children: ChildProcess[] = [];
  try {
    const files = await startChild('bench/file-server.ts', {});
    children.push(files.child);
    // The service trusts the file host's CA and this process's (its webhook receivers).
    const caFile = path.join(dataDir, 'bench-ca.pem');
    writeFileSync(caFile, `${String(files.announced.ca)}\n${(await testCertificates()).ca}`);
    env.NODE_EXTRA_CA_CERTS = caFile;
    env.OUTBOUND_ALLOWED_HOSTS = 'localhost';

    const baseline = await startChild('bench/baseline-server.ts', {});
    children.push(baseline.child);
    // As deployed: with PostgreSQL and Redis, one API process and one worker process (ROLE),
    // so webhook acknowledgements and API calls never wait behind queue work on one event loop.
    const split = TOPOLOGY === 'split' && env.DATABASE_URL !== undefined && env.REDIS_URL !== undefined;
    const service = await startChild('core/src/main.ts', { ...env, ...(split ? { ROLE: 'api' } : {}) });
    children.push(service.child);
    const worker = split
      ? await startChild('core/src/main.ts', { ...env, ROLE: 'worker' }, /worker started/)
      : undefined;
    if (worker) children.push(worker.child);
    const baseUrl = `http://127.0.0.1:${service.port}`;
    const ctx: BenchContext = {
      baseUrl,
      fileServerUrl: String(files.announced.url),
      fileServerCa: String(files.announced.ca),
      adminToken,
      measure,
      measurePaced,
      cpu: cpuOfMeasured,
      perUnit: cpuPerRequest,
      env,
      root,
      connections: CONNECTIONS,
      duration: DURATION,
    };

    process.stdout.write(
      `\nprint-api bench — ${backend}; ${worker ? 'one API process + one worker process' : 'one process (API and workers)'}; ${CONNECTIONS} connections, ${DURATION} s per scenario, node ${process.version}\n\n`,
    );
    measuredPids = [baseline.child.pid!];
    const base = await measure('baseline: bare Express GET /json', {
      url: `http://127.0.0.1:${baseline.port}/json`,
      warmUp: true,
    });
    measuredPids = [service.child.pid, worker?.child.pid].filter((pid): pid is number => pid !== undefined);
    const rows: Array<Measured & { ratio?: number }> = [base];
    for (const scenario of scenarios) {
      if (ONLY && !ONLY.includes(scenario.name)) continue;
      const results = await scenario.run(ctx);
      for (const r of results) rows.push({ ...r, ratio: r.rps / base.rps });
    }
    const header = `${'scenario'.padEnd(58)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'errors'.padStart(7)} ${'vs baseline'.padStart(12)} ${'CPU µs/req'.padStart(11)} ${'of it API'.padStart(10)}`;
    process.stdout.write(`${header}\n${'-'.repeat(header.length)}\n`);
    for (const r of rows) {
      const ratio = r.ratio === undefined ? '1.00' : r.ratio.toFixed(2);
      process.stdout.write(
        `${r.name.padEnd(58)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.errors + r.non2xx).padStart(7)} ${`${ratio}x`.padStart(12)} ${(r.cpuUsPerRequest === undefined ? '' : r.cpuUsPerRequest.toFixed(0)).padStart(11)} ${(r.apiCpuUsPerRequest === undefined || measuredPids.length < 2 ? '' : r.apiCpuUsPerRequest.toFixed(0)).padStart(10)}\n`,
      );
    }
    process.stdout.write('\n');
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await dropDb?.().catch(() => undefined);
    if (env.REDIS_URL) await dropRedisKeys(redisPrefix).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
