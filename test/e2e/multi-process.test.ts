import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SecretBox } from '../../core/src/infra/crypto.ts';
import { createTestPostgresDatabase, needService, TEST_REDIS_URL } from '../../core/test/helpers/services.ts';
import { waitFor, scaled } from '../../core/test/helpers/wait.ts';
import { startServiceProcess, type RunningProcess } from './processes.ts';

const UA = 'print-api-e2e/1.0';

describe('several processes side by side on PostgreSQL and Redis (spawned servers)', function () {
  this.timeout(scaled(240_000));
  const procs: RunningProcess[] = [];
  let drop: () => Promise<void> = async () => undefined;
  let dataDir = '';
  let adminToken = '';
  let apiA = '';
  let apiB = '';

  before(async function () {
    await needService(this, 'postgres');
    await needService(this, 'redis');
    const db = await createTestPostgresDatabase();
    drop = db.drop;
    dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-e2e-'));
    adminToken = `adm_e2e_${randomBytes(16).toString('hex')}`;
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      ADMIN_TOKEN: adminToken,
      ENCRYPTION_KEY: SecretBox.generateKey(),
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '30',
      PRODUCTION_SIMULATOR: 'on',
      PRODUCTION_SIMULATOR_STEP_MS: '200',
    };
    // Two API processes start at the same moment: migrations must apply once.
    const [a, b] = await Promise.all([
      startServiceProcess({ ...env, ROLE: 'api' }),
      startServiceProcess({ ...env, ROLE: 'api' }),
    ]);
    procs.push(a!, b!);
    procs.push(await startServiceProcess({ ...env, ROLE: 'worker' }));
    apiA = `http://127.0.0.1:${a!.port}`;
    apiB = `http://127.0.0.1:${b!.port}`;
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (base: string, method: string, p: string, token: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'user-agent': UA,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('shares accounts, keys and the wallet across API processes', async () => {
    const r = await call(apiA, 'POST', '/admin/v1/resellers', adminToken, {
      name: 'Multi',
      email: 'multi@example.com',
      phone: '+31 20 000 0000',
      discountPercent: 5,
    });
    expect(r.status).to.equal(201);
    await call(apiB, 'POST', `/admin/v1/resellers/${r.body.data.id}/approve`, adminToken);
    const key = (
      await call(apiA, 'POST', `/admin/v1/resellers/${r.body.data.id}/api-keys`, adminToken, { mode: 'live' })
    ).body.data.key;
    await call(apiB, 'POST', `/admin/v1/resellers/${r.body.data.id}/wallet/top-ups`, adminToken, { amountCents: 1234 });
    const wallet = await call(apiA, 'GET', '/api/reseller/v1/wallet', key);
    expect(wallet.body.data.balanceCents).to.equal(1234);
  });

  it('counts the rate limit once for all processes', async () => {
    const r = await call(apiA, 'POST', '/admin/v1/resellers', adminToken, {
      name: 'Limits',
      email: 'l@example.com',
      phone: '+31 20 000 0001',
      discountPercent: 0,
    });
    await call(apiA, 'POST', `/admin/v1/resellers/${r.body.data.id}/approve`, adminToken);
    const key = (
      await call(apiA, 'POST', `/admin/v1/resellers/${r.body.data.id}/api-keys`, adminToken, { mode: 'live' })
    ).body.data.key;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await call(i % 2 ? apiA : apiB, 'GET', '/api/reseller/v1/me', key)).status);
    expect(statuses.every((s) => s === 200)).to.equal(true);
    const over = await call(apiB, 'GET', '/api/reseller/v1/me', key);
    expect(over.status).to.equal(429);
    expect(over.headers.get('retry-after')).to.match(/^\d+$/);
  });

  it('reports readiness of the database and Redis', async () => {
    const res = await fetch(`${apiB}/readyz`);
    expect(res.status).to.equal(200);
    expect(((await res.json()) as any).checks).to.deep.equal({ database: 'ok', redis: 'ok' });
  });

  it("streams a reseller's events from one API process as another process writes them (GET /events/stream)", async () => {
    const r = await call(apiA, 'POST', '/admin/v1/resellers', adminToken, {
      name: 'Stream',
      email: 'stream@example.com',
      phone: '+31 20 000 0002',
      discountPercent: 0,
    });
    await call(apiA, 'POST', `/admin/v1/resellers/${r.body.data.id}/approve`, adminToken);
    const key = (
      await call(apiA, 'POST', `/admin/v1/resellers/${r.body.data.id}/api-keys`, adminToken, { mode: 'test' })
    ).body.data.key as string;
    const stream = new AbortController();
    const res = await fetch(`${apiA}/api/reseller/v1/events/stream`, {
      headers: { authorization: `Bearer ${key}`, 'user-agent': UA, accept: 'text/event-stream' },
      signal: stream.signal,
    });
    expect(res.status).to.equal(200);
    const frames: Array<{ event: string; data: any }> = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let text = '';
      for await (const chunk of res.body!) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const lines = text.slice(0, end).split('\n');
          text = text.slice(end + 2);
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event && data) frames.push({ event, data: JSON.parse(data) });
        }
      }
    })().catch(() => undefined);
    try {
      await waitFor('the stream to be live', () => frames.some((f) => f.event === 'ready'));
      // The order is placed through the other API process: this one learns of its events by reading the outbox.
      const product = await call(apiB, 'GET', '/api/reseller/v1/products/business-cards', key);
      const fileUrl = product.body.data.sampleFiles[0].url as string;
      const placed = await fetch(`${apiB}/api/reseller/v1/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'user-agent': UA,
          'content-type': 'application/json',
          'idempotency-key': randomBytes(16).toString('hex'),
        },
        body: JSON.stringify({
          lines: [{ productId: 'business-cards', quantity: 250, fileUrl }],
          recipient: {
            name: 'Jan de Vries',
            address1: 'Keizersgracht 1',
            postalCode: '1015 CJ',
            city: 'Amsterdam',
            country: 'NL',
          },
        }),
      });
      const order = (await placed.json()) as any;
      expect(placed.status, JSON.stringify(order)).to.equal(201);
      const created = await waitFor(
        'order.created on the stream',
        () => frames.find((f) => f.event === 'order.created' && f.data.data?.order?.id === order.data.id),
        20_000,
      );
      expect(created!.data).to.include({ type: 'order.created', testMode: true });
    } finally {
      stream.abort();
      await reading;
    }
  });

  it('stops gracefully on SIGTERM', async () => {
    const worker = procs.pop()!;
    expect(await worker.stop('SIGTERM')).to.equal(0);
  });
});
