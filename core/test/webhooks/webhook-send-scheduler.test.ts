import { expect } from 'chai';
import {
  SendScheduler,
  type SendSchedulerOptions,
  type SendTurn,
} from '../../src/modules/webhooks/webhook-send-scheduler.ts';
import { waitFor } from '../helpers/wait.ts';

const HOST = 'hooks.example:443';
const OK = { succeeded: true, latencyMs: 10 };
const FAILED = { succeeded: false, latencyMs: 10 };

/** A scheduler on a clock the test moves; waits for a turn are given back only after a minute unless told otherwise. */
function scheduler(options: Partial<SendSchedulerOptions> = {}): { s: SendScheduler; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  const s = new SendScheduler(
    {
      perEndpoint: 8,
      perHost: 4,
      slowAfterMs: 60_000,
      timeoutMs: 10_000,
      breakerFailures: 5,
      breakerHoldMs: 1000,
      breakerMaxHoldMs: 4000,
      ...options,
    },
    { now: () => clock.now, random: () => 0.5 },
  );
  return { s, clock };
}

/** An acquire whose outcome can be looked at synchronously once the microtasks ran. */
function track(p: Promise<SendTurn | null>): { turn: SendTurn | null | undefined } {
  const t: { turn: SendTurn | null | undefined } = { turn: undefined };
  void p.then((turn) => (t.turn = turn));
  return t;
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('webhook send scheduler', () => {
  it('keeps an endpoint not known to be fast to half of its host: another endpoint on the host starts at once', async () => {
    const { s } = scheduler();
    // X's backlog: 20 sends to a host with 4 places. Only 2 start; the rest wait.
    const x = Array.from({ length: 20 }, () => track(s.acquire('X', HOST)));
    await settle();
    expect(x.filter((t) => t.turn).length).to.equal(2);
    // Y, on the same host, behind X's 18 waiting sends: starts at once.
    const y = track(s.acquire('Y', HOST));
    await settle();
    expect(y.turn).to.be.an('object');
    expect(s.load).to.deep.equal({ sending: 3, waiting: 18 });
  });

  it('lets an endpoint known to be fast use every place of its host, never more than perEndpoint', async () => {
    const { s } = scheduler({ perHost: 4, perEndpoint: 3 });
    (await s.acquire('A', HOST))!.release(OK);
    const a = Array.from({ length: 5 }, () => track(s.acquire('A', HOST)));
    await settle();
    expect(a.filter((t) => t.turn).length).to.equal(3);
    const { s: s2 } = scheduler({ perHost: 4, perEndpoint: 8 });
    (await s2.acquire('A', HOST))!.release(OK);
    const b = Array.from({ length: 6 }, () => track(s2.acquire('A', HOST)));
    await settle();
    expect(b.filter((t) => t.turn).length).to.equal(4);
  });

  it('shares a full host round robin between the endpoints waiting for it, not first come first served', async () => {
    const { s } = scheduler({ perHost: 4 });
    (await s.acquire('C', HOST))!.release(OK);
    const c = await Promise.all(Array.from({ length: 4 }, () => s.acquire('C', HOST)));
    const order: string[] = [];
    for (const name of ['A', 'A', 'A', 'B', 'B', 'B']) void s.acquire(name, HOST).then(() => order.push(name));
    await settle();
    expect(order).to.deep.equal([]);
    for (const turn of c) {
      turn!.release(OK);
      await settle();
    }
    expect(order).to.deep.equal(['A', 'B', 'A', 'B']);
  });

  it('opens the circuit after consecutive failures: waiting sends are given back, claims take none until the hold ends, then one probe', async () => {
    const { s, clock } = scheduler({ breakerFailures: 2, breakerHoldMs: 1000, breakerMaxHoldMs: 4000 });
    const [t1, t2] = [await s.acquire('X', HOST), await s.acquire('X', HOST)];
    const t3 = track(s.acquire('X', HOST));
    t1!.release(FAILED);
    await settle();
    expect(t3.turn, 'the first failure frees a place; the circuit is still closed').to.be.an('object');
    const t4 = track(s.acquire('X', HOST));
    t2!.release(FAILED);
    await settle();
    expect(t4.turn, 'given back when the circuit opens').to.equal(null);
    expect(s.isHeld('X')).to.equal(true);
    expect(await s.acquire('X', HOST)).to.equal(null);
    expect(s.claimCaps().get('X')).to.deep.include({ cap: 0 });
    expect(s.claimCaps().get('X')!.until.getTime()).to.be.within(clock.now + 1000, clock.now + 1200);
    expect(s.retryAt('X').getTime()).to.be.within(clock.now + 1000, clock.now + 1200);
    // A manual send (redelivery, ping) goes through an open circuit.
    const manual = await s.acquire('X', HOST, { manual: true });
    expect(manual).to.be.an('object');
    manual!.release();

    // The hold ends: half open, one probe at a time (t3, sent before the circuit opened, still runs).
    clock.now += 1000;
    expect(s.isHeld('X')).to.equal(false);
    expect(s.claimCaps().get('X')!.cap).to.equal(0);
    t3.turn!.release(FAILED); // a send from before the circuit opened: its failure does not hold it again
    expect(s.isHeld('X')).to.equal(false);
    expect(s.claimCaps().get('X')!.cap).to.equal(1);
    const probe = await s.acquire('X', HOST);
    const second = track(s.acquire('X', HOST));
    await settle();
    expect(probe).to.be.an('object');
    expect(second.turn, 'one probe at a time').to.equal(undefined);
    // The probe fails: held twice as long, and what waited is given back.
    probe!.release(FAILED);
    await settle();
    expect(second.turn).to.equal(null);
    expect(s.isHeld('X')).to.equal(true);
    clock.now += 1999;
    expect(s.isHeld('X')).to.equal(true);
    clock.now += 1;
    // The next probe succeeds: the circuit closes, the endpoint has its places again.
    const ok = await s.acquire('X', HOST);
    ok!.release(OK);
    expect(s.isHeld('X')).to.equal(false);
    const after = Array.from({ length: 6 }, () => track(s.acquire('X', HOST)));
    await settle();
    expect(after.filter((t) => t.turn).length).to.equal(4);
    expect(s.claimCaps().get('X')!.cap).to.be.at.least(8);
  });

  it('doubles the hold after each failed probe up to the maximum, and a success anywhere closes the circuit', async () => {
    const { s, clock } = scheduler({ breakerFailures: 1, breakerHoldMs: 1000, breakerMaxHoldMs: 2500 });
    (await s.acquire('X', HOST))!.release(FAILED);
    const holds: number[] = [];
    for (let i = 0; i < 4; i++) {
      const until = s.retryAt('X').getTime() - clock.now;
      holds.push(until);
      clock.now += until;
      (await s.acquire('X', HOST))!.release(FAILED);
    }
    // 1000, 2000, 2500, 2500 plus a jitter of a tenth of each (random() = 0.5 of a fifth).
    expect(holds).to.deep.equal([1100, 2200, 2750, 2750]);
    // A manual send succeeds: closed at once.
    (await s.acquire('X', HOST, { manual: true }))!.release(OK);
    expect(s.isHeld('X')).to.equal(false);
  });

  it('does not count internal errors for or against the circuit', async () => {
    const { s } = scheduler({ breakerFailures: 2 });
    for (let i = 0; i < 5; i++)
      (await s.acquire('X', HOST))!.release({ succeeded: false, latencyMs: 0, internal: true });
    expect(s.isHeld('X')).to.equal(false);
  });

  it('gives back a turn not given within slowAfterMs, and says when to try again', async () => {
    const { s, clock } = scheduler({ slowAfterMs: 50 });
    await s.acquire('X', HOST);
    await s.acquire('X', HOST);
    const waiting = track(s.acquire('X', HOST));
    await waitFor('the turn given back', () => waiting.turn === null, 5000, 10);
    expect(s.load).to.deep.equal({ sending: 2, waiting: 0 });
    expect(s.retryAt('X').getTime()).to.be.at.least(clock.now + 200);
  });

  it('caps the claims of a slow endpoint at its free places, and leaves endpoints it knows nothing of alone', async () => {
    const { s, clock } = scheduler({ slowAfterMs: 1000 });
    const started = clock.now;
    await s.acquire('X', HOST);
    await s.acquire('X', HOST);
    expect(s.claimCaps().has('Y')).to.equal(false);
    clock.now = started + 1500;
    // X's sends have run 1.5 s: X is slow, its 2 places are taken, nothing more is claimed for 1.5 s or so.
    const cap = s.claimCaps().get('X')!;
    expect(cap.cap).to.equal(0);
    expect(cap.until.getTime() - clock.now).to.be.within(1350, 1650);
    // A fast endpoint may be claimed for far more than its places (they start within slowAfterMs), and not at all when
    // idle.
    (await s.acquire('F', HOST))!.release(OK);
    expect(s.claimCaps().has('F')).to.equal(false);
    const f = await s.acquire('F', HOST);
    expect(s.claimCaps().get('F')!.cap).to.be.at.least(100);
    f!.release(OK);
  });

  it('resolves whenBelow once fewer sends than the limit are in flight (turns waited for do not count)', async () => {
    const { s } = scheduler({ perHost: 2 });
    const turns = [await s.acquire('A', HOST), await s.acquire('B', HOST)];
    // Five more wait for the full host: they do not hold back a claim.
    const waiting = Array.from({ length: 5 }, () => track(s.acquire('C', 'other:443')));
    const blocked = Array.from({ length: 5 }, () => track(s.acquire('D', HOST)));
    await settle();
    expect(waiting.filter((t) => t.turn).length).to.equal(1);
    expect(blocked.filter((t) => t.turn).length).to.equal(0);
    expect(s.load).to.deep.equal({ sending: 3, waiting: 9 });
    let below = false;
    void s.whenBelow(3).then(() => (below = true));
    await settle();
    expect(below).to.equal(false);
    waiting.find((t) => t.turn)!.turn!.release(OK);
    await settle();
    // C's next send took the freed place: still three in flight.
    expect(below).to.equal(false);
    await waitFor('whenBelow', async () => {
      for (const t of [...waiting, ...blocked]) if (t.turn) t.turn.release(OK);
      for (const t of turns) t!.release(OK);
      await settle();
      return below;
    });
  });
});
