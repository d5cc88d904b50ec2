import { sql } from 'kysely';
import type { Outcome } from './webhook-attempt-sender.ts';
import type { Claimed, PutOff } from './webhook-claims.ts';
import type { WebhookDbLane } from './webhook-db-lane.ts';
import { PING_EVENT } from './webhook-event-types.ts';
import { nextRetryDelay } from './webhook-retry-schedule.ts';
import type { AttemptTrigger } from './webhooks-tables.ts';

/**
 * What one claimed attempt ended with: sent (an outcome), closed without sending, or returned
 * unsent to the schedule (its endpoint was busy or held): the claim is undone, the attempt
 * number given back, and the delivery is due again at `at`.
 */
export type Result =
  | { claimed: Claimed; outcome: Outcome; close?: undefined; returned?: undefined }
  | {
      claimed: Claimed;
      close: { status: 'cancelled' | 'failed'; reason: string };
      outcome?: undefined;
      returned?: undefined;
    }
  | { claimed: Claimed; returned: { at: Date }; outcome?: undefined; close?: undefined };

/**
 * What recording leaves to be queued: the retries, and the attempts returned unsent, of the deliveries still pending.
 */
export interface Recorded {
  retries: Array<{ id: string; attempt: number; delay: number }>;
  returned: PutOff[];
}

/**
 * Stores the outcomes, schedules next attempts or ends the deliveries, in one statement
 * (data-modifying CTEs run whether or not they are read): each attempt's row and its
 * delivery's new state together.
 */
export async function recordOutcomes(
  deps: { lane: WebhookDbLane; retryScheduleMs: readonly number[]; jitterRatio: number },
  results: Result[],
  trigger: AttemptTrigger,
  now: Date,
): Promise<Recorded> {
  const retries: Array<{ id: string; attempt: number; delay: number }> = [];
  const returned: PutOff[] = [];
  const none = {
    closed: false,
    returned: false,
    previous_attempt_at: null,
    delivered_at: null,
    status_code: null,
    latency_ms: null,
    error: null,
    trigger,
    started_at: null,
    succeeded: false,
  };
  const rows = results.map((r) => {
    const n = r.claimed.attempts;
    if (r.close)
      return {
        ...none,
        id: r.claimed.id,
        attempt: n,
        closed: true,
        status: r.close.status,
        next_attempt_at: null,
        error: r.close.reason,
      };
    if (r.returned) {
      returned.push({ id: r.claimed.id, endpointId: r.claimed.endpoint_id, attempt: n, until: r.returned.at });
      return {
        ...none,
        id: r.claimed.id,
        attempt: n,
        returned: true,
        status: 'pending',
        next_attempt_at: r.returned.at.toISOString(),
        previous_attempt_at: r.claimed.previous_attempt_at?.toISOString() ?? null,
      };
    }
    const { outcome } = r;
    const delay =
      outcome.succeeded || r.claimed.event_type === PING_EVENT
        ? null
        : nextRetryDelay(deps.retryScheduleMs, n, deps.jitterRatio);
    if (delay !== null) retries.push({ id: r.claimed.id, attempt: n + 1, delay });
    return {
      ...none,
      id: r.claimed.id,
      attempt: n,
      status: outcome.succeeded ? 'delivered' : delay === null ? 'failed' : 'pending',
      next_attempt_at: delay === null ? null : new Date(now.getTime() + delay).toISOString(),
      delivered_at: outcome.succeeded ? now.toISOString() : null,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      error: outcome.error,
      started_at: outcome.startedAt.toISOString(),
      succeeded: outcome.succeeded,
    };
  });
  // A closed delivery keeps its last outcome and gets no attempt row; a sent one must still be
  // pending at the claimed attempt (not cancelled by a deletion, not taken over after a lease ran out).
  // A returned one was never sent: its claim is undone (the attempt number and the time of the
  // last attempt as they were, nothing else touched), so its history has no gap; it is due again
  // at `next_attempt_at` unless a deletion cancelled it meanwhile.
  const write = sql<{ id: string; status: string }>`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        id text, attempt int, closed boolean, returned boolean, status text, next_attempt_at timestamptz, previous_attempt_at timestamptz,
        delivered_at timestamptz, status_code int, latency_ms int, error text, trigger text, started_at timestamptz, succeeded boolean)
    ),
    -- Row locks in id order, as the endpoint deletion takes them: the two never deadlock.
    locked as (
      select id from webhook_deliveries where id in (select id from v) order by id for update
    ),
    updated as (
      update webhook_deliveries as d
      set status = case when v.returned then d.status else v.status end,
          attempts = case when v.returned then v.attempt - 1 else d.attempts end,
          next_attempt_at = case when v.returned and d.status <> 'pending' then d.next_attempt_at else v.next_attempt_at end,
          last_attempt_at = case when v.returned then v.previous_attempt_at else d.last_attempt_at end,
          delivered_at = case when v.closed or v.returned then d.delivered_at else v.delivered_at end,
          last_status_code = case when v.closed or v.returned then d.last_status_code else v.status_code end,
          last_latency_ms = case when v.closed or v.returned then d.last_latency_ms else v.latency_ms end,
          last_error = case when v.returned then d.last_error else v.error end
      from v, locked
      where d.id = v.id and locked.id = v.id and d.attempts = v.attempt and (v.closed or v.returned or d.status = 'pending')
      returning d.id, d.status
    ),
    recorded as (
      insert into webhook_attempts (delivery_id, attempt, trigger, started_at, status_code, latency_ms, error, succeeded)
      select id, attempt, trigger, started_at, status_code, latency_ms, error, succeeded from v where not v.closed and not v.returned
      on conflict (delivery_id, attempt) do nothing
      returning delivery_id
    )
    select id, status from updated`;
  const { rows: updated } = await deps.lane.run((db) => write.execute(db));
  const scheduled = new Set(updated.filter((u) => u.status === 'pending').map((u) => u.id));
  return { retries: retries.filter((r) => scheduled.has(r.id)), returned: returned.filter((r) => scheduled.has(r.id)) };
}
