import { expect } from 'chai';
import fc from 'fast-check';
import { ConnectorError, TimeWindowCursor, type PollPosition } from '../src/index.ts';

const HOUR = 3600_000;
const now = new Date('2026-01-01T10:00:00.000Z');
const t = (iso: string) => new Date(`2026-01-01T${iso}Z`);

/**
 * A platform's "changed since" list: rows sorted by update time, ties by id, read with `since` + `offset` + `limit`.
 */
interface Row {
  id: number;
  t: number;
}
function offsetPage(rows: Row[], at: PollPosition, limit: number): Row[] {
  return rows
    .filter((r) => r.t >= at.since.getTime())
    .sort((a, b) => a.t - b.t || a.id - b.id)
    .slice(at.offset, at.offset + limit);
}

describe('connector kit: time-window polling cursor', () => {
  it('starts a store’s first poll lookBackMs back, and an unreadable cursor the same way', () => {
    const cursor = new TimeWindowCursor({ lookBackMs: HOUR });
    const start = { since: t('09:00:00'), offset: 0, pageToken: null, firstPage: true, newest: null };
    expect(cursor.read(null, now)).to.deep.equal(start);
    for (const junk of [
      'not json',
      '{"after":"2026-01-01T08:00:00","page":2}',
      '{"v":1,"since":"yesterday","offset":0,"pageToken":null,"firstPage":true,"newest":null}',
      '{"v":1,"since":"2026-01-01T08:00:00.000Z","offset":-1,"pageToken":null,"firstPage":true,"newest":null}',
    ]) {
      expect(cursor.read(junk, now), junk).to.deep.equal(start);
    }
  });

  it('round-trips a position through its opaque string, and can start at a given time', () => {
    const cursor = new TimeWindowCursor({ lookBackMs: HOUR });
    const next = cursor.next(cursor.read(null, now), {
      updatedAt: ['2026-01-01T09:10:00Z', t('09:20:00'), t('09:20:00').getTime()],
      more: true,
    });
    expect(typeof next).to.equal('string');
    expect(cursor.read(next, now)).to.deep.equal({
      since: t('09:20:00'),
      offset: 0,
      pageToken: null,
      firstPage: false,
      newest: t('09:20:00'),
    });
    expect(cursor.read(cursor.startingAt(t('08:30:00')), now)).to.deep.equal({
      since: t('08:30:00'),
      offset: 0,
      pageToken: null,
      firstPage: true,
      newest: null,
    });
  });

  describe('offset paging', () => {
    const cursor = new TimeWindowCursor({ lookBackMs: HOUR });

    it('starts each page at the newest time read, reading a tie group again unless it fills the page', () => {
      let at = cursor.read(null, now);
      at = cursor.read(cursor.next(at, { updatedAt: [t('09:01:00'), t('09:02:00'), t('09:02:00')], more: true }), now);
      expect(at).to.deep.include({ since: t('09:02:00'), offset: 0, firstPage: false });
      // The whole page is one time: step over it by offset (else the same page forever).
      at = cursor.read(cursor.next(at, { updatedAt: [t('09:02:00'), t('09:02:00'), t('09:02:00')], more: true }), now);
      expect(at).to.deep.include({ since: t('09:02:00'), offset: 3 });
      at = cursor.read(cursor.next(at, { updatedAt: [t('09:02:00'), t('09:02:00'), t('09:02:00')], more: true }), now);
      expect(at).to.deep.include({ since: t('09:02:00'), offset: 6 });
    });

    it('ends a run asking for newer changes only, and comes back unchanged when there are none', () => {
      const start = cursor.read(null, now);
      const end = cursor.next(start, { updatedAt: [t('09:05:00'), t('09:07:00'), t('09:07:00')], more: false });
      expect(cursor.read(end, now)).to.deep.equal({
        since: t('09:07:00.001'),
        offset: 0,
        pageToken: null,
        firstPage: true,
        newest: t('09:07:00'),
      });
      expect(cursor.next(cursor.read(end, now), { updatedAt: [], more: false })).to.equal(end);
      // A tie group walked by offset and then exhausted moves on too.
      const inGroup = cursor.read(
        cursor.next(cursor.read(end, now), { updatedAt: [t('09:08:00'), t('09:08:00')], more: true }),
        now,
      );
      expect(inGroup).to.deep.include({ since: t('09:08:00'), offset: 2 });
      expect(cursor.read(cursor.next(inGroup, { updatedAt: [], more: false }), now)).to.deep.include({
        since: t('09:08:00.001'),
        offset: 0,
        firstPage: true,
      });
    });

    it('with an overlap, starts the next run that long before the newest change, and then stays put', () => {
      const overlapping = new TimeWindowCursor({ lookBackMs: HOUR, overlapMs: 5 * 60_000 });
      const end = overlapping.next(overlapping.read(null, now), {
        updatedAt: [t('09:30:00'), t('09:40:00')],
        more: false,
      });
      expect(overlapping.read(end, now)).to.deep.equal({
        since: t('09:35:00'),
        offset: 0,
        pageToken: null,
        firstPage: true,
        newest: t('09:40:00'),
      });
      // The overlap read again (the same rows, or one that became visible late): the same cursor.
      expect(
        overlapping.next(overlapping.read(end, now), { updatedAt: [t('09:38:00'), t('09:40:00')], more: false }),
      ).to.equal(end);
    });

    it('never skips a row while orders change, are added or drop out between pages (fast-check)', () => {
      const change = fc.oneof(
        fc.record({ kind: fc.constant('update' as const), pick: fc.nat() }),
        fc.record({ kind: fc.constant('insert' as const) }),
        fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      );
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 40 }),
          fc.array(change, { maxLength: 60 }),
          fc.integer({ min: 2, max: 7 }),
          (initial, changes, limit) => {
            // Ties larger than a page are walked by offset, which a change inside the group can shift: out of scope.
            const groups = new Map<number, number>();
            for (const v of initial) groups.set(v, (groups.get(v) ?? 0) + 1);
            fc.pre([...groups.values()].every((n) => n < limit));
            const base = now.getTime() - 30 * 60_000;
            let clock = base + 1000 * 1000;
            let nextId = 1;
            let rows: Row[] = initial.map((v) => ({ id: nextId++, t: base + v * 1000 }));
            const seen = new Set<string>();
            const cursor = new TimeWindowCursor({ lookBackMs: HOUR });
            let raw: string | null = null;
            let pending = [...changes];
            for (let calls = 0; ; calls++) {
              if (calls > 500) throw new Error('polling did not settle');
              const at = cursor.read(raw, now);
              const page = offsetPage(rows, at, limit);
              for (const r of page) seen.add(`${r.id}@${r.t}`);
              const next = cursor.next(at, { updatedAt: page.map((r) => r.t), more: page.length === limit });
              // Core stops a poll on an empty page or an unchanged cursor; polls go on while the store changes.
              if (pending.length === 0 && (page.length === 0 || next === raw)) break;
              // Between two calls the store changes (a burst each time), until the changes run out.
              for (const c of pending.splice(0, 2)) {
                if (c.kind === 'insert') rows.push({ id: nextId++, t: (clock += 1000) });
                else if (rows.length > 0) {
                  const i = c.pick % rows.length;
                  if (c.kind === 'update') rows[i] = { id: rows[i]!.id, t: (clock += 1000) };
                  else rows = rows.filter((_, j) => j !== i);
                }
              }
              raw = next;
            }
            for (const r of rows) expect(seen.has(`${r.id}@${r.t}`), `row ${r.id} as of ${r.t}`).to.equal(true);
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  describe('token paging', () => {
    const cursor = new TimeWindowCursor({ lookBackMs: HOUR });

    it('keeps the run’s bound while following the platform’s page tokens, then moves it past the newest change', () => {
      const start = cursor.read(null, now);
      const second = cursor.read(
        cursor.next(start, { updatedAt: [t('09:10:00'), t('09:15:00')], nextPageToken: 'c1' }),
        now,
      );
      expect(second).to.deep.equal({
        since: t('09:00:00'),
        offset: 0,
        pageToken: 'c1',
        firstPage: false,
        newest: t('09:15:00'),
      });
      const end = cursor.next(second, { updatedAt: [t('09:12:00')], nextPageToken: null });
      expect(cursor.read(end, now)).to.deep.equal({
        since: t('09:15:00.001'),
        offset: 0,
        pageToken: null,
        firstPage: true,
        newest: t('09:15:00'),
      });
      expect(cursor.next(cursor.read(end, now), { updatedAt: [], nextPageToken: null })).to.equal(end);
    });

    it('ends the run on an empty page even when the platform still hands out a token', () => {
      const end = cursor.next(cursor.read(null, now), { updatedAt: [], nextPageToken: 'c9' });
      expect(cursor.read(end, now)).to.deep.include({ since: t('09:00:00'), pageToken: null, firstPage: true });
    });

    it('applies the overlap at the end of a run', () => {
      const overlapping = new TimeWindowCursor({ lookBackMs: HOUR, overlapMs: 2 * 60_000 });
      const end = overlapping.next(overlapping.read(null, now), {
        updatedAt: [t('09:30:00')],
        nextPageToken: undefined,
      });
      expect(overlapping.read(end, now).since).to.deep.equal(t('09:28:00'));
    });
  });

  it('fails an update time that is not a time as invalid_payload', () => {
    const cursor = new TimeWindowCursor({ lookBackMs: HOUR });
    expect(() => cursor.next(cursor.read(null, now), { updatedAt: ['yesterday'], more: false })).to.throw(
      ConnectorError,
      /not a time: yesterday/,
    );
  });
});
