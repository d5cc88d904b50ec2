import type { Redis } from 'ioredis';

/** What a bucket said: whether a call was taken, and how long until the next one is allowed (0: now). */
export interface BucketDecision {
  allowed: boolean;
  msBeforeNext: number;
}

/**
 * A token bucket per key: `burst` calls at once, one more every `refillMs` (a platform's
 * "one call every 3 minutes, burst 20"). Shared by every process when backed by Redis (its own
 * clock decides), per process otherwise.
 */
export interface TokenBucket {
  /** Takes one call, or says how long until one is allowed. */
  take(key: string): Promise<BucketDecision>;
  /** How long until a call is allowed (0: now), taking nothing. */
  wait(key: string): Promise<number>;
}

// KEYS[1] the bucket; ARGV: burst, refillMs, take (1 or 0). Fields: tokens (fractional), at (ms).
const SCRIPT = `
local burst = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(v[1])
local at = tonumber(v[2])
if tokens == nil or at == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) / refill)
if tokens >= 1 then
  if ARGV[3] == '1' then
    tokens = tokens - 1
    redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
    redis.call('PEXPIRE', KEYS[1], math.ceil(burst * refill) + 60000)
  end
  return {1, 0}
end
return {0, math.ceil((1 - tokens) * refill)}
`;

/** One process's buckets (embedded backend, and a Redis bucket's fallback while Redis is unreachable). */
function memoryBucket(burst: number, refillMs: number, clock: () => number): TokenBucket {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const level = (key: string, now: number) => {
    const b = buckets.get(key) ?? { tokens: burst, at: now };
    return { tokens: Math.min(burst, b.tokens + Math.max(0, now - b.at) / refillMs), at: now };
  };
  return {
    async take(key) {
      const now = clock();
      const b = level(key, now);
      if (b.tokens < 1) return { allowed: false, msBeforeNext: Math.ceil((1 - b.tokens) * refillMs) };
      buckets.set(key, { tokens: b.tokens - 1, at: now });
      return { allowed: true, msBeforeNext: 0 };
    },
    async wait(key) {
      const b = level(key, clock());
      return b.tokens >= 1 ? 0 : Math.ceil((1 - b.tokens) * refillMs);
    },
  };
}

/**
 * A token bucket on Redis (every process shares it), or in this process without Redis. While
 * Redis cannot be reached, calls are counted in this process (`onFallback(name)` is told each
 * time), never held up nor failed by the outage.
 */
export function createTokenBucket(opts: {
  burst: number;
  refillMs: number;
  redis?: Redis | undefined;
  keyPrefix: string;
  name: string;
  onFallback?: (name: string) => void;
  /** The in-process buckets' clock (ms); tests pass a fake one. Redis buckets use Redis's. */
  clock?: () => number;
}): TokenBucket {
  if (!(opts.burst >= 1) || !(opts.refillMs > 0))
    throw new RangeError('a token bucket needs burst >= 1 and refillMs > 0');
  const memory = memoryBucket(opts.burst, opts.refillMs, opts.clock ?? Date.now);
  const redis = opts.redis;
  if (!redis) return memory;
  const run = async (key: string, take: boolean): Promise<BucketDecision | null> => {
    if (redis.status !== 'ready') return null;
    try {
      const [allowed, ms] = (await redis.eval(
        SCRIPT,
        1,
        `${opts.keyPrefix}:${key}`,
        opts.burst,
        opts.refillMs,
        take ? '1' : '0',
      )) as [number, number];
      return { allowed: allowed === 1, msBeforeNext: Number(ms) };
    } catch {
      return null;
    }
  };
  return {
    async take(key) {
      const decision = await run(key, true);
      if (decision) return decision;
      opts.onFallback?.(opts.name);
      return memory.take(key);
    },
    async wait(key) {
      const decision = await run(key, false);
      if (decision) return decision.msBeforeNext;
      opts.onFallback?.(opts.name);
      return memory.wait(key);
    },
  };
}
