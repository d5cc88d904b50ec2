import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { SecretBox } from '../../src/infra/crypto.ts';
import { createTestPostgresDatabase, needService, TEST_REDIS_URL } from '../helpers/services.ts';
import { startTestService, type Backend } from '../helpers/test-service.ts';
import { testCertificates } from '../helpers/tls.ts';
import { createEndpoint, FAST_WEBHOOKS, Receiver, waitFor, writeEvents } from './webhook-test-helpers.ts';
import { scaled } from '../helpers/wait.ts';

/** One database (and Redis prefix) that several service instances open in turn. */
async function sharedStorage(
  ctx: Mocha.Context,
  backend: Backend,
): Promise<{ env: Record<string, string>; redisPrefix: string; scratchDir: string; cleanup: () => Promise<void> }> {
  const env: Record<string, string> = { ENCRYPTION_KEY: SecretBox.generateKey() };
  const redisPrefix = `pa-test-wh-${randomBytes(4).toString('hex')}`;
  const scratchDir = mkdtempSync(path.join(tmpdir(), 'print-api-wh-'));
  const removeDir = async (): Promise<void> => rmSync(scratchDir, { recursive: true, force: true });
  if (backend === 'pglite') {
    env.DATA_DIR = scratchDir;
    return { env, redisPrefix, scratchDir, cleanup: removeDir };
  }
  await needService(ctx, 'postgres');
  await needService(ctx, 'redis');
  const db = await createTestPostgresDatabase();
  env.DATABASE_URL = db.url;
  env.REDIS_URL = TEST_REDIS_URL;
  return { env, redisPrefix, scratchDir, cleanup: async () => (await db.drop(), await removeDir()) };
}

function startWorkerProcess(config: Record<string, string>, overrides: Record<string, unknown>): Promise<ChildProcess> {
  const script = path.join(import.meta.dirname, 'fixtures', 'webhook-worker.ts');
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      WEBHOOK_WORKER_CONFIG: JSON.stringify(config),
      WEBHOOK_WORKER_OVERRIDES: JSON.stringify(overrides),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('worker ready')) resolve(child);
    });
    child.stderr!.on('data', (c: Buffer) => void (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${out}`)));
  });
}

for (const backend of ['pglite', 'postgres+redis'] as const) {
  describe(`webhook delivery across crashes and restarts [${backend}]`, function () {
    this.timeout(scaled(40_000));
    let receiver: Receiver;
    // One database for both cases: creating an embedded one costs seconds.
    let storage: Awaited<ReturnType<typeof sharedStorage>>;
    before(async function () {
      storage = await sharedStorage(this, backend);
      receiver = await Receiver.start();
    });
    after(async () => {
      await receiver?.close();
      await storage?.cleanup();
    });

    it('delivers an event committed just before the process stopped, before any fan-out or enqueue', async function () {
      // Sweeps far apart: only the restart's first sweep can find the event.
      const first = await startTestService(this, backend, storage.env, {
        ...FAST_WEBHOOKS,
        maintenanceIntervalMs: 600_000,
        redisPrefix: storage.redisPrefix,
      });
      const { id: resellerId, key } = await first.reseller();
      await createEndpoint(first, key, receiver.hook(`/restart-${backend}`));
      const [eventId] = await writeEvents(first, { resellerId, notify: false });
      expect(await first.service.db.selectFrom('webhook_deliveries').selectAll().execute()).to.have.length(0);
      await first.close();
      expect(receiver.requests(`/restart-${backend}`)).to.have.length(0);

      const second = await startTestService(this, backend, storage.env, {
        ...FAST_WEBHOOKS,
        redisPrefix: storage.redisPrefix,
      });
      try {
        await waitFor('the event after the restart', () => receiver.requests(`/restart-${backend}`).length === 1);
        expect(receiver.requests(`/restart-${backend}`)[0]!.event.id).to.equal(eventId);
      } finally {
        await second.close();
      }
    });

    it('delivers the event after a worker is killed (SIGKILL) in the middle of sending it', async function () {
      const hook = `/killed-${backend}`;
      // The first attempt is never answered (it ends with the worker); later ones succeed.
      const url = receiver.hook(hook, (n) => (n === 1 ? 'hang' : 200));
      const setup = await startTestService(this, backend, storage.env, {
        ...FAST_WEBHOOKS,
        maintenanceIntervalMs: 600_000,
        redisPrefix: storage.redisPrefix,
      });
      const { id: resellerId, key } = await setup.reseller();
      const endpoint = await createEndpoint(setup, key, url);
      const [eventId] = await writeEvents(setup, { resellerId, notify: false });
      await setup.close();

      const worker = await startWorkerProcess(
        {
          NODE_ENV: 'test',
          LOG_LEVEL: 'error',
          PRODUCTION_SIMULATOR: 'off',
          OUTBOUND_ALLOWED_HOSTS: 'localhost',
          ADMIN_TOKEN: `adm_test_${randomBytes(16).toString('hex')}`,
          DATA_DIR: storage.env.DATA_DIR ?? storage.scratchDir,
          ...storage.env,
        },
        {
          redisPrefix: storage.redisPrefix,
          outboundCa: [(await testCertificates()).ca],
          // Its one sweep, at start, finds the event; it never sweeps again, so it cannot take back its
          // own short lease while the test is slow to kill it (a second attempt before the kill).
          maintenanceIntervalMs: 600_000,
          webhooks: { timeoutMs: 600_000, leaseMs: 1500, retryScheduleMs: [300], jitterRatio: 0 },
        },
      );
      await waitFor('the first attempt on the wire', () => receiver.requests(hook).length === 1, 15_000);
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGKILL');
      await exited;

      const next = await startTestService(this, backend, storage.env, {
        ...FAST_WEBHOOKS,
        redisPrefix: storage.redisPrefix,
      });
      try {
        await waitFor('the redelivery after the lease ran out', () => receiver.requests(hook).length === 2, 15_000);
        expect(receiver.requests(hook).map((r) => r.event.id)).to.deep.equal([eventId, eventId]);
        const log = await waitFor('the log', async () => {
          const res = await next.api(key, 'GET', `/webhooks/${endpoint.id}/deliveries`);
          return res.body.data[0]?.status === 'delivered' && res.body.data[0];
        });
        expect(log.attemptCount).to.equal(2);
        expect(log.attempts.map((a: any) => [a.attempt, a.succeeded, a.statusCode])).to.deep.equal([
          [1, false, null],
          [2, true, 200],
        ]);
        expect(log.attempts[0].error).to.match(/^interrupted/);
      } finally {
        await next.close();
      }
    });
  });
}
