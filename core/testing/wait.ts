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
