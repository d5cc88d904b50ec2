import { scaled, TIME_SCALE } from './time-scale.ts';

/**
 * Polls until `check` returns a truthy value, or fails once `timeoutMs` (what an idle machine
 * needs, grown by the run's time scale) has passed. Only the failure waits that long.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const budget = scaled(timeoutMs);
  const deadline = Date.now() + budget;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (${budget} ms at time scale ${TIME_SCALE})`);
    await new Promise((r) => setTimeout(r, intervalMs));
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
