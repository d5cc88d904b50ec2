/** The scheduler's tunables (from WebhooksOptions). */
export interface SendSchedulerOptions {
  /** Sends in flight per endpoint. */
  perEndpoint: number;
  /** Sends in flight per receiver host (host:port). */
  perHost: number;
  /** A send running this long makes its endpoint slow; a turn not given within this long is given back. */
  slowAfterMs: number;
  /** The receivers' timeout: the longest a send holds its place. */
  timeoutMs: number;
  /** Consecutive failed sends that open an endpoint's circuit. */
  breakerFailures: number;
  /**
   * How long an opened circuit holds the endpoint's sends; doubles after each failed probe, up to `breakerMaxHoldMs`.
   */
  breakerHoldMs: number;
  breakerMaxHoldMs: number;
  /** Told each time an endpoint's circuit opens (for the log). */
  onHold?: (endpointId: string, hold: { holdMs: number; failures: number }) => void;
}

/** What a finished send tells the scheduler. */
export interface SendReport {
  succeeded: boolean;
  latencyMs: number;
  /** Not the receiver's doing (a secret that no longer opens): neither opens nor closes the circuit. */
  internal?: boolean;
}

/** A place to send in. Release it when the send has ended, with what happened (nothing: it was not sent). */
export interface SendTurn {
  release(report?: SendReport): void;
}

/** How many of an endpoint's due deliveries a claim may take now, and until when the rest wait. */
export interface ClaimCap {
  cap: number;
  until: Date;
}

interface Waiter {
  endpointId: string;
  manual: boolean;
  resolve: (turn: SendTurn | null) => void;
  timer: NodeJS.Timeout | undefined;
}

interface EndpointState {
  active: number;
  /** Start times of the sends in flight (at most a few). */
  starts: number[];
  waiting: number;
  /** Consecutive failed sends. */
  failures: number;
  /** While set the circuit is open; once passed it is half open (one probe at a time). */
  openUntil: number | null;
  holdMs: number;
  /** Moving average of send latencies (null: none yet). */
  latencyMs: number | null;
  /** The last send succeeded quickly: the endpoint may use the host's every place. */
  fast: boolean;
  seenAt: number;
}

interface HostState {
  active: number;
  /** Waiters per endpoint; the map's order is the round-robin turn (a served endpoint goes to the back). */
  queues: Map<string, Waiter[]>;
}

/** The shortest wait before deliveries held back from a busy endpoint are looked at again. */
const MIN_DEFER_MS = 250;
/** Weight of the newest latency in the moving average. */
const LATENCY_WEIGHT = 0.3;
/** An endpoint forgotten after this long without sends (its circuit closed). */
const FORGET_AFTER_MS = 10 * 60_000;

/**
 * Decides, in one process, when each webhook send may start, so that a slow or failing endpoint
 * is limited on its own and never at the expense of other endpoints (spec: fair delivery).
 *
 * - An endpoint has at most `perEndpoint` sends in flight; one not known to be fast (new, slow,
 *   failing) at most half of its host's places, so another endpoint on the same host (another
 *   reseller on a shared platform) always finds one free.
 * - A host has at most `perHost` sends in flight (protects the receiver from us). When a place
 *   frees, the endpoints waiting for the host take turns (round robin), not first come first served.
 * - A turn not given within `slowAfterMs` is given back (null): the caller returns the delivery
 *   unsent to the schedule instead of holding its claim (and its job) while a slow endpoint is busy.
 * - After `breakerFailures` consecutive failures the endpoint's circuit opens: its sends are held
 *   for a while (waiters given back at once, claims take none), then one probe goes; a failed
 *   probe doubles the hold, any success closes the circuit. Manual sends (redelivery, ping) go
 *   through an open circuit, and their success closes it.
 *
 * `claimCaps` tells the database claim how many deliveries of each busy endpoint to take, so a
 * batch never takes what would only wait.
 */
