import { DEFAULT_RETRY_SCHEDULE_MS } from './webhook-retry-schedule.ts';

/** Tunables of webhook delivery. The defaults are the contract (spec §6, §8); tests shorten them. */
export interface WebhooksOptions {
  /** A receiver must answer 2xx within this (spec: 10 s). */
  timeoutMs: number;
  /** Waits before attempts 2, 3, …; one more attempt than entries, then `failed`. */
  retryScheduleMs: readonly number[];
  /** Each wait varies by up to ± this fraction. */
  jitterRatio: number;
  /**
   * How long a claimed attempt may run before another process may take the delivery over
   * (the claimer crashed). Longer than `timeoutMs`, so a slow live attempt is not duplicated.
   */
  leaseMs: number;
  /**
   * While the queue has waiting jobs, the sweep re-enqueues only deliveries overdue by this much (lost jobs hide in a
   * backlog).
   */
  requeueStaleAfterMs: number;
  /** Deliveries sent at once per worker process (at most; `concurrency / batchSize` jobs run at once). */
  concurrency: number;
  /** New deliveries per queue job: one job claims, sends and records its batch together. */
  batchSize: number;
  /**
   * Sends in flight per receiver host and process. The outbound agent keeps at most 64 sockets
   * per host; more would queue inside it, on the clock of the receiver's timeout. The rest wait
   * in the deliverer, before their timestamp and signature are made, the host's endpoints
   * taking turns.
   */
  perHostConcurrency: number;
  /**
   * Sends in flight per endpoint and process: a slow endpoint holds at most this many places.
   * An endpoint not yet known to answer fast holds at most half of its host's places.
   */
  perEndpointConcurrency: number;
  /**
   * A send running this long makes its endpoint slow: claims take only its free places, a job
   * stops waiting for the send (it is recorded when it ends), and an attempt that waited this
   * long for a turn goes back to the schedule unsent.
   */
  slowAfterMs: number;
  /** Consecutive failed sends to an endpoint that open its circuit: its sends are held, then one probe goes. */
  breakerFailures: number;
  /** The first hold of an opened circuit; each failed probe doubles it, up to `breakerMaxHoldMs`. */
  breakerHoldMs: number;
  breakerMaxHoldMs: number;
  /** An endpoint whose every attempt failed for this long is disabled (5 days). */
  disableAfterMs: number;
  /** Endpoints per reseller and mode. */
  maxEndpoints: number;
  /** Finished deliveries (and their attempts) are kept this long. */
  retentionMs: number;
  userAgent: string;
}

const DAY = 24 * 3600 * 1000;

/** Fills in the defaults; `leaseMs` follows `timeoutMs` unless given. */
export function resolveWebhooksOptions(partial: Partial<WebhooksOptions> = {}): WebhooksOptions {
  const timeoutMs = partial.timeoutMs ?? 10_000;
  return {
    timeoutMs,
    retryScheduleMs: partial.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS,
    jitterRatio: partial.jitterRatio ?? 0.1,
    leaseMs: partial.leaseMs ?? timeoutMs + 30_000,
    requeueStaleAfterMs: partial.requeueStaleAfterMs ?? 10 * 60_000,
    concurrency: partial.concurrency ?? 400,
    batchSize: partial.batchSize ?? 50,
    perHostConcurrency: partial.perHostConcurrency ?? 64,
    perEndpointConcurrency: partial.perEndpointConcurrency ?? 8,
    slowAfterMs: partial.slowAfterMs ?? 1000,
    breakerFailures: partial.breakerFailures ?? 5,
    breakerHoldMs: partial.breakerHoldMs ?? 5000,
    breakerMaxHoldMs: partial.breakerMaxHoldMs ?? 5 * 60_000,
    disableAfterMs: partial.disableAfterMs ?? 5 * DAY,
    maxEndpoints: partial.maxEndpoints ?? 20,
    retentionMs: partial.retentionMs ?? 30 * DAY,
    userAgent: partial.userAgent ?? 'print-api-webhooks/1.0',
  };
}
