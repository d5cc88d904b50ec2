import { scaledDeadline } from './time-scale.ts';

/**
 * Polls `probe` until it answers something truthy (queues work asynchronously), or fails after `timeoutMs`
 * (what an idle machine needs, grown by the run's time scale).
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const budget = scaledDeadline(timeoutMs);
  const deadline = Date.now() + budget;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${budget} ms)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
