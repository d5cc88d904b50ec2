const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits before attempts 2, 3, …: 10 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, and a last one
 * that lands 24 h after the first attempt (spec §6: "retried for about 24 hours").
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  10 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  24 * HOUR - (10 * SECOND + 1 * MINUTE + 5 * MINUTE + 30 * MINUTE + 2 * HOUR + 5 * HOUR + 10 * HOUR),
];

/**
 * The delay before the attempt after `attempt` (1-based) failed, or null when the schedule is
 * spent and the delivery has failed. Jitter spreads a burst of failures (a receiver that was
 * down for everyone) so the retries do not arrive as one wave.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  attempt: number,
  jitterRatio: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const spread = base * jitterRatio * (2 * random() - 1);
  return Math.max(0, Math.round(base + spread));
}
