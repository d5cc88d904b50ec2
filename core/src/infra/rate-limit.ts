import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Logger } from './logger.ts';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Milliseconds until the window resets (for a job that waits rather than a client). */
  msBeforeNext: number;
  /**
   * A refusal's place among the refusals of this window (1: the first one over the limit), and
   * the window's length: work that waits can wait for the window its turn falls in rather than
   * all come back at the next one.
   */
  over?: { rank: number; windowMs: number };
}

/** The rate-limit port: one counter per key per window, shared by every process when backed by Redis. */
export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

/**
 * The insurance of a Redis-backed limiter: counts in this process while Redis is unreachable
 * (rate-limiter-flexible calls it only then), and says so each time.
 */
class FallbackLimiter extends RateLimiterMemory {
  readonly #onUse: () => void;

  constructor(opts: IRateLimiterOptions, onUse: () => void) {
    super(opts);
    this.#onUse = onUse;
  }

  override consume(key: string | number, points?: number, options?: { [key: string]: any }): Promise<RateLimiterRes> {
    this.#onUse();
    return super.consume(key, points, options);
  }
}

/**
 * `perMinute` requests per key per minute, or `points` per `durationMs` (rounded up to whole
 * seconds, the library's unit). On Redis, a counter that cannot be reached at once (not
 * connected, or no answer within the client's command timeout) is counted in this process
 * instead: a request is never held up, nor failed, by a Redis outage; the limit is then per
 * process, and `onFallback(name)` is told of every request counted so.
 */
export function createRateLimiter(
  opts: ({ perMinute: number } | { points: number; durationMs: number }) & {
    redis?: Redis | undefined;
    keyPrefix?: string;
    /** The limiter's name in logs and metrics (default `api`). */
    name?: string;
    onFallback?: (name: string) => void;
  },
): RateLimiter {
  const points = 'perMinute' in opts ? opts.perMinute : opts.points;
  const duration = 'perMinute' in opts ? 60 : Math.max(1, Math.ceil(opts.durationMs / 1000));
  const base = { points, duration, keyPrefix: opts.keyPrefix ?? 'rl:api' };
  const name = opts.name ?? 'api';
  const onFallback = opts.onFallback ?? (() => undefined);
  const limiter: RateLimiterAbstract = opts.redis
    ? new RateLimiterRedis({
        ...base,
        storeClient: opts.redis,
        // While the client reconnects, straight to the insurance rather than waiting for it.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new FallbackLimiter(base, () => onFallback(name)),
      })
    : new RateLimiterMemory(base);
  return {
    async consume(key) {
      try {
        const res = await limiter.consume(key, 1);
        return {
          allowed: true,
          limit: points,
          remaining: res.remainingPoints,
          resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
          msBeforeNext: res.msBeforeNext,
        };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return {
            allowed: false,
            limit: points,
            remaining: 0,
            resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
            msBeforeNext: rejection.msBeforeNext,
            over: { rank: Math.max(1, rejection.consumedPoints - points), windowMs: duration * 1000 },
          };
        }
        throw rejection;
      }
    },
  };
}

/**
 * What the composition root does when a limiter counts in this process: `count` every time (a
 * metric), and a warning at most once per `logEveryMs` per limiter (an outage under load would
 * otherwise log a line per request), with how many were counted so since the last one.
 */
export function rateLimitFallbackReporter(deps: {
  logger: Logger;
  count: (name: string) => void;
  logEveryMs?: number;
}): (name: string) => void {
  const logEveryMs = deps.logEveryMs ?? 60_000;
  const pending = new Map<string, { lastLoggedAt: number; unlogged: number }>();
  return (name) => {
    deps.count(name);
    const state = pending.get(name) ?? { lastLoggedAt: -Infinity, unlogged: 0 };
    state.unlogged++;
    const now = Date.now();
    if (now - state.lastLoggedAt >= logEveryMs) {
      deps.logger.warn('Redis unreachable: rate limits are counted per process', {
        limiter: name,
        requests: state.unlogged,
        sinceLastWarningMs: Number.isFinite(state.lastLoggedAt) ? now - state.lastLoggedAt : undefined,
      });
      state.lastLoggedAt = now;
      state.unlogged = 0;
    }
    pending.set(name, state);
  };
}
