import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** The rate-limit port: one counter per key per window, shared by every process when backed by Redis. */
export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

export function createRateLimiter(opts: { perMinute: number; redis?: Redis | undefined; keyPrefix?: string }): RateLimiter {
  const base = { points: opts.perMinute, duration: 60, keyPrefix: opts.keyPrefix ?? 'rl:api' };
  const limiter: RateLimiterAbstract = opts.redis
    ? new RateLimiterRedis({ ...base, storeClient: opts.redis, rejectIfRedisNotReady: false })
    : new RateLimiterMemory(base);
  return {
    async consume(key) {
      try {
        const res = await limiter.consume(key, 1);
        return { allowed: true, limit: opts.perMinute, remaining: res.remainingPoints, resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, limit: opts.perMinute, remaining: 0, resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
        throw rejection;
      }
    },
  };
}
