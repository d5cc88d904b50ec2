import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Failed sign-ins, counted per key (the client's address; a login link's key): after `points`
 * failures within `durationMs`, further attempts are refused until the window ends, right or
 * wrong. Successes do not count. In Redis when the deployment has it (every process shares the
 * count), in memory otherwise, like the API's limits.
 */
export class SignInLimiter {
  readonly #limiter: RateLimiterAbstract;

  constructor(opts: { redis?: Redis | undefined; keyPrefix: string; points?: number; durationMs?: number }) {
    const base = {
      points: opts.points ?? 10,
      duration: Math.max(1, Math.ceil((opts.durationMs ?? 15 * 60_000) / 1000)),
      keyPrefix: opts.keyPrefix,
    };
    this.#limiter = opts.redis
      ? new RateLimiterRedis({
          ...base,
          storeClient: opts.redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(base),
        })
      : new RateLimiterMemory(base);
  }

  /** Seconds to wait before another attempt is heard, or 0 when one may be made now. */
  async blockedFor(key: string): Promise<number> {
    const res = await this.#limiter.get(key).catch(() => null);
    if (!res || res.remainingPoints > 0) return 0;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  }

  /** Counts a failure; returns the seconds to wait when that was the last one allowed. */
  async failed(key: string): Promise<number> {
    try {
      const res = await this.#limiter.consume(key, 1);
      return res.remainingPoints > 0 ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }

  /** Forgets the failures of a key after it signed in. */
  async succeeded(key: string): Promise<void> {
    await this.#limiter.delete(key).catch(() => undefined);
  }
}
