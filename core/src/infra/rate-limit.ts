import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Milliseconds until the window resets (for a job that waits rather than a client). */
  msBeforeNext: number;
}

/** The rate-limit port: one counter per key per window, shared by every process when backed by Redis. */
export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

/**
 * `perMinute` requests per key per minute, or `points` per `durationMs` (rounded up to whole
 * seconds, the library's unit).
 */
export function createRateLimiter(opts: ({ perMinute: number } | { points: number; durationMs: number }) & { redis?: Redis | undefined; keyPrefix?: string }): RateLimiter {
  const points = 'perMinute' in opts ? opts.perMinute : opts.points;
  const duration = 'perMinute' in opts ? 60 : Math.max(1, Math.ceil(opts.durationMs / 1000));
  const base = { points, duration, keyPrefix: opts.keyPrefix ?? 'rl:api' };
  const limiter: RateLimiterAbstract = opts.redis
    ? new RateLimiterRedis({ ...base, storeClient: opts.redis, rejectIfRedisNotReady: false })
    : new RateLimiterMemory(base);
  return {
    async consume(key) {
      try {
        const res = await limiter.consume(key, 1);
        return { allowed: true, limit: points, remaining: res.remainingPoints, resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)), msBeforeNext: res.msBeforeNext };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, limit: points, remaining: 0, resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), msBeforeNext: rejection.msBeforeNext };
        }
        throw rejection;
      }
    },
  };
}
