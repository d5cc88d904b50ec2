import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SecretBox } from '../../core/src/infra/crypto.ts';
import { testCertificates } from '../../core/test/helpers/tls.ts';
import { query } from './guarantees.ts';
import { OrderLoad, RECIPIENT, UA, type LoadReseller } from './order-load.ts';
import { ProcessSupervisor } from './process-supervisor.ts';
import { ThrowawayPostgres, ThrowawayRedis, type ServiceTools } from './throwaway-services.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

/** What every scenario shares: the suite's own PostgreSQL and Redis, the HTTPS receiver, a temp dir. */
export class FaultWorld {
  readonly dir: string;
  readonly postgres: ThrowawayPostgres;
  readonly redis: ThrowawayRedis;
  readonly receiver: WebhookReceiver;
  readonly caFile: string;

  private constructor(parts: {
    dir: string;
    postgres: ThrowawayPostgres;
    redis: ThrowawayRedis;
    receiver: WebhookReceiver;
    caFile: string;
  }) {
    this.dir = parts.dir;
    this.postgres = parts.postgres;
    this.redis = parts.redis;
    this.receiver = parts.receiver;
    this.caFile = parts.caFile;
  }

  static async start(
    tools: ServiceTools,
    register: (cleanup: () => Promise<void>, now: () => void) => void,
  ): Promise<FaultWorld> {
    const dir = mkdtempSync(path.join(tmpdir(), 'print-api-faults-'));
    // PostgreSQL runs as another OS user under here: it must be able to enter.
    chmodSync(dir, 0o755);
    let postgres: ThrowawayPostgres | undefined;
    let redis: ThrowawayRedis | undefined;
    let receiver: WebhookReceiver | undefined;
    register(
      async () => {
        await receiver?.close();
        await redis?.stop();
        await postgres?.stopQuietly();
        // FAULTS_KEEP_DIR=1 keeps every process's log (and the cluster's) for a look afterwards.
        if (process.env.FAULTS_KEEP_DIR === '1') process.stdout.write(`fault suite files kept in ${dir}\n`);
        else rmSync(dir, { recursive: true, force: true });
      },
      () => {
        redis?.killNow();
        postgres?.killNow();
        if (process.env.FAULTS_KEEP_DIR !== '1') rmSync(dir, { recursive: true, force: true });
      },
    );
    postgres = await ThrowawayPostgres.create(tools, dir);
    redis = await ThrowawayRedis.create(tools, path.join(dir, 'redis'));
    receiver = await WebhookReceiver.start();
    const caFile = path.join(dir, 'receiver-ca.pem');
    writeFileSync(caFile, (await testCertificates()).ca);
    return new FaultWorld({ dir, postgres, redis, receiver, caFile });
  }
}

const RESELLERS = 3;

/**
 * One scenario's service: a database of its own on the shared cluster, a Redis prefix of its
 * own, two API processes and a worker, and RESELLERS funded resellers each with a webhook
 * endpoint (every event) on the receiver. Nothing carries over from another scenario.
 */
export class ScenarioEnvironment {
  readonly name: string;
  readonly databaseUrl: string;
  readonly supervisor: ProcessSupervisor;
  readonly resellers: LoadReseller[] = [];
  /** The processes' ENCRYPTION_KEY (what a scenario that writes sealed credentials needs). */
  readonly encryptionKey: string;
  readonly #world: FaultWorld;
  readonly #adminToken: string;
  #load: OrderLoad | undefined;

  private constructor(
    world: FaultWorld,
    name: string,
    databaseUrl: string,
    supervisor: ProcessSupervisor,
    adminToken: string,
    encryptionKey: string,
  ) {
    this.#world = world;
    this.encryptionKey = encryptionKey;
    this.name = name;
    this.databaseUrl = databaseUrl;
    this.supervisor = supervisor;
    this.#adminToken = adminToken;
  }

