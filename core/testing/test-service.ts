import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { configSchema, connectorEnv, type Config } from '../src/config.ts';
import { composeService, type Overrides, type Service } from '../src/composition.ts';
import { SecretBox } from '../src/infra/crypto.ts';
import { createLogger, onlyLogger } from '../src/infra/logger.ts';
import { nockedPlatformLookup } from './nocked-platforms.ts';
import {
  createTestPostgresDatabase,
  migratedPgliteTemplate,
  needService,
  SETUP_TIMEOUT_MS,
  TEST_REDIS_URL,
} from './services.ts';
import { testCertificates } from './tls.ts';

export const USER_AGENT = 'print-api-tests/1.0';

/**
 * The connector suites' rate limit per key: their scenarios poll the API every few milliseconds
 * while the queues work, and on a busy machine a wait outlasts the default 120 requests a minute.
 * The rate limit has tests of its own.
 */
export const CONNECTOR_SUITE_RATE_LIMIT = '100000';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestService {
  service: Service;
  baseUrl: string;
  api<T = any>(
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<HttpResult<T>>;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
  /** An approved reseller with one key (all scopes unless given). */
  reseller(opts?: {
    scopes?: string[];
    mode?: 'live' | 'test';
    discountPercent?: number;
  }): Promise<{ id: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

export type Backend = 'pglite' | 'postgres+redis';

/**
 * Starts the real service (composition root, real database, real queue adapter) on a free
 * loopback port. `postgres+redis` gets a fresh PostgreSQL database and a private Redis prefix.
 */
export async function startTestService(
  ctx: Mocha.Context,
  backend: Backend,
  env: Record<string, string> = {},
  overrides: Overrides = {},
): Promise<TestService> {
  // Starting a service (PGlite's WebAssembly, migrations) takes seconds on a busy machine: the
  // hook or test that starts one gets the setup budget, whatever its own timeout.
  if (ctx.timeout() < SETUP_TIMEOUT_MS) ctx.timeout(SETUP_TIMEOUT_MS);
  let drop: (() => Promise<void>) | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'print-api-test-'));
  const base: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: `adm_test_${randomBytes(16).toString('hex')}`,
    ENCRYPTION_KEY: SecretBox.generateKey(),
    LOG_LEVEL: 'error',
    PRODUCTION_SIMULATOR: 'off',
    // The tests' own HTTPS servers (print files, webhook receivers) listen on localhost.
    OUTBOUND_ALLOWED_HOSTS: 'localhost',
    // No test reaches the ECB: a test that needs rates serves the daily file itself (ECB_RATES_URL).
    ECB_RATES_URL: 'off',
  };
  if (backend === 'postgres+redis') {
    await needService(ctx, 'postgres');
    await needService(ctx, 'redis');
    if (!env.DATABASE_URL) {
      const created = await createTestPostgresDatabase({ migrated: true });
      drop = created.drop;
      base.DATABASE_URL = created.url;
    }
    base.REDIS_URL = TEST_REDIS_URL;
  }
  const config: Config = configSchema.parse({ ...base, ...env });
  const service = await composeService(config, {
    // TEST_LOGS=1 shows the service's logs while debugging a test.
    // Otherwise only a stop step that overran is told (the run goes on: it is a bug to look into).
    logger: process.env.TEST_LOGS === '1' ? createLogger('debug') : shutdownOverrunLogger(),
    checkResponses: true,
    outboundCa: [(await testCertificates()).ca],
    // Platforms behind nock (connector suites) pass the outbound guard's DNS check; nothing else changes.
    outboundLookup: nockedPlatformLookup,
    redisPrefix: `pa-test-${randomBytes(4).toString('hex')}`,
    // A new embedded database starts migrated from the process's template (seconds saved a service).
    ...(config.DATABASE_URL ? {} : { pgliteTemplate: await migratedPgliteTemplate() }),
    // The suite's embedded database lives in memory (writing its files to disk and deleting them cost seconds of CPU
    // a service), unless the test names the DATA_DIR it keeps.
    ...(env.DATA_DIR ? {} : { embeddedDatabaseDir: 'memory://' }),
    // Connectors read their CONNECTOR_<PLATFORM>_* settings from the test's environment, as they would from the
    // process's.
    connectorEnv: (platform) => connectorEnv(platform, { ...base, ...env }),
    ...overrides,
  });
  await service.startWorkers();
  const server = await service.listen();
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = async (
    url: string,
    method: string,
    auth: string | undefined,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(url, {
      method,
      headers: {
        'user-agent': USER_AGENT,
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };

  const t: TestService = {
    service,
    baseUrl,
    api: (key, method, p, body, headers) => request(`${baseUrl}/api/reseller/v1${p}`, method, key, body, headers),
    admin: (method, p, body) => request(`${baseUrl}/admin/v1${p}`, method, service.adminToken, body),
    async reseller(opts = {}) {
      const created = await t.admin('POST', '/resellers', {
        name: `Reseller ${randomBytes(3).toString('hex')}`,
        email: 'owner@reseller.example',
        phone: '+31 20 123 4567',
        discountPercent: opts.discountPercent ?? 10,
      });
      const id = created.body.data.id as string;
      await t.admin('POST', `/resellers/${id}/approve`);
      const key = await t.admin('POST', `/resellers/${id}/api-keys`, {
        mode: opts.mode ?? 'live',
        ...(opts.scopes ? { scopes: opts.scopes } : {}),
      });
      return { id, key: key.body.data.key as string, keyId: key.body.data.id as string };
    },
    async close() {
      await service.close();
      await drop?.();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Runs `body` against the embedded backend and against PostgreSQL + Redis. */
export function describeEachBackend(
  title: string,
  body: (get: () => TestService, backend: Backend) => void,
  env: Record<string, string> = {},
  overrides: Overrides = {},
): void {
  for (const backend of ['pglite', 'postgres+redis'] as const) {
    describe(`${title} [${backend}]`, function () {
      let t: TestService | undefined;
      before(async function () {
        t = await startTestService(this, backend, env, overrides);
      });
      after(async () => {
        await t?.close();
      });
      body(() => t!, backend);
    });
  }
}

/** A logger that shows only the lifecycle's overrun stop steps (on stderr), so that a slow shutdown is seen. */
function shutdownOverrunLogger() {
  return onlyLogger((message) => message.startsWith('shutdown step'));
}
