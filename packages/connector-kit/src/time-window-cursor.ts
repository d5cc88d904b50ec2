import { ConnectorError } from './connector-error.ts';

/** An update time as platforms give it: a Date, an ISO-8601 string, or milliseconds since the epoch. */
export type TimeLike = Date | string | number;

export interface TimeWindowOptions {
  /** How far back the first poll of a store looks (orders older than the connection are not ours). */
  lookBackMs: number;
  /**
   * How far before the newest change seen a new run starts again: changes that become visible
   * late (search indexes, replicas, a transaction that committed after its timestamp) are
   * caught by the next run. 0 = continue right after the newest change read. Each run then
   * reads the overlap again: core must stop a poll when the cursor comes back unchanged.
   */
  overlapMs?: number;
}

/** Where a poll stands: what to ask the platform for now. */
export interface PollPosition {
  /**
   * Lower bound of update times to ask for, inclusive (`updated >= since`), to the millisecond.
   * A platform whose filter counts whole seconds gets `since` rounded up; one whose filter is
   * exclusive (`modified_after`) gets one unit less than that.
   */
  readonly since: Date;
  /** Offset paging: how many rows at the start of the answer were read already (rows updated exactly at `since`). */
  readonly offset: number;
  /** Token paging: the platform's token of the next page in this run; null on a run's first page. */
  readonly pageToken: string | null;
  /** True on the first page of a run (a moment for once-per-run chores, e.g. re-enabling webhooks). */
  readonly firstPage: boolean;
  /** The newest update time seen so far; null before anything was seen. */
  readonly newest: Date | null;
}

/**
 * What one page held: the update times of its rows (the platform sorts them oldest first), and
 * whether another page follows: `more` for offset paging, the platform's `nextPageToken` for
 * token paging (Shopify `endCursor`, Wix `cursors.next`, TikTok `next_page_token`).
 */
export type PageSeen =
  | { updatedAt: readonly TimeLike[]; more: boolean }
  | { updatedAt: readonly TimeLike[]; nextPageToken: string | null | undefined };

interface Stored {
  v: 1;
  since: string;
  offset: number;
  pageToken: string | null;
  firstPage: boolean;
  newest: string | null;
}

/**
 * The polling cursor of "orders changed since T" APIs, kept by core as an opaque string
 * (`listOrders` gets it back on the next call). A store's first poll looks `lookBackMs` back.
 *
 * Two ways of paging, both ascending by update time:
 * - **offset paging** (Etsy `min_last_modified` + `offset`, WooCommerce `modified_after` +
 *   `offset`): each page starts again at the newest update time of the page before, instead of
 *   walking fixed offsets. An order changed while a run pages moves to the end of the sort and
 *   shifts every row after it one place forward: with fixed offsets the row at a page
 *   boundary would be skipped; re-anchored pages cannot skip it. Rows updated at the same time
 *   must come in a stable order (platforms break ties by id); only a group of them larger than
 *   a page is walked by offset.
 * - **token paging**: the run keeps its lower bound and follows the platform's page tokens
 *   (the platform keeps the position stable).
 *
 * After a run's last page the next run asks for changes newer than the newest one seen, or
 * (with `overlapMs`) starts that long before it. Rows read twice (a changed order, the
 * overlap) come back twice: the pipeline stores an order once (idempotency), so duplicates are
 * harmless and skips are not. A cursor is text that is the same for the same position: a page
 * that moves nothing (no newer change, no further page) gives back the cursor it was read
 * from, which tells core this poll is done.
 *
 * @example
 * const receipts = new TimeWindowCursor({ lookBackMs: 60 * 60_000, overlapMs: 5 * 60_000 });
 * async listOrders(ctx, store, cursor) {
 *   const at = receipts.read(cursor, ctx.clock());
 *   // Etsy counts whole seconds: round `since` up.
 * const page = await etsy.receipts(store, { minLastModified: Math.ceil(at.since.getTime() / 1000), offset: at.offset,
 * limit: 100 });
 *   return {
 *     orders: page.results.map(mapReceipt),
 * nextCursor: receipts.next(at, { updatedAt: page.results.map((r) => r.updated_timestamp * 1000), more:
 * page.results.length === 100 }),
 *   };
 * }
 */
export class TimeWindowCursor {
  readonly #lookBackMs: number;
  readonly #overlapMs: number;

  constructor(options: TimeWindowOptions) {
    if (!(options.lookBackMs >= 0) || !((options.overlapMs ?? 0) >= 0))
      throw new RangeError('lookBackMs and overlapMs must be >= 0');
    this.#lookBackMs = options.lookBackMs;
    this.#overlapMs = options.overlapMs ?? 0;
  }

