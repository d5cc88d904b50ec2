import { expect } from 'chai';
import { readServerSentEvents, type ServerSentEvent } from '../../../packages/sdk/src/server-sent-events.ts';
import { describeEachBackend, USER_AGENT } from '../helpers/test-service.ts';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** An event id of another process's clock: `at` milliseconds, then randomness. */
function eventIdAt(at: number, suffix: string): string {
  let time = '';
  for (let i = 0, t = at; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time;
  return `evt_${time}${suffix.padEnd(16, '0')}`;
}

describeEachBackend('the event stream (GET /events/stream)', (get) => {
  async function open(key: string, query = '') {
    const abort = new AbortController();
    const res = await fetch(`${get().baseUrl}/api/reseller/v1/events/stream${query}`, {
      headers: { authorization: `Bearer ${key}`, 'user-agent': USER_AGENT },
      signal: abort.signal,
    });
    expect(res.status).to.equal(200);
    const messages = readServerSentEvents(res.body!);
    const next = async (): Promise<ServerSentEvent> => (await messages.next()).value!;
    return { next, close: () => abort.abort() };
  }

  async function insertEvent(resellerId: string, id: string, type: string, createdAt: Date) {
    const envelope = {
      id,
      type,
      createdAt: createdAt.toISOString(),
      testMode: true,
      data: { order: { id: `ord_${id.slice(4)}` } },
    };
    await get()
      .service.db.insertInto('events')
      .values({
        id,
        reseller_id: resellerId,
        mode: 'test',
        type,
        order_id: null,
        payload: JSON.stringify(envelope),
        created_at: createdAt,
      })
      .execute();
    get().service.services.outbox.notify();
  }

  it('starts with the next new event, and still delivers one whose transaction committed after a later one was sent (its id is older)', async () => {
    const r = await get().reseller({ mode: 'test' });
    await insertEvent(r.id, eventIdAt(Date.now() - 1000, 'H'), 'order.created', new Date(Date.now() - 1000));
    const stream = await open(r.key);
    try {
      expect((await stream.next()).event).to.equal('ready');
      const now = Date.now();
      await insertEvent(r.id, eventIdAt(now, 'B'), 'order.created', new Date(now));
      expect((await stream.next()).id).to.equal(eventIdAt(now, 'B'));
      // Written 3 s earlier by another process, committed only now.
      await insertEvent(r.id, eventIdAt(now - 3000, 'A'), 'order.submitted', new Date(now - 3000));
      const late = await stream.next();
      expect(late.id).to.equal(eventIdAt(now - 3000, 'A'));
      expect(JSON.parse(late.data)).to.include({ id: late.id, type: 'order.submitted', testMode: true });
    } finally {
      stream.close();
    }
  });

  it('replays from ?after= page after page, in id order, each event once; another reseller’s and the live events never', async () => {
    const r = await get().reseller({ mode: 'test' });
    const other = await get().reseller({ mode: 'test' });
    const start = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 620; i++) ids.push(eventIdAt(start + i, 'R'));
    const rows = ids.map((id, i) => ({
      id,
      reseller_id: r.id,
      mode: i % 100 === 7 ? 'live' : 'test',
      type: 'order.created',
      order_id: null,
      payload: JSON.stringify({
        id,
        type: 'order.created',
        createdAt: new Date(start + i).toISOString(),
        testMode: i % 100 !== 7,
        data: {},
      }),
      created_at: new Date(start + i),
    })) as Array<{
      id: string;
      reseller_id: string;
      mode: 'live' | 'test';
      type: string;
      order_id: null;
      payload: string;
      created_at: Date;
    }>;
    await get().service.db.insertInto('events').values(rows).execute();
    await insertEvent(other.id, eventIdAt(start + 5, 'O'), 'order.created', new Date(start + 5));
    const expected = rows
      .filter((row) => row.mode === 'test')
      .map((row) => row.id)
      .slice(1);
    const stream = await open(r.key, `?after=${ids[0]}`);
    try {
      expect((await stream.next()).event).to.equal('ready');
      const got: string[] = [];
      while (got.length < expected.length) got.push((await stream.next()).id!);
      expect(got).to.deep.equal(expected);
    } finally {
      stream.close();
    }
  });
});
