import { ConnectorError, type StoreConnection } from '@print-api/connector-kit';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import type { RateLimiter } from '../../../infra/rate-limit.ts';
import type { TokenBucket } from '../../../infra/token-bucket.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoreCredentials } from '../connect/store-credentials.ts';
import type { StoresContext } from '../stores-context.ts';

/** A poll waiting for its platform's order-search budget (pollBudget): nothing runs meanwhile. */
export class PollBudgetWait extends RetryLaterError {
  override name = 'PollBudgetWait';
}

export interface StoreCallsDeps extends Pick<StoresContext, 'connectors' | 'context'> {
  connections: StoreConnections;
  credentials: StoreCredentials;
  /** A limiter per platform (shared by every process on Redis); its key is the store. */
  callLimiter: (platform: string, rate: { max: number; durationMs: number }) => RateLimiter;
  /** A token bucket per platform with a pollBudget (shared by every process on Redis); its key is the store. */
  pollBudget?: (platform: string, budget: { burst: number; refillMs: number }) => TokenBucket;
}

/**
 * Credential refresh and the platforms' call budgets: every job that calls a store's platform
 * takes one of the store's calls first and gets the store's connection with expiring
 * credentials renewed (and stored: some platforms rotate the refresh token), one renewal at a
 * time per store across every process; a renewal the platform refuses disconnects the store.
 *
 * The platform's rate limit is per store: taken before each call to the platform, not on the
 * queues, so one busy store never slows another and a webhook that carries its order (no call
 * at all) is never held back.
 */
export class StoreCalls {
  readonly #deps: StoreCallsDeps;
  readonly #limiters = new Map<string, RateLimiter>();
  /** The platforms' budgets of listOrders calls per store (manifest.pollBudget). */
  readonly #pollBudgets = new Map<string, TokenBucket>();
  /** Renewals under way in this process, by store: one at a time per store. */
  readonly #renewals = new Map<string, Promise<unknown>>();

  constructor(deps: StoreCallsDeps) {
    this.#deps = deps;
    for (const connector of deps.connectors.all()) {
      const { platform, rateLimit } = connector.manifest;
      this.#limiters.set(platform, deps.callLimiter(platform, rateLimit));
      const budget = connector.manifest.pollBudget;
      if (budget && deps.pollBudget) this.#pollBudgets.set(platform, deps.pollBudget(platform, budget));
    }
  }

  /**
   * Takes one of the store's listOrders calls where its platform meters them (pollBudget), or
   * has the poll wait (no attempt spent) until the bucket allows one.
   */
  async pollSlot(store: StoreRow): Promise<void> {
    const decision = await this.#pollBudgets.get(store.platform)?.take(store.id);
    if (decision && !decision.allowed)
      throw new PollBudgetWait(
        `${store.platform} meters the order search of a store: the next call is allowed in ${Math.ceil(decision.msBeforeNext / 1000)} s`,
        Math.max(50, decision.msBeforeNext),
      );
  }

  /**
   * Whether the platform meters its order search on its own (pollBudget): its listOrders calls then take from that
   * budget only.
   */
  searchMetered(platform: string): boolean {
    return this.#pollBudgets.has(platform);
  }

  /** How long until the store's next listOrders call is allowed (0: now, or its platform meters none). */
  async pollWaitMs(store: StoreRow): Promise<number> {
    return (await this.#pollBudgets.get(store.platform)?.wait(store.id)) ?? 0;
  }

  /**
   * A connector said the merchant withdrew our access: the store is disconnected with its reason. Answers whether it
   * did.
   */
  async disconnectIfRevoked(storeId: string, err: unknown): Promise<boolean> {
    if (!(err instanceof ConnectorError) || err.kind !== 'auth' || !err.revoked) return false;
    await this.#deps.connections.markDisconnected(storeId, err.message);
    return true;
  }

  /**
   * Takes one of the store's calls under the platform's rate limit, or has the job wait (no
   * attempt spent) until the window its turn falls in: the n-th job turned away in a window
   * waits n / limit windows more, so a backlog (thin webhooks, each fetching its order) comes
   * back a budget's worth per window instead of all at once every window.
   */
  async slot(store: StoreRow): Promise<void> {
    const decision = await this.#limiters.get(store.platform)?.consume(store.id);
    if (decision && !decision.allowed) {
      const later = decision.over
        ? Math.floor((decision.over.rank - 1) / Math.max(1, decision.limit)) * decision.over.windowMs
        : 0;
      throw new RetryLaterError(
        `${store.platform} allows ${decision.limit} calls per window for a store`,
        Math.max(50, decision.msBeforeNext + later),
      );
    }
  }

  /**
   * `connection`, waiting here up to `maxWaitMs` for one of the store's calls when the budget is
   * spent (a request someone waits on: a short wait beats asking them to try again).
   */
  async connectionWithin(row: StoreRow, maxWaitMs: number): Promise<StoreConnection<unknown>> {
    const until = Date.now() + maxWaitMs;
    for (;;) {
      try {
        return await this.connection(row);
      } catch (err) {
        if (!(err instanceof RetryLaterError) || Date.now() + err.retryAfterMs > until) throw err;
        await new Promise((r) => setTimeout(r, err.retryAfterMs));
      }
    }
  }

  /**
   * The store's connection for a call to its platform (after taking a call slot, unless the call
   * is metered otherwise: `slot: false`), with expiring
   * credentials renewed first when the connector says they are due (`credentialsDue`). Reads the stored
   * credentials afresh (another job may have renewed them).
   */
  async connection(row: StoreRow, options: { slot?: boolean } = {}): Promise<StoreConnection<unknown>> {
    if (options.slot !== false) await this.slot(row);
    const store = (await this.#deps.connections.findById(row.id)) ?? row;
    const connection = this.#deps.credentials.connection(store);
    const connector = this.#deps.connectors.get(store.platform);
    if (!connector?.refreshCredentials) return connection;
    // Most calls: nothing to renew, so no lock to take (the renewal's lock is a transaction).
    if (connector.credentialsDue && !connector.credentialsDue(connection, this.#deps.context(store.platform).clock()))
      return connection;
    let renewal = this.#renewals.get(store.id);
    if (!renewal) {
      // Under a lock every process shares, on the credentials as stored then (see renewCredentials).
      renewal = this.#deps.credentials
        .renewCredentials(store.id, (current) =>
          connector.refreshCredentials!(this.#deps.context(store.platform), current),
        )
        .catch(async (err: unknown) => {
          // The platform refused to renew because the merchant's grant is gone (revoked, expired
          // refresh token): nothing works until the merchant connects again, and GET /stores/{id}
          // says why. Our app's own credentials refused is not the store's doing: no disconnection.
          if (err instanceof ConnectorError && err.kind === 'auth' && err.revoked) {
            const reason = err.message.replace(/\.$/, '');
            const message = `${connector.manifest.displayName} refused to renew the store's access, so it was disconnected: ${reason}${/connect the store again/i.test(reason) ? '.' : '. Connect the store again.'}`;
            await this.#deps.connections.markDisconnected(store.id, message);
            // The job that asked fails with the same reason (a poll records it as is, not a second wording).
            throw new ConnectorError('auth', message, {
              revoked: true,
              cause: err,
              ...(err.status !== undefined ? { status: err.status } : {}),
            });
          }
          throw err;
        })
        .finally(() => this.#renewals.delete(store.id));
      this.#renewals.set(store.id, renewal);
    }
    return { ...connection, credentials: await renewal };
  }
}
