import { randomUUID } from 'node:crypto';

export const UA = 'print-api-faults/1.0';

export const RECIPIENT = {
  name: 'Fault Recipient',
  email: 'r@example.nl',
  phone: '+31 6 1234 5678',
  address1: 'Dam 1',
  postalCode: '1012 JS',
  city: 'Amsterdam',
  country: 'NL',
};

/** One reseller of the load: its live key and its webhook endpoint. */
export interface LoadReseller {
  name: string;
  id: string;
  key: string;
  endpointId: string;
}

/** Everything the load generator saw of one Idempotency-Key. */
export interface KeyRecord {
  key: string;
  reseller: LoadReseller;
  /** The order id of every 2xx answer (a repeat must name the same order). */
  orderIds: string[];
  /** Statuses of every attempt; `error:<message>` for a request that got no answer. */
  attempts: string[];
  acknowledged: boolean;
  /**
   * Why the generator stopped trying without a 2xx (a refusal, or the drain deadline), for the first request or a
   * repeat.
   */
  gaveUp: string | undefined;
}

interface LoadOptions {
  resellers: LoadReseller[];
  /** Base URLs of the API processes running now (asked before every attempt: processes come and go). */
  apis: () => string[];
  body: () => Record<string, unknown>;
  /** Pause between one reseller's orders. */
  intervalMs: number;
  /** A request without an answer after this is abandoned and retried (a hang is not waited out). */
  requestTimeoutMs: number;
  /** Every n-th acknowledged key is sent once more to the next API: the repeat must name the same order. */
  repeatEvery: number;
}

const RETRY_PAUSE_MS = 250;

/**
 * A bounded load: each reseller places wallet-paid orders one after another, each with a new
 * Idempotency-Key, spread round-robin over the API processes. A request that fails without a
 * definite answer (no answer, a 5xx, a 429) is retried with the same key and body, on the next
 * process, until it is acknowledged; so every key ends acknowledged, refused (a 4xx: kept as
 * an anomaly) or, past the drain deadline, given up.
 */
export class OrderLoad {
  readonly keys: KeyRecord[] = [];
  readonly #opts: LoadOptions;
  readonly #statuses = new Map<string, number>();
  #next = 0;
  readonly #inFlight = new Map<string, number>();
  #maxLatencyMs = 0;
  #stopping = false;
  #drainDeadline = Infinity;
  #loops: Array<Promise<void>> = [];

  constructor(opts: LoadOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#loops = this.#opts.resellers.map((r) => this.#loop(r));
  }

  /** Keys acknowledged so far. */
  acknowledged(): number {
    return this.keys.filter((k) => k.acknowledged).length;
  }