  /** Where to poll now: the stored cursor, or (none yet, or unreadable) the look-back from `now`. */
  read(cursor: string | null, now: Date): PollPosition {
    const stored = cursor ? decode(cursor) : null;
    if (stored) return stored;
    return {
      since: new Date(now.getTime() - this.#lookBackMs),
      offset: 0,
      pageToken: null,
      firstPage: true,
      newest: null,
    };
  }

  /** The cursor after a page read at `at`: the next page of this run, or the start of the next run. */
  next(at: PollPosition, page: PageSeen): string {
    const times = page.updatedAt.map(toMillis);
    let last: number | null = null;
    for (const t of times) if (last === null || t > last) last = t;
    const newestMs = last === null ? (at.newest?.getTime() ?? null) : Math.max(last, at.newest?.getTime() ?? last);
    const newest = newestMs === null ? null : new Date(newestMs);

    if ('nextPageToken' in page) {
      if (page.nextPageToken && times.length > 0)
        return encode({ since: at.since, offset: 0, pageToken: page.nextPageToken, firstPage: false, newest });
      // The run read everything up to `newest`: the next one asks for newer changes (or overlaps).
      const since =
        newestMs === null ? at.since : new Date(this.#overlapMs > 0 ? newestMs - this.#overlapMs : newestMs + 1);
      return encode({ since, offset: 0, pageToken: null, firstPage: true, newest });
    }

    // Offset paging: the next page starts at the newest update time read, not at a fixed offset.
    if (page.more && times.length > 0) {
      let anchor = { since: at.since, offset: at.offset + times.length };
      if (last! > at.since.getTime()) {
        // The rows at `last` are read again (a tie that changed meanwhile would shift the rest of
        // its group past an offset), unless they fill the page (no progress otherwise).
        const ties = times.filter((t) => t === last).length;
        anchor = { since: new Date(last!), offset: ties < times.length ? 0 : ties };
      }
      return encode({ ...anchor, pageToken: null, firstPage: false, newest });
    }
    if (this.#overlapMs > 0 && newestMs !== null)
      return encode({
        since: new Date(newestMs - this.#overlapMs),
        offset: 0,
        pageToken: null,
        firstPage: true,
        newest,
      });
    // The run's last page held every row from here on: the next run asks for newer ones only.
    // (An offset would be shifted by an order that drops out of the list meanwhile.)
    if (last !== null)
      return encode({
        since: new Date(Math.max(last, at.since.getTime()) + 1),
        offset: 0,
        pageToken: null,
        firstPage: true,
        newest,
      });
    if (at.offset > 0)
      return encode({ since: new Date(at.since.getTime() + 1), offset: 0, pageToken: null, firstPage: true, newest });
    return encode({ ...at, firstPage: true, newest });
  }

  /** A cursor whose next run starts at `since` (e.g. carrying over a connector's older cursor format). */
  startingAt(since: Date): string {
    return encode({ since, offset: 0, pageToken: null, firstPage: true, newest: null });
  }
}

function toMillis(t: TimeLike): number {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms))
    throw new ConnectorError(
      'invalid_payload',
      `an update time the platform sent is not a time: ${String(t).slice(0, 40)}`,
    );
  return ms;
}

/** Always the same text for the same position: core compares cursors to know a poll is done. */
function encode(p: PollPosition): string {
  const stored: Stored = {
    v: 1,
    since: p.since.toISOString(),
    offset: p.offset,
    pageToken: p.pageToken,
    firstPage: p.firstPage,
    newest: p.newest?.toISOString() ?? null,
  };
  return JSON.stringify(stored);
}

function decode(cursor: string): PollPosition | null {
  let s: Partial<Stored>;
  try {
    s = JSON.parse(cursor) as Partial<Stored>;
  } catch {
    return null;
  }
  if (typeof s !== 'object' || s === null || s.v !== 1) return null;
  const since = typeof s.since === 'string' ? new Date(s.since) : null;
  const newest = s.newest === null ? null : typeof s.newest === 'string' ? new Date(s.newest) : undefined;
  if (!since || Number.isNaN(since.getTime()) || newest === undefined || (newest && Number.isNaN(newest.getTime())))
    return null;
  if (
    !Number.isInteger(s.offset) ||
    s.offset! < 0 ||
    typeof s.firstPage !== 'boolean' ||
    !(s.pageToken === null || typeof s.pageToken === 'string')
  )
    return null;
  return { since, offset: s.offset!, pageToken: s.pageToken, firstPage: s.firstPage, newest };
}