export class SendScheduler {
  readonly #o: SendSchedulerOptions;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #endpoints = new Map<string, EndpointState>();
  readonly #hosts = new Map<string, HostState>();
  #active = 0;
  #waiting = 0;
  readonly #belowWatchers: Array<{ limit: number; resolve: () => void }> = [];
  #prunedAt = 0;

  constructor(options: SendSchedulerOptions, clock: { now?: () => number; random?: () => number } = {}) {
    this.#o = { ...options, perEndpoint: Math.max(1, options.perEndpoint), perHost: Math.max(1, options.perHost) };
    this.#now = clock.now ?? Date.now;
    this.#random = clock.random ?? Math.random;
  }

  /** Sends in flight and turns waited for, in this process. */
  get load(): { sending: number; waiting: number } {
    return { sending: this.#active, waiting: this.#waiting };
  }

  /**
   * Resolves once fewer than `limit` sends are in flight (backpressure before claiming more).
   * Turns waited for do not count: what may wait is bounded by the claim caps and by
   * `slowAfterMs`, and one endpoint's waiting backlog must not hold back other endpoints' claims.
   */
  whenBelow(limit: number): Promise<void> {
    if (this.#active < limit) return Promise.resolve();
    return new Promise((resolve) => this.#belowWatchers.push({ limit, resolve }));
  }

  /**
   * A turn to send to `endpointId` at `host`, or null: given back (the circuit is open, or no
   * place came within `slowAfterMs`); `retryAt` then says when to try again. A manual turn
   * ignores the circuit and the endpoint's limit (not the host's) and is never given back.
   * `onWait` is called if the turn is not given at once.
   */
  acquire(
    endpointId: string,
    host: string,
    options: { manual?: boolean; onWait?: () => void } = {},
  ): Promise<SendTurn | null> {
    const manual = options.manual === true;
    const e = this.#endpoint(endpointId);
    if (!manual && this.#isOpen(e)) return Promise.resolve(null);
    const h = this.#host(host);
    if (this.#canStart(e, h, manual)) return Promise.resolve(this.#start(endpointId, e, host, h));
    return new Promise((resolve) => {
      const waiter: Waiter = { endpointId, manual, resolve, timer: undefined };
      if (!manual) {
        waiter.timer = setTimeout(() => this.#giveBack(host, waiter), this.#o.slowAfterMs);
        waiter.timer.unref();
      }
      const line = h.queues.get(endpointId) ?? [];
      line.push(waiter);
      h.queues.set(endpointId, line);
      e.waiting++;
      this.#waiting++;
      options.onWait?.();
    });
  }

  /** Whether the endpoint's last send succeeded within `slowAfterMs` (and its circuit is closed). */
  isFast(endpointId: string): boolean {
    return this.#endpoints.get(endpointId)?.fast === true;
  }

  /** When deliveries of the endpoint held back now should be looked at again. */
  retryAt(endpointId: string): Date {
    const e = this.#endpoints.get(endpointId);
    const now = this.#now();
    if (e && e.openUntil !== null && e.openUntil > now) return this.#afterHold(e);
    return new Date(now + this.#deferMs(e, now));
  }

  /**
   * The endpoints a claim must not take freely: how many of each it may take (0 while the
   * circuit holds, the free places of a slow one, one probe when half open) and until when the
   * rest are put off. Endpoints not listed have no limit (fast, or not seen yet).
   */
  claimCaps(): Map<string, ClaimCap> {
    const now = this.#now();
    this.#prune(now);
    const caps = new Map<string, ClaimCap>();
    for (const [id, e] of this.#endpoints) {
      // Idle and fast: no cap (most endpoints, most of the time).
      if (e.fast && e.active === 0 && e.waiting === 0 && e.openUntil === null) continue;
      if (e.openUntil !== null && e.openUntil > now) {
        caps.set(id, { cap: 0, until: this.#afterHold(e) });
        continue;
      }
      const estimate = this.#estimateMs(e, now);
      if (estimate === 0) continue;
      // Its free places, or as many as start within about `slowAfterMs` at its known pace if more; less what already
      // waits.
      const limit = this.#limit(e, now);
      const pace =
        e.openUntil !== null || e.latencyMs === null
          ? limit
          : Math.max(limit, Math.floor((limit * this.#o.slowAfterMs) / estimate));
      caps.set(id, { cap: Math.max(0, pace - e.active - e.waiting), until: new Date(now + this.#deferMs(e, now)) });
    }
    return caps;
  }

  /** True while the endpoint's circuit holds its sends (for tests and logs). */
  isHeld(endpointId: string): boolean {
    const e = this.#endpoints.get(endpointId);
    return e !== undefined && this.#isOpen(e);
  }

  #endpoint(id: string): EndpointState {
    let e = this.#endpoints.get(id);
    if (!e) {
      e = {
        active: 0,
        starts: [],
        waiting: 0,
        failures: 0,
        openUntil: null,
        holdMs: 0,
        latencyMs: null,
        fast: false,
        seenAt: this.#now(),
      };
      this.#endpoints.set(id, e);
    }
    return e;
  }

  #host(key: string): HostState {
    let h = this.#hosts.get(key);
    if (!h) {
      h = { active: 0, queues: new Map() };
      this.#hosts.set(key, h);
    }
    return h;
  }

  #isOpen(e: EndpointState): boolean {
    return e.openUntil !== null && e.openUntil > this.#now();
  }

  /** Places the endpoint may hold: one probe when half open; the host's every place only once known fast. */
  #limit(e: EndpointState, now: number): number {
    if (e.openUntil !== null && e.openUntil <= now) return 1;
    const { perHost } = this.#o;
    return Math.min(this.#o.perEndpoint, e.fast ? perHost : Math.max(1, Math.floor(perHost / 2)));
  }

  /** The end of an open circuit's hold, spread over a fifth of it: what it held does not come back all at once. */
  #afterHold(e: EndpointState): Date {
    return new Date((e.openUntil ?? this.#now()) + Math.round(this.#random() * e.holdMs * 0.2));
  }

  #canStart(e: EndpointState, h: HostState, manual: boolean): boolean {
    if (h.active >= this.#o.perHost) return false;
    if (manual) return true;
    const now = this.#now();
    if (e.openUntil !== null && e.openUntil > now) return false;
    return e.active < this.#limit(e, now);
  }

  /** How long the endpoint's sends take now: the moving average, or longer while one runs longer (0: nothing known). */
  #estimateMs(e: EndpointState, now: number): number {
    const oldest = e.starts.length > 0 ? now - Math.min(...e.starts) : 0;
    return Math.max(e.latencyMs ?? 0, oldest);
  }

  /** A wait about as long as one of the endpoint's sends takes now, jittered, within [MIN_DEFER_MS, timeoutMs]. */
  #deferMs(e: EndpointState | undefined, now: number): number {
    const estimate = e ? this.#estimateMs(e, now) : 0;
    const base = Math.min(this.#o.timeoutMs, Math.max(MIN_DEFER_MS, estimate));
    return Math.round(base * (0.9 + 0.2 * this.#random()));
  }

  #start(endpointId: string, e: EndpointState, hostKey: string, h: HostState): SendTurn {
    const startedAt = this.#now();
    const probe = e.openUntil !== null && e.openUntil <= startedAt;
    e.active++;
    e.starts.push(startedAt);
    e.seenAt = startedAt;
    h.active++;
    this.#active++;
    let released = false;
    return {
      release: (report?: SendReport) => {
        if (released) return;
        released = true;
        e.active--;
        e.starts.splice(e.starts.indexOf(startedAt), 1);
        h.active--;
        this.#active--;
        if (report) this.#learn(endpointId, e, report, probe);
        this.#pump(hostKey, h);
        this.#notifyBelow();
      },
    };
  }

  #learn(endpointId: string, e: EndpointState, report: SendReport, probe: boolean): void {
    const now = this.#now();
    e.seenAt = now;
    e.latencyMs =
      e.latencyMs === null
        ? report.latencyMs
        : Math.round(e.latencyMs * (1 - LATENCY_WEIGHT) + report.latencyMs * LATENCY_WEIGHT);
    if (report.internal) return;
    if (report.succeeded) {
      e.failures = 0;
      e.openUntil = null;
      e.holdMs = 0;
      e.fast = report.latencyMs < this.#o.slowAfterMs;
      return;
    }
    e.failures++;
    e.fast = false;
    if (e.openUntil !== null) {
      // Open or half open: only the probe's failure holds it again, for twice as long.
      if (!probe) return;
      e.holdMs = Math.min(this.#o.breakerMaxHoldMs, e.holdMs * 2);
    } else if (e.failures >= this.#o.breakerFailures) {
      e.holdMs = this.#o.breakerHoldMs;
    } else return;
    e.openUntil = now + e.holdMs;
    this.#o.onHold?.(endpointId, { holdMs: e.holdMs, failures: e.failures });
    // What waits for this endpoint goes back to the schedule now rather than after `slowAfterMs`.
    for (const [hostKey, h] of this.#hosts) {
      const line = h.queues.get(endpointId);
      if (!line) continue;
      for (const w of line.filter((x) => !x.manual)) this.#giveBack(hostKey, w);
    }
  }

  /** Starts every waiter that can start now, the host's endpoints taking turns. */
  #pump(hostKey: string, h: HostState): void {
    let started = true;
    while (started && h.active < this.#o.perHost) {
      started = false;
      for (const [endpointId, line] of h.queues) {
        const e = this.#endpoint(endpointId);
        const next = this.#canStart(e, h, false) ? line[0] : line.find((w) => w.manual);
        if (!next) continue;
        line.splice(line.indexOf(next), 1);
        // To the back of the round: the other endpoints go first next time.
        h.queues.delete(endpointId);
        if (line.length > 0) h.queues.set(endpointId, line);
        this.#unwait(e, next);
        next.resolve(this.#start(endpointId, e, hostKey, h));
        started = true;
        break;
      }
    }
    if (h.active === 0 && h.queues.size === 0) this.#hosts.delete(hostKey);
  }

  #giveBack(hostKey: string, waiter: Waiter): void {
    const h = this.#hosts.get(hostKey);
    const line = h?.queues.get(waiter.endpointId);
    const i = line ? line.indexOf(waiter) : -1;
    if (!h || !line || i < 0) return;
    line.splice(i, 1);
    if (line.length === 0) h.queues.delete(waiter.endpointId);
    this.#unwait(this.#endpoint(waiter.endpointId), waiter);
    waiter.resolve(null);
    if (h.active === 0 && h.queues.size === 0) this.#hosts.delete(hostKey);
  }

  #unwait(e: EndpointState, waiter: Waiter): void {
    clearTimeout(waiter.timer);
    e.waiting--;
    this.#waiting--;
  }

  /** Wakes the claims waiting for fewer sends in flight, oldest first. */
  #notifyBelow(): void {
    const ready = this.#belowWatchers.filter((w) => this.#active < w.limit);
    if (ready.length === 0) return;
    this.#belowWatchers.splice(0, this.#belowWatchers.length, ...this.#belowWatchers.filter((w) => !ready.includes(w)));
    for (const w of ready) w.resolve();
  }

  /** Forgets endpoints without a send for long (a circuit that still holds is kept). */
  #prune(now: number): void {
    if (now - this.#prunedAt < 60_000) return;
    this.#prunedAt = now;
    for (const [id, e] of this.#endpoints) {
      const holding = e.openUntil !== null && e.openUntil > now - FORGET_AFTER_MS;
      if (e.active === 0 && e.waiting === 0 && !holding && now - e.seenAt > FORGET_AFTER_MS) this.#endpoints.delete(id);
    }
  }
}
