import { sleep } from './order-load.ts';
import type { PlatformOrder, ResellerStores } from './store-platforms.ts';

/** What becomes of a store order's payment: paid at once, paid a while later, or never. */
export type Fate = 'paid' | 'late' | 'never';

/** One store order the load created on a platform. */
export interface StoreOrderRecord {
  order: PlatformOrder;
  stores: ResellerStores;
  storeId: string;
  fate: Fate;
  /** Whether it is paid on the platform now (late ones once their payment came). */
  paid: boolean;
}

interface StoreLoadOptions {
  stores: ResellerStores[];
  /** Base URLs of the API processes running now (asked before every attempt). */
  apis: () => string[];
  /** Store orders created per second, over both platforms. */
  perSecond: number;
  /** How long after its creation a late order is paid. */
  latePaymentMs: number;
  /** A reseller's Amazon store is synced (POST /stores/{id}/sync) this often: Amazon sends nothing. */
  syncEveryMs: number;
  sync: (stores: ResellerStores) => Promise<void>;
}

const DELIVERY_TIMEOUT_MS = 10_000;
const RETRY_PAUSE_MS = 500;

/**
 * Store orders at a steady rate on the two platforms, as buyers and platforms make them: per
 * ten orders, six on TikTok Shop (each announced by a signed notification posted to the API
 * processes in turn, retried until acknowledged as TikTok retries) and four on Amazon (found
 * by the periodic syncs). One in ten is paid late (TikTok: a second notification, and for
 * every other one the stale unpaid notification once more after it: out of order), one in
 * twenty never; every fourth TikTok notification is delivered twice.
 */
export class StoreLoad {
  readonly orders: StoreOrderRecord[] = [];
  readonly #opts: StoreLoadOptions;
  readonly #outcomes = new Map<string, number>();
  readonly #inFlight = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();
  readonly #unacknowledged: string[] = [];
  #deliveries = 0;
  #next = 0;
  #n = 0;
  #stopping = false;
  #syncsStopped = false;
  #drainDeadline = Infinity;
  #loop: Promise<void> | undefined;
  #syncs: Array<Promise<void>> = [];

  constructor(opts: StoreLoadOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#loop = this.#run();
    this.#syncs = this.#opts.stores.map((s) => this.#syncLoop(s));
  }

  /** Store orders created so far. */
  created(): number {
    return this.orders.length;
  }

  /** Notifications waiting for an answer, to `api` or to any process. */
  inFlight(api?: string): number {
    if (api !== undefined) return this.#inFlight.get(api) ?? 0;
    return [...this.#inFlight.values()].reduce((a, b) => a + b, 0);
  }

  /**
   * Creates no more orders; late payments and notifications under way go on until done or `drainMs` passed. Syncs go on
   * until `stopSyncing`.
   */
  async stop(drainMs: number): Promise<void> {
    this.#stopping = true;
    this.#drainDeadline = Date.now() + drainMs;
    await this.#loop;
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async stopSyncing(): Promise<void> {
    this.#stopping = true;
    this.#syncsStopped = true;
    await Promise.all(this.#syncs);
  }

  /** Notifications never acknowledged (each `order id: last outcomes`). */
  unacknowledged(): string[] {
    return [...this.#unacknowledged];
  }

  summary(): { deliveries: number; byOutcome: Record<string, number> } {
    return { deliveries: this.#deliveries, byOutcome: Object.fromEntries(this.#outcomes) };
  }

  async #run(): Promise<void> {
    const gap = 1000 / this.#opts.perSecond;
    const started = Date.now();
    while (!this.#stopping) {
      this.#createOne();
      // A steady rate, whatever each step cost.
      const due = started + this.#n * gap;
      await sleep(Math.max(0, due - Date.now()));
    }
  }

  #createOne(): void {
    const n = this.#n++;
    const stores = this.#opts.stores[n % this.#opts.stores.length]!;
    const fate: Fate = n % 20 === 9 ? 'never' : n % 10 === 7 ? 'late' : 'paid';
    const onTikTok = n % 10 < 6;
    const order = onTikTok ? stores.newTikTokOrder(fate === 'paid') : stores.newAmazonOrder(fate === 'paid');
    const record: StoreOrderRecord = {
      order,
      stores,
      storeId: onTikTok ? stores.tiktokStoreId : stores.amazonStoreId,
      fate,
      paid: fate === 'paid',
    };
    this.orders.push(record);
    this.#track(this.#life(record, n));
  }

  /** Everything that happens to one order after its creation: its notifications, its late payment. */
  async #life(record: StoreOrderRecord, n: number): Promise<void> {
    const { order, stores } = record;
    const tiktok = order.platform === 'TIKTOK_SHOP';
    const first = tiktok ? stores.tiktokNotification(order.id) : undefined;
    if (first) {
      await this.#deliver(order.id, first);
      if (n % 4 === 0) await this.#deliver(order.id, first);
    }
    if (record.fate !== 'late') return;
    await sleep(this.#opts.latePaymentMs);
    if (tiktok) stores.payTikTokOrder(order.id);
    else stores.payAmazonOrder(order.id);
    record.paid = true;
    if (!tiktok) return;
    await this.#deliver(order.id, stores.tiktokNotification(order.id));
    // The unpaid notification again, after the paid one: late and out of order.
    if (n % 20 === 17) await this.#deliver(order.id, first!);
  }

  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /** Posts a notification until a 2xx (a platform retries whatever else it gets), or the drain deadline. */
  async #deliver(orderId: string, delivery: { body: string; headers: Record<string, string> }): Promise<void> {
    this.#deliveries++;
    const outcomes: string[] = [];
    for (;;) {
      if (Date.now() > this.#drainDeadline) {
        this.#unacknowledged.push(`${orderId}: ${outcomes.slice(-5).join(', ')}`);
        return;
      }
      const apis = this.#opts.apis();
      if (apis.length === 0) {
        await sleep(RETRY_PAUSE_MS);
        continue;
      }
      const api = apis[this.#next++ % apis.length]!;
      const outcome = await this.#post(api, delivery);
      outcomes.push(outcome);
      this.#outcomes.set(outcome, (this.#outcomes.get(outcome) ?? 0) + 1);
      if (/^2\d\d$/.test(outcome)) return;
      await sleep(RETRY_PAUSE_MS);
    }
  }

  async #post(api: string, delivery: { body: string; headers: Record<string, string> }): Promise<string> {
    this.#inFlight.set(api, (this.#inFlight.get(api) ?? 0) + 1);
    try {
      const res = await fetch(`${api}/connectors/tiktok-shop/webhooks`, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return String(res.status);
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      return `error:${e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.name)}`;
    } finally {
      this.#inFlight.set(api, this.#inFlight.get(api)! - 1);
    }
  }

  async #syncLoop(stores: ResellerStores): Promise<void> {
    let last = Date.now();
    while (!this.#syncsStopped) {
      await sleep(200);
      if (Date.now() - last < this.#opts.syncEveryMs) continue;
      last = Date.now();
      await this.#opts.sync(stores).catch(() => undefined);
    }
  }
}
