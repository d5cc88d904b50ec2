import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { AuthContext } from '../../kernel/auth-context.ts';

interface Entry {
  auth: AuthContext;
  lastUsedAt: number;
}

/**
 * Authenticated keys and reseller rows kept in memory for a short while, so a request (or an
 * order's placement and hand-off) costs no database round trip for them. Every change that
 * affects them (a key revoked, an account's status changed) clears the entries here and,
 * through Redis, on every other process; an entry also expires on its own after `ttlMs`.
 * Without a way to reach the other processes (PostgreSQL without Redis), the cache stays off: a
 * revoked key must stop working at once everywhere.
 */
export class AuthCache {
  readonly #entries: LRUCache<string, Entry>;
  readonly #resellers: LRUCache<string, object>;
  readonly #ttlMs: number;
  #enabled: boolean;
  #publish: ((message: string) => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(opts: { ttlMs: number; enabled: boolean; max?: number }) {
    this.#ttlMs = opts.ttlMs;
    this.#enabled = opts.enabled && opts.ttlMs > 0;
    const bounds = { max: opts.max ?? 10_000, ttl: Math.max(1, opts.ttlMs) };
    this.#entries = new LRUCache(bounds);
    this.#resellers = new LRUCache(bounds);
  }

  get(keyHash: string): Entry | undefined {
    return this.#enabled ? this.#entries.get(keyHash) : undefined;
  }

  set(keyHash: string, auth: AuthContext, lastUsedAt: number): void {
    if (this.#enabled) this.#entries.set(keyHash, { auth, lastUsedAt });
  }

  /** A reseller's row, when cached and fresh. */
  reseller<T extends object>(resellerId: string): T | undefined {
    return this.#enabled ? (this.#resellers.get(resellerId) as T | undefined) : undefined;
  }

  setReseller(resellerId: string, row: object): void {
    if (this.#enabled) this.#resellers.set(resellerId, row);
  }

  /** Drops every entry of a reseller here and on the other processes. */
  invalidateReseller(resellerId: string): void {
    this.#resellers.delete(resellerId);
    this.#drop((auth) => auth.resellerId === resellerId);
    this.#publish?.(`reseller:${resellerId}`);
  }

  /** Drops one key's entry here and on the other processes. */
  invalidateKey(keyId: string): void {
    this.#drop((auth) => auth.keyId === keyId);
    this.#publish?.(`key:${keyId}`);
  }

  /**
   * Shares invalidations through Redis pub/sub (`subscriber` is a connection of its own). While the
   * subscription is down the cache is off and empty, so no message can be missed. A Redis that
   * hangs keeps the connection open and silent, which no event tells: a PING every `heartbeatMs`
   * finds it (the subscriber's socket timeout drops a connection whose PING goes unanswered, and
   * its 'close' turns the cache off), so a revocation is missed for seconds at most, not for the
   * entries' lifetime.
   */
  async connect(
    publisher: Redis,
    subscriber: Redis,
    channel: string,
    opts: { heartbeatMs?: number } = {},
  ): Promise<void> {
    const apply = (message: string) => {
      const [kind, id] = [message.slice(0, message.indexOf(':')), message.slice(message.indexOf(':') + 1)];
      if (kind === 'reseller') this.#resellers.delete(id);
      this.#drop((auth) => (kind === 'key' ? auth.keyId === id : auth.resellerId === id));
    };
    const off = () => {
      this.#enabled = false;
      this.#entries.clear();
      this.#resellers.clear();
    };
    subscriber.on('message', (ch: string, message: string) => {
      if (ch === channel) apply(message);
    });
    subscriber.on('close', off);
    subscriber.on('end', off);
    subscriber.on('ready', () => {
      // After a reconnection ioredis re-subscribes; entries cached before the gap were already dropped.
      void subscriber.subscribe(channel).then(() => (this.#enabled = this.#ttlMs > 0), off);
    });
    // Failed sends are not retried: the other processes drop their entries on their own when they lose Redis.
    this.#publish = (message) => void publisher.publish(channel, message).catch(() => undefined);
    off();
    await subscriber.subscribe(channel);
    this.#enabled = this.#ttlMs > 0;
    this.#heartbeat = setInterval(() => {
      if (subscriber.status === 'ready') subscriber.ping().catch(off);
    }, opts.heartbeatMs ?? 1000);
    this.#heartbeat.unref();
  }

  /** Stops the heartbeat (the composition root closes the connections). */
  close(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #drop(match: (auth: AuthContext) => boolean): void {
    const matching = [...this.#entries.entries()].filter(([, entry]) => match(entry.auth)).map(([hash]) => hash);
    for (const hash of matching) this.#entries.delete(hash);
  }
}