  /** Requests waiting for an answer, to `api` or to any process. */
  inFlight(api?: string): number {
    if (api !== undefined) return this.#inFlight.get(api) ?? 0;
    let n = 0;
    for (const count of this.#inFlight.values()) n += count;
    return n;
  }

  /** Places no new orders; keys under way keep being retried until acknowledged or `drainMs` has passed. */
  async stop(drainMs: number): Promise<void> {
    this.#stopping = true;
    this.#drainDeadline = Date.now() + drainMs;
    await Promise.all(this.#loops);
  }

  /**
   * One more order through `api` only, retried there until acknowledged or `deadlineMs` passed: proves that process
   * serves.
   */
  async probe(api: string, reseller: LoadReseller, deadlineMs: number): Promise<KeyRecord> {
    const record = this.#newKey(reseller);
    await this.#placeUntilDone(record, () => [api], Date.now() + deadlineMs);
    return record;
  }

  /** Attempts by outcome (`201`, `503`, `error:...`), and the slowest answer. */
  summary(): { byOutcome: Record<string, number>; maxLatencyMs: number } {
    return { byOutcome: Object.fromEntries(this.#statuses), maxLatencyMs: this.#maxLatencyMs };
  }

  async #loop(reseller: LoadReseller): Promise<void> {
    let placed = 0;
    while (!this.#stopping) {
      const record = this.#newKey(reseller);
      await this.#placeUntilDone(record, this.#opts.apis, undefined);
      if (record.acknowledged && ++placed % this.#opts.repeatEvery === 0) {
        // The same request again, after its answer, on (most likely) another process.
        await this.#placeUntilDone(record, this.#opts.apis, undefined);
      }
      if (!this.#stopping) await sleep(this.#opts.intervalMs);
    }
  }

  #newKey(reseller: LoadReseller): KeyRecord {
    const record: KeyRecord = {
      key: randomUUID(),
      reseller,
      orderIds: [],
      attempts: [],
      acknowledged: false,
      gaveUp: undefined,
    };
    this.keys.push(record);
    return record;
  }

  /**
   * Sends the key's request until a 2xx or a 4xx; gives up at `deadline` (default: the drain deadline, once stopping).
   */
  async #placeUntilDone(record: KeyRecord, apis: () => string[], deadline: number | undefined): Promise<void> {
    const body = JSON.stringify(this.#opts.body());
    for (;;) {
      const limit = deadline ?? this.#drainDeadline;
      if (Date.now() > limit) {
        record.gaveUp = `not acknowledged before the deadline; attempts: ${record.attempts.join(', ')}`;
        return;
      }
      const candidates = apis();
      if (candidates.length === 0) {
        await sleep(RETRY_PAUSE_MS);
        continue;
      }
      const api = candidates[this.#next++ % candidates.length]!;
      const outcome = await this.#attempt(api, record, body);
      record.attempts.push(outcome.label);
      this.#statuses.set(outcome.label, (this.#statuses.get(outcome.label) ?? 0) + 1);
      if (outcome.orderId !== undefined) {
        record.orderIds.push(outcome.orderId);
        record.acknowledged = true;
        return;
      }
      // (A repeat's refusal or deadline is kept in gaveUp too; acknowledged stays as it was.)
      if (outcome.definite) {
        record.gaveUp = `refused: ${outcome.label} ${outcome.detail}`;
        return;
      }
      await sleep(RETRY_PAUSE_MS);
    }
  }

  async #attempt(
    api: string,
    record: KeyRecord,
    body: string,
  ): Promise<{ label: string; orderId?: string; definite: boolean; detail: string }> {
    const started = Date.now();
    this.#inFlight.set(api, (this.#inFlight.get(api) ?? 0) + 1);
    try {
      const res = await fetch(`${api}/api/reseller/v1/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${record.reseller.key}`,
          'user-agent': UA,
          'content-type': 'application/json',
          'idempotency-key': record.key,
        },
        body,
        signal: AbortSignal.timeout(this.#opts.requestTimeoutMs),
      });
      const text = await res.text();
      this.#maxLatencyMs = Math.max(this.#maxLatencyMs, Date.now() - started);
      if (res.status >= 200 && res.status < 300) {
        const orderId = (JSON.parse(text) as { data?: { id?: string } }).data?.id;
        if (!orderId) return { label: `${res.status}-without-order-id`, definite: true, detail: text.slice(0, 300) };
        return { label: String(res.status), orderId, definite: false, detail: '' };
      }
      // 429 and 5xx (503 for an outage) say "try again"; any other 4xx refuses this request for good.
      const definite = res.status >= 400 && res.status < 500 && res.status !== 429;
      return { label: String(res.status), definite, detail: text.slice(0, 300) };
    } catch (err) {
      this.#maxLatencyMs = Math.max(this.#maxLatencyMs, Date.now() - started);
      const e = err as Error & { cause?: { code?: string } };
      return {
        label: `error:${e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.name)}`,
        definite: false,
        detail: e.message,
      };
    } finally {
      this.#inFlight.set(api, this.#inFlight.get(api)! - 1);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
