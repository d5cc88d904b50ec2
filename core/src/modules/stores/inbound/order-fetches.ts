import { ConnectorError, type StoreOrder } from '@print-api/connector-kit';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import { retryDelayFor } from '../connect/connector-errors.ts';
import type { StoreCalls } from '../outbound/store-calls.ts';
import type { StoreRow } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';

/** Ids one `fetchOrders` call carries when the connector does not say (manifest.fetchOrdersMax). */
const DEFAULT_FETCH_MAX = 50;

/**
 * How often, and how long at most each time, a fetch waits here for the store's call budget (or the platform's 429)
 * before its askers are told to retry later.
 */
const WAIT_ATTEMPTS = 5;
const MAX_WAIT_MS = 2000;

interface Ask {
  ids: string[];
  resolve: (orders: StoreOrder[]) => void;
  reject: (err: unknown) => void;
}

const waitable = (err: unknown): boolean =>
  err instanceof RetryLaterError || (err instanceof ConnectorError && err.kind === 'rate_limited');

export interface OrderFetchesDeps extends Pick<StoresContext, 'connectors' | 'context'> {
  calls: StoreCalls;
}

/**
 * The orders thin notifications name, fetched per store in as few calls as the platform allows:
 * ids asked for while a call to the same store waits for the store's call budget, or is under
 * way, go out together in the next call (up to the connector's `fetchOrdersMax`). A backlog of
 * thin notifications (TikTok Shop's, Etsy's) so costs one call per `fetchOrdersMax` orders
 * rather than one per ingest batch, within the same budget. One queue of asks per store and
 * process; every call still takes one of the store's calls, shared by every process.
 */
export class OrderFetches {
  readonly #deps: OrderFetchesDeps;
  readonly #queues = new Map<string, { store: StoreRow; asks: Ask[] }>();

  constructor(deps: OrderFetchesDeps) {
    this.#deps = deps;
  }

  /**
   * The store's orders among `ids` (an order the platform no longer has is left out). Rejects as the platform call or
   * the budget wait failed.
   */
  fetch(store: StoreRow, ids: string[]): Promise<StoreOrder[]> {
    return new Promise<StoreOrder[]>((resolve, reject) => {
      const queued = this.#queues.get(store.id);
      if (queued) return void queued.asks.push({ ids, resolve, reject });
      const queue = { store, asks: [{ ids, resolve, reject }] };
      this.#queues.set(store.id, queue);
      void this.#drain(queue);
    });
  }

  /** How many asks wait for the store's next call (not counting those in a call under way). */
  waiting(storeId: string): number {
    return this.#queues.get(storeId)?.asks.length ?? 0;
  }

  /** Calls the platform until no ask is left; what comes in meanwhile joins the next call. */
  async #drain(queue: { store: StoreRow; asks: Ask[] }): Promise<void> {
    const connector = this.#deps.connectors.get(queue.store.platform);
    const max = connector?.manifest.fetchOrdersMax ?? DEFAULT_FETCH_MAX;
    try {
      while (queue.asks.length > 0) {
        for (let attempt = 1; ; attempt++) {
          let taken: Ask[] = [];
          try {
            if (!connector?.fetchOrders) throw new Error(`${queue.store.platform} cannot fetch orders by id`);
            const connection = await this.#deps.calls.connection(queue.store);
            // Taken once the call may go: the asks that came in while it waited go with it.
            taken = take(queue.asks, max);
            const orders = await connector.fetchOrders(this.#deps.context(queue.store.platform), connection, [
              ...new Set(taken.flatMap((a) => a.ids)),
            ]);
            const byId = new Map(orders.map((o) => [o.externalId, o]));
            for (const a of taken) a.resolve(a.ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])));
            break;
          } catch (err) {
            queue.asks.unshift(...taken);
            const waitMs = retryDelayFor(err);
            if (attempt < WAIT_ATTEMPTS && waitable(err) && waitMs <= MAX_WAIT_MS) {
              await new Promise((r) => setTimeout(r, waitMs));
              continue;
            }
            // Everyone waiting now shares the outcome: each retries on its own terms (its job later, its delivery
            // alone).
            for (const a of queue.asks.splice(0)) a.reject(err);
            break;
          }
        }
      }
    } finally {
      // In the turn that found no ask left (no await in between): a later ask starts a queue of its own.
      this.#queues.delete(queue.store.id);
    }
  }
}

/** The first asks whose ids together stay within `max` (always at least one). */
function take(asks: Ask[], max: number): Ask[] {
  const ids = new Set<string>();
  let n = 0;
  while (n < asks.length) {
    const more = asks[n]!.ids.filter((id) => !ids.has(id));
    if (n > 0 && ids.size + more.length > max) break;
    for (const id of more) ids.add(id);
    n++;
  }
  return asks.splice(0, n);
}
