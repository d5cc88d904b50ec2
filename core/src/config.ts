import { isIP } from 'node:net';
import { z } from 'zod';
import { plainIssue } from './web/plain-issues.ts';

const booleanFlag = z
  .enum(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => ['on', 'true', '1', 'yes'].includes(v));

const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0),
);

const url = (protocols: string[]) =>
  z
    .url({ message: `must be a URL (${protocols.join(', ')})` })
    .refine((v) => protocols.some((p) => v.startsWith(`${p}:`)), {
      message: `must use ${protocols.join(' or ')}`,
    });

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Which proxies' X-Forwarded-For is believed (Express's `trust proxy`): a number of hops, or a
 * list of addresses, CIDR ranges and Express's names (loopback, linklocal, uniquelocal). Unset:
 * none, the client is the socket's address. `true` (every hop) is refused: anyone could then
 * pick their own address and walk past the sign-in and key lockouts.
 */
const trustProxy = z.string().transform((v, ctx): number | string[] => {
  const text = v.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const bad = items.find((item) => {
    if (PROXY_NAMES.has(item)) return false;
    const [address, bits, ...rest] = item.split('/');
    const family = isIP(address ?? '');
    if (!family || rest.length > 0) return true;
    return bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
  if (items.length === 0 || bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be a number of proxy hops, or proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated${bad ? ` (not: ${bad})` : ''}`,
    });
    return z.NEVER;
  }
  return items;
});

/** Every environment variable the service reads, with its default. The only reader of process.env. */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    ROLE: z.enum(['all', 'api', 'worker']).default('all'),
    /** CPU niceness of a ROLE=worker process: on a machine it shares with API processes, requests go first. */
    WORKER_NICE: z.coerce.number().int().min(0).max(19).default(5),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: url(['postgres', 'postgresql']).optional(),
    /**
     * Named prepared statements on PostgreSQL; off behind a pooler that cannot keep them (PgBouncer before 1.21 in
     * transaction mode).
     */
    DATABASE_PREPARED_STATEMENTS: booleanFlag.default(true),
    DATA_DIR: z.string().min(1).default('./.data'),
    REDIS_URL: url(['redis', 'rediss']).optional(),
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be 1-40 letters, digits, _ or -')
      .default('print-api'),
    ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    ENCRYPTION_KEY: z
      .string()
      .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes in base64 (44 characters)')
      .optional(),
    METRICS_TOKEN: z.string().min(1).optional(),
    /** Audit records older than this many days are dropped by the retention job (which records that it did). */
    AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
    /** Single sign-on of operators at /admin (OpenID Connect): the issuer, the client and the claim with roles. */
    OPERATOR_OIDC_ISSUER: url(['https', 'http']).optional(),
    OPERATOR_OIDC_CLIENT_ID: z.string().min(1).max(200).optional(),
    OPERATOR_OIDC_CLIENT_SECRET: z.string().min(1).max(500).optional(),
    OPERATOR_OIDC_ROLES_CLAIM: z.string().min(1).max(200).default('roles'),
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    OUTBOUND_ALLOWED_HOSTS: list.default([]),
    BLOCKED_USER_AGENTS: list.default([]),
    PUBLIC_URL: url(['http', 'https']).optional(),
    TRUST_PROXY: trustProxy.optional(),
    /**
     * `all` (every installed @print-api/connector-* package), or a comma-separated list of slugs, package names and
     * paths.
     */
    CONNECTORS: z.string().default('all'),
    PRODUCTION_SIMULATOR: booleanFlag.default(true),
    PRODUCTION_SIMULATOR_STEP_MS: z.coerce.number().int().min(0).default(60_000),
    STRIPE_SECRET_KEY: z.string().startsWith('sk_', 'must be a Stripe secret key (sk_...)').optional(),
    /**
     * The ECB's daily euro reference rates (store margins in other currencies are converted at them), fetched by the
     * worker once a day through the outbound guard; `off`: never fetched (margins in other currencies cannot convert).
     */
    ECB_RATES_URL: z
      .union([z.literal('off'), url(['https'])])
      .default('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml'),
    LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info'),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production') {
      if (!c.ADMIN_TOKEN)
        ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKEN'], message: 'is required when NODE_ENV=production' });
      if (!c.ENCRYPTION_KEY)
        ctx.addIssue({ code: 'custom', path: ['ENCRYPTION_KEY'], message: 'is required when NODE_ENV=production' });
    }
    if (c.ROLE !== 'all' && (!c.DATABASE_URL || !c.REDIS_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['ROLE'],
        message: `=${c.ROLE} needs DATABASE_URL and REDIS_URL: separate processes share PostgreSQL and Redis`,
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; a wrong value throws a ConfigError naming each variable at fault. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(configSchema.shape).flatMap((k) => (env[k] === undefined || env[k] === '' ? [] : [[k, env[k]]])),
  );
  const parsed = configSchema.safeParse(relevant);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `${String(i.path[0] ?? 'environment')} ${plainIssue(i)}`);
  throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
}

/**
 * The raw `CONNECTOR_<PLATFORM>_<NAME>` variables of one platform, by NAME (`API_KEY`), empty
 * ones left out. Their meaning belongs to the connector: the connector registry checks them
 * against the connector's settings schema (and names the variable at fault).
 */
export function connectorEnv(
  platform: string,
  env: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const prefix = `CONNECTOR_${platform}_`;
  return Object.fromEntries(
    Object.entries(env).flatMap(([k, v]) =>
      k.startsWith(prefix) && v !== undefined && v !== '' ? [[k.slice(prefix.length), v]] : [],
    ),
  );
}
