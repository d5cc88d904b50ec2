import type { Db } from '../tables.ts';
import type { Outcome } from './webhook-attempt-sender.ts';

// The endpoint's side of the circuit, kept in the database: `failing_since`, which the
// dispatcher's sweep reads to disable an endpoint that has failed for too long (the circuit that
// holds a failing endpoint's sends lives in the SendScheduler, in memory).

/** What the streaks need of one attempt: its endpoint, the streak its claim read, how it ended. */
export interface StreakInput {
  endpointId: string;
  failingSince: Date | null;
  outcome: Outcome;
}

/**
 * An endpoint's failure streak starts at its first failure after a success and ends with any
 * success. Only changes are written (against the streak each claim read), so a busy
 * endpoint's row is rarely touched; one statement per changed endpoint, in parallel.
 */
export async function trackFailureStreaks(db: Db, attempts: StreakInput[]): Promise<void> {
  const byEndpoint = new Map<string, { known: Date | null; outcomes: Outcome[] }>();
  for (const a of attempts) {
    const entry = byEndpoint.get(a.endpointId) ?? { known: a.failingSince, outcomes: [] };
    entry.outcomes.push(a.outcome);
    byEndpoint.set(a.endpointId, entry);
  }
  const writes: Array<Promise<unknown>> = [];
  for (const [endpointId, { known, outcomes }] of byEndpoint) {
    // In the order the attempts ended: the last success, and the first failure after it.
    const ended = outcomes
      .slice()
      .sort((a, b) => a.startedAt.getTime() + a.latencyMs - (b.startedAt.getTime() + b.latencyMs));
    let lastSuccess = -1;
    ended.forEach((o, i) => (o.succeeded ? (lastSuccess = i) : undefined));
    const firstFailureAfter = ended[lastSuccess + 1];
    const update = db.updateTable('webhook_endpoints').where('id', '=', endpointId);
    if (!firstFailureAfter) {
      if (known !== null) writes.push(update.set({ failing_since: null }).execute());
    } else if (lastSuccess >= 0) {
      // A success then failures: a new streak from the first of those failures.
      writes.push(update.set({ failing_since: firstFailureAfter.startedAt }).execute());
    } else if (known === null) {
      writes.push(
        update.set({ failing_since: firstFailureAfter.startedAt }).where('failing_since', 'is', null).execute(),
      );
    }
  }
  await Promise.all(writes);
}