  /** `env`: more settings of every process (the store scenarios' connector settings). */
  static async start(world: FaultWorld, name: string, env: Record<string, string> = {}): Promise<ScenarioEnvironment> {
    const tag = `${name}_${randomBytes(3).toString('hex')}`;
    await query(world.postgres.url(), `create database faults_${tag}`);
    const dataDir = path.join(world.dir, tag);
    mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
    const adminToken = `adm_faults_${randomBytes(16).toString('hex')}`;
    const databaseUrl = world.postgres.url(`faults_${tag}`);
    const encryptionKey = SecretBox.generateKey();
    const supervisor = new ProcessSupervisor({
      logDir: path.join(dataDir, 'logs'),
      env: {
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        REDIS_URL: world.redis.url,
        REDIS_PREFIX: `faults-${tag}`,
        ADMIN_TOKEN: adminToken,
        ENCRYPTION_KEY: encryptionKey,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        RATE_LIMIT_PER_MINUTE: '1000000',
        // Orders stay SUBMITTED/PAID once handed off: the events of a placement are all there are.
        PRODUCTION_SIMULATOR: 'off',
        NODE_EXTRA_CA_CERTS: world.caFile,
        OUTBOUND_ALLOWED_HOSTS: 'localhost',
        SHUTDOWN_TIMEOUT_MS: '5000',
        ...env,
      },
    });
    const scenario = new ScenarioEnvironment(world, name, databaseUrl, supervisor, adminToken, encryptionKey);
    // Both API processes at once (as a deployment starts them: migrations apply once), then the worker.
    await Promise.all([supervisor.start('api-1', 'api'), supervisor.start('api-2', 'api')]);
    await supervisor.start('worker', 'worker');
    for (let i = 1; i <= RESELLERS; i++) scenario.resellers.push(await scenario.#reseller(`${tag}-r${i}`));
    return scenario;
  }

  /** A back-office call on any API process running (throws unless 2xx). */
  admin(method: string, p: string, body?: unknown): Promise<any> {
    const api = this.supervisor.apiUrls()[0];
    if (!api) return Promise.reject(new Error('no API process runs'));
    return call(api, method, `/admin/v1${p}`, this.#adminToken, body);
  }

  /** A reseller API call with `key` on any API process running (throws unless 2xx). */
  api(key: string, method: string, p: string, body?: unknown): Promise<any> {
    const api = this.supervisor.apiUrls()[0];
    if (!api) return Promise.reject(new Error('no API process runs'));
    return call(api, method, `/api/reseller/v1${p}`, key, body);
  }

  /**
   * The scenarios' order load, not started: its probe proves that a process places orders (checkProcesses); startLoad
   * starts one.
   */
  prober(): OrderLoad {
    return new OrderLoad({
      resellers: this.resellers,
      apis: () => this.supervisor.apiUrls(),
      body: () => ({
        lines: [{ productId: 'business-cards', quantity: 250, fileUrl: this.#world.receiver.printFileUrl }],
        recipient: RECIPIENT,
      }),
      intervalMs: 300,
      requestTimeoutMs: 15_000,
      repeatEvery: 4,
    });
  }

  /** Starts the bounded load on every API process running (whichever they are at each request). */
  startLoad(): OrderLoad {
    // The same load the prober describes, started.
    this.#load = this.prober();
    this.#load.start();
    return this.#load;
  }

  /** Stops the load (briefly) and every process. Never throws. */
  async stop(): Promise<void> {
    await this.#load?.stop(1000).catch(() => undefined);
    await this.supervisor.stopAll();
  }

  async #reseller(name: string): Promise<LoadReseller> {
    const api = this.supervisor.apiUrls()[0]!;
    const admin = (method: string, p: string, body?: unknown) =>
      call(api, method, `/admin/v1${p}`, this.#adminToken, body);
    const created = await admin('POST', '/resellers', {
      name: `Faults ${name}`,
      email: `${name}@example.com`,
      phone: '+31 20 000 0000',
      discountPercent: 5,
    });
    const id = created.data.id as string;
    await admin('POST', `/resellers/${id}/approve`);
    const key = (await admin('POST', `/resellers/${id}/api-keys`, { mode: 'live' })).data.key as string;
    await admin('POST', `/resellers/${id}/wallet/top-ups`, { amountCents: 50_000_000 });
    const endpoint = await call(api, 'POST', '/api/reseller/v1/webhooks', key, {
      url: this.#world.receiver.hookUrl(name),
      events: ['*'],
    });
    this.#world.receiver.useSecret(name, endpoint.data.secret as string);
    return { name, id, key, endpointId: endpoint.data.id as string };
  }
}

async function call(base: string, method: string, p: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': UA,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}
