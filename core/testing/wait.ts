import { scaled, TIME_SCALE } from './time-scale.ts';

/** The first wait between two checks, and the longest it grows to (by half each check) when no interval is given. */
const FIRST_POLL_MS = 25;
const LONGEST_POLL_MS = 1000;

/**
 * Polls until `check` returns a truthy value, or fails once `timeoutMs` (what an idle machine
 * needs, grown by the run's time scale) has passed. Only the failure waits that long. Without
 * `intervalMs`, checks start 25 ms apart and grow to one a second: a long wait on a busy machine
 * that asks the API (120 requests a minute per key by default) cannot spend its key's rate limit.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  intervalMs?: number,
): Promise<T> {
  const budget = scaled(timeoutMs);
  const deadline = Date.now() + budget;
  let wait = intervalMs ?? FIRST_POLL_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (${budget} ms at time scale ${TIME_SCALE})`);
    await new Promise((r) => setTimeout(r, wait));
    if (intervalMs === undefined) wait = Math.min(LONGEST_POLL_MS, Math.ceil(wait * 1.5));
  }
}
export { scaled, TIME_SCALE } from './time-scale.ts';

/**
 * Polls `progress` (a count that only grows) until it reaches `target`, failing only when it has not
 * grown for `stallMs` (grown by the run's time scale): for work whose total time is the machine's
 * throughput, which load divides, not a property of the code. A stall still fails, however long
 * the run; the test itself then needs no wall-clock budget (`this.timeout(0)`).
 */
export async function waitForProgress(
  what: string,
  progress: () => number | Promise<number>,
  target: number,
  stallMs = 10_000,
  intervalMs = 200,
): Promise<void> {
  const budget = scaled(stallMs);
  let best = -Infinity;
  let grewAt = Date.now();
  for (;;) {
    const now = await progress();
    if (now >= target) return;
    if (now > best) {
      best = now;
      grewAt = Date.now();
    } else if (Date.now() - grewAt > budget)
      throw new Error(`${what}: stalled at ${now} of ${target} for ${budget} ms (time scale ${TIME_SCALE})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
