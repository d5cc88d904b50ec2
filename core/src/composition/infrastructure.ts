import { createHmac } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectorEnv, type Config } from '../config.ts';
import { CursorCodec } from '../kernel/pagination.ts';
import { SecretBox } from '../infra/crypto.ts';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../infra/db/database.ts';
import { resolveLocalSecrets, type LocalSecrets } from '../infra/local-secrets.ts';
import { createLogger, type Logger } from '../infra/logger.ts';
import { Metrics } from '../infra/metrics.ts';
import { BullMqJobQueue } from '../infra/queue/bullmq-queue.ts';
import { InProcessJobQueue } from '../infra/queue/in-process-queue.ts';
import type { JobQueue } from '../infra/queue/job-queue.ts';
import { createRateLimiter, rateLimitFallbackReporter, type RateLimiter } from '../infra/rate-limit.ts';
import { REQUEST_PATH_REDIS } from '../infra/redis-options.ts';
import { createSafeFetch, type SafeFetchClient } from '../infra/safe-fetch/safe-fetch.ts';
import { AuthCache } from '../modules/accounts/auth-cache.ts';
import { migrations } from '../modules/migrations.ts';
import { configureConnectors, loadConnectors, type ConnectorRegistry } from '../modules/stores/connector-registry.ts';
import type { Tables } from '../modules/tables.ts';
import type { Overrides } from './overrides.ts';

/** How long an authenticated key is trusted without asking the database (revocations clear it at once). */
const AUTH_CACHE_TTL_MS = 30_000;

/** The adapters every area is built on: database, Redis, queue, metrics, rate limits, outbound HTTP, secrets. */
export interface Infrastructure {
  logger: Logger;
  connectors: ConnectorRegistry;
  secrets: LocalSecrets;
  box: SecretBox;
  cursors: CursorCodec;
  database: DatabaseHandle<Tables>;
  redis: Redis | undefined;
  /** Redis's second client: the revocations' subscription. */
  authSubscriber: Redis | undefined;
  redisPrefix: string;
  authCache: AuthCache;
  queue: JobQueue;
  metrics: Metrics;
  rateLimiter: RateLimiter;
  /** Told of every request a rate limiter counted in memory because Redis was unreachable. */
  onRateLimitFallback: (limiter: string) => void;
  safeFetch: SafeFetchClient;
  /** Where clients reach us: PUBLIC_URL, else HOST:PORT. */
  publicUrl: string;
}

/**
 * Opens the adapters, in the order start-up needs them: settings checked first, then the database (migrated), Redis,
 * the queue.
 */
export async function openInfrastructure(config: Config, overrides: Overrides): Promise<Infrastructure> {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, { service: 'print-api', role: config.ROLE });
  // First: a connector's wrong setting stops start-up (ConfigError) before anything is opened.
  const connectors = configureConnectors({
    connectors: overrides.connectors ?? (await loadConnectors(config.CONNECTORS)),
    env: overrides.connectorEnv ?? ((platform) => connectorEnv(platform)),
    logger,
    named: overrides.connectors !== undefined || config.CONNECTORS.trim() !== 'all',
  });
  const secrets = resolveLocalSecrets(config.DATA_DIR, {
    adminToken: config.ADMIN_TOKEN,
    encryptionKey: config.ENCRYPTION_KEY,
  });
  const box = new SecretBox(secrets.encryptionKey);
  const cursors = new CursorCodec(
    createHmac('sha256', Buffer.from(secrets.encryptionKey, 'base64')).update('cursor-signing').digest(),
  );

  const database = await openDatabase<Tables>({
    url: config.DATABASE_URL,
    dataDir: overrides.embeddedDatabaseDir ?? config.DATA_DIR,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    pgliteTemplate: overrides.pgliteTemplate,
    onConnectionError: (err) =>
      logger.warn('a database connection failed; the pool replaces it', { error: err.message }),
  });
  const applied = await migrateToLatest(database.db, migrations);
  if (applied.length > 0) logger.info('migrations applied', { migrations: applied });

  const redisPrefix = overrides.redisPrefix ?? config.REDIS_PREFIX;
  // Requests wait for this client (rate-limit counters, revocations, /readyz), never for long:
  // see REQUEST_PATH_REDIS. Auto-pipelining: the commands of concurrent requests share one write.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { ...REQUEST_PATH_REDIS, enableAutoPipelining: true })
    : undefined;
  redis?.on('error', (err) => logger.warn('redis connection error', { error: err.message }));
  // Authenticated keys are cached for a few seconds when every process can be told of a
  // revocation: through Redis, or trivially with the embedded database (one process).
  const authCache = new AuthCache({ ttlMs: AUTH_CACHE_TTL_MS, enabled: !config.DATABASE_URL || redis !== undefined });
  // The subscription is no request's wait: it keeps its offline queue (subscribing at start-up
  // waits for the connection) and has no command timeout; its socket timeout finds a hung Redis.
  const authSubscriber = redis?.duplicate({
    enableAutoPipelining: false,
    enableOfflineQueue: true,
    commandTimeout: undefined,
  });
  authSubscriber?.on('error', (err) => logger.warn('redis subscriber error', { error: err.message }));
  if (redis && authSubscriber) await authCache.connect(redis, authSubscriber, `${redisPrefix}:auth-invalidate`);
  // Counted from the first request on through Redis, not in memory while the client still connects.
  if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const queue: JobQueue = config.REDIS_URL
    ? new BullMqJobQueue({ connection: { url: config.REDIS_URL }, prefix: redisPrefix, logger })
    : new InProcessJobQueue({ db: database.db, logger });
  const metrics = new Metrics({ queue });
  const rateLimitFallbacks = metrics.counter(
    'rate_limit_fallback_total',
    'Requests a rate limiter counted in this process because Redis was unreachable',
    ['limiter'],
  );
  const onRateLimitFallback = rateLimitFallbackReporter({
    logger,
    count: (limiter) => rateLimitFallbacks.inc({ limiter }),
  });
  const rateLimiter = createRateLimiter({
    perMinute: config.RATE_LIMIT_PER_MINUTE,
    redis,
    keyPrefix: `${redisPrefix}:rl`,
    onFallback: onRateLimitFallback,
  });
  const safeFetch = createSafeFetch({
    allowedHosts: config.OUTBOUND_ALLOWED_HOSTS,
    userAgent: 'print-api/1.0 (+outbound)',
    ...(overrides.outboundCa ? { ca: overrides.outboundCa } : {}),
    ...(overrides.outboundLookup ? { lookup: overrides.outboundLookup } : {}),
  });
  const publicUrl = config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
  return {
    logger,
    connectors,
    secrets,
    box,
    cursors,
    database,
    redis,
    authSubscriber,
    redisPrefix,
    authCache,
    queue,
    metrics,
    rateLimiter,
    onRateLimitFallback,
    safeFetch,
    publicUrl,
  };
}
