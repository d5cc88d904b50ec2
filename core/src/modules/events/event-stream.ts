import type { Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { Db } from '../tables.ts';
import { envelopeOf, type Outbox } from './outbox.ts';

/** Which events one stream carries, and from where. */
export interface StreamRequest {
  resellerId: string;
  mode: Mode;
  /** Resume after this event id (the last one received); without it the stream starts with the next new event. */
  after?: string | undefined;
  /** Only these event types (none: every type). */
  types?: readonly string[] | undefined;
}

export interface EventStreamsOptions {
  /**
   * How often the events table is read when no in-process commit wakes the stream (events written by another process).
   */
  pollMs: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /**
   * Events whose transaction committed late (ids are taken at write time, not commit time) are
   * still found when they commit within this window: every read looks this far back and skips
   * what it already sent.
   */
  lookbackMs: number;
}

const DEFAULTS: EventStreamsOptions = { pollMs: 1000, heartbeatMs: 15_000, lookbackMs: 10_000 };
const PAGE = 500;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The reseller's events as a Server-Sent Events stream (`text/event-stream`), read from the
 * outbox table: what `npm run admin -- listen` and the SDK's `client.events.listen()` forward to
 * a local URL. Each message is `id: <event id>`, `event: <type>`, `data: <the exact body a
 * webhook delivery sends>`; a first `ready` message tells the client the stream is live. A
 * client that reconnects with `Last-Event-ID` (or `?after=`) gets every event after that one:
 * delivery is at least once, in id order, deduplicated on `id` by the receiver like webhooks.
 *
 * The caller's process does the local delivery, so the service never connects to a
 * developer's machine: no inbound connection, no private-address exception.
 */
export class EventStreams {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #options: EventStreamsOptions;
  readonly #wakers = new Set<() => void>();
  readonly #closers = new Set<() => void>();

  constructor(deps: { db: Db; outbox: Outbox; logger: Logger; options?: Partial<EventStreamsOptions> }) {
    this.#db = deps.db;
    this.#logger = deps.logger.child({ module: 'event-stream' });
    this.#options = { ...DEFAULTS, ...deps.options };
    deps.outbox.onWritten(() => {
      for (const wake of this.#wakers) wake();
    });
  }

  /** Open streams (metrics, tests). */
  get open(): number {
    return this.#closers.size;
  }

  /** Ends every open stream (shutdown): clients reconnect with Last-Event-ID to another process. */
  close(): void {
    for (const end of this.#closers) end();
  }

  /** Streams events to `res` until the client goes away or the service closes. */
  async serve(request: StreamRequest, res: Response): Promise<void> {
    let closed = false;
    // A commit told while the stream reads is remembered, so the next wait does not sleep through it.
    let pending = false;
    let wake: () => void = () => {};
    const end = () => {
      closed = true;
      wake();
    };
    const onWritten = () => {
      pending = true;
      wake();
    };
    res.on('close', end);
    this.#closers.add(end);
    this.#wakers.add(onWritten);
    const heartbeat = setInterval(() => void res.write(': keep-alive\n\n'), this.#options.heartbeatMs);
    heartbeat.unref();
    try {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      const sent = new Set<string>();
      // Never read below this: the client's last event, or (a new stream) a moment ago.
      const floor = request.after ?? timeId(Date.now() - this.#options.lookbackMs);
      let high = request.after ?? '';
      if (!request.after) {
        // A new stream starts with the next new event: what is there already counts as sent,
        // and an event committed later with an older id (a slow transaction) still goes out.
        for (let from = floor; ; ) {
          const rows = await this.#read(request, from);
          for (const row of rows) sent.add(row.id);
          if (rows.length > 0) high = from = rows[rows.length - 1]!.id;
          if (rows.length < PAGE) break;
        }
      }
      res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ mode: request.mode, after: high || null })}\n\n`);
      while (!closed) {
        pending = false;
        const lookback = timeId(Date.now() - this.#options.lookbackMs);
        // Replaying history: from the last id sent; caught up: from a moment ago (late commits), skipping what was
        // sent.
        const lower = maxId(floor, minId(high, lookback));
        for (const id of sent) if (id <= lower) sent.delete(id);
        // Page by page from `lower`: a full page of events sent already must not hold the reading in place.
        for (let from = lower, full = true; full && !closed; ) {
          const rows = await this.#read(request, from);
          full = rows.length === PAGE;
          if (rows.length > 0) from = rows[rows.length - 1]!.id;
          for (const row of rows) {
            if (closed) break;
            if (sent.has(row.id)) continue;
            sent.add(row.id);
            if (row.id > high) high = row.id;
            const body = JSON.stringify(envelopeOf(row.payload));
            if (!res.write(`id: ${row.id}\nevent: ${row.type}\ndata: ${body}\n\n`)) await drained(res);
          }
        }
        if (closed || pending) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } catch (err) {
      this.#logger.warn('event stream ended by an error', {
        error: (err as Error).message,
        resellerId: request.resellerId,
      });
    } finally {
      clearInterval(heartbeat);
      this.#closers.delete(end);
      this.#wakers.delete(onWritten);
      res.off('close', end);
      res.end();
    }
  }

  #read(request: StreamRequest, after: string) {
    let query = this.#db
      .selectFrom('events')
      .select(['id', 'type', 'payload'])
      .where('reseller_id', '=', request.resellerId)
      .where('mode', '=', request.mode)
      .where('id', '>', after);
    if (request.types?.length) query = query.where('type', 'in', [...request.types]);
    return query.orderBy('id').limit(PAGE).execute();
  }
}

/** The smallest event id of a moment (ids are `evt_` + 10 characters of milliseconds + randomness). */
function timeId(ms: number): string {
  let time = '';
  let t = Math.max(0, ms);
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return `evt_${time}`;
}

function minId(a: string, b: string): string {
  return a < b ? a : b;
}

function maxId(a: string, b: string): string {
  return a > b ? a : b;
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
