import type { RedisOptions } from 'ioredis';

/**
 * How long a client waits before it tries to reconnect: at most a second, with jitter. ioredis
 * doubles the wait up to 5 s by default, so a client found Redis back up to 5 s after its return,
 * and what waits for Redis (jobs queued again, workers, shared rate limits) waited with it. A
 * connection attempt a second per client while Redis is away costs nothing worth saving.
 */
export function reconnectSoon(times: number): number {
  return Math.min(times * 100, 1000) + Math.floor(Math.random() * 100);
}

/**
 * Options of the Redis connections a request may wait for: the shared client (rate-limit
 * counters, revocation broadcasts, `/readyz`) and the queue producers (jobs added after a
 * commit). A Redis outage must never hang a request, so:
 * - no offline queue: while the client reconnects a command fails at once, and its caller
 *   degrades (counts in memory, leaves the job to its sweeper) instead of waiting;
 * - a command timeout: a Redis that has stopped answering (its sockets still open, as with a
 *   hung or paused server) costs a command at most this;
 * - a socket timeout: a connection with commands out and nothing back for that long is dropped
 *   and reconnected, so that after the first timeouts the client knows Redis is away and fails
 *   at once rather than one timeout per command.
 * Never for a worker's connections: their blocking commands wait for jobs for long on purpose.
 */
export const REQUEST_PATH_REDIS: Readonly<RedisOptions> = {
  retryStrategy: reconnectSoon,
  enableOfflineQueue: false,
  commandTimeout: 500,
  socketTimeout: 3000,
  connectTimeout: 3000,
  maxRetriesPerRequest: 1,
};

/**
 * The queue producers': the same, with more time per command. Their adds are hardly ever
 * awaited by a request (hand-offs and store webhooks are queued after the answer), and an add
 * timed out by a stalled event loop rather than by Redis would leave its work to a sweeper that
 * comes a minute later.
 */
export const PRODUCER_REDIS: Readonly<RedisOptions> = { ...REQUEST_PATH_REDIS, commandTimeout: 2000 };
