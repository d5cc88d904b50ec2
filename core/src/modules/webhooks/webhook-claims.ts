import { sql } from 'kysely';
import { eventPayloadText } from '../events/event-fragments.ts';
import type { Db } from '../tables.ts';
import type { WebhookDbLane } from './webhook-db-lane.ts';
import type { ClaimCap } from './webhook-send-scheduler.ts';

// Claiming an attempt: its counter moves on and `next_attempt_at` becomes a lease, so two
// processes never send the same attempt, and a process that dies mid-send leaves a lease that
// runs out (the sweeper then queues the delivery again).

/** A job may start this much before its attempt is due (clocks of two processes differ a little). */
const EARLY_SLACK_MS = 1000;

/** A claimed attempt: the delivery's counters and what sending needs. */
export interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  /** `last_attempt_at` before the claim: put back if the attempt is returned unsent. */
  previous_attempt_at: Date | null;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  deleted_at: Date | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  /**
   * The event as stored, as JSON text: parsed once per event by the deliverer, not once per
   * claimed row (the driver's jsonb parse of every endpoint's copy).
   */
  payload: string;
}

/** A delivery put off by a claim, or returned unsent: queued again for `attempt` at `until`. */
export interface PutOff {
  id: string;
  endpointId: string;
  attempt: number;
  until: Date;
}

/**
 * Takes scheduled attempt `attempt` of those deliveries that are still waiting for it (counter
 * up, lease set) and reads what sending needs, in one statement. SKIP LOCKED: a row another
 * claimer or a deletion holds is theirs; this job never waits for it (and never deadlocks).
 *
 * Of an endpoint the scheduler names busy or held (`claimCaps`), only the first `cap` (oldest
 * first) are claimed; the statement puts the others off (`next_attempt_at`) until the cap's
 * `until`, and they are queued again for then. A batch of one slow endpoint's deliveries thus
 * never waits in this process ahead of other endpoints' deliveries.
 */
export async function claimScheduled(
  deps: { lane: WebhookDbLane; leaseMs: number },
  input: { ids: string[]; attempt: number; now: Date; claimCaps: ReadonlyMap<string, ClaimCap> },
): Promise<{ claimed: Claimed[]; deferred: PutOff[] }> {
  const { ids, attempt, now } = input;
  if (ids.length === 0) return { claimed: [], deferred: [] };
  const caps: Record<string, { cap: number; until: string }> = {};
  // Only caps that can bind: a cap as large as the batch changes nothing.
  for (const [endpointId, c] of input.claimCaps) if (c.cap < ids.length) caps[endpointId] = capParam(c);
  const claim = sql<Claimed & { deferred: Array<[string, string, string]> }>`
    with caps as (
      select key as endpoint_id, (value ->> 'cap')::int as cap, (value ->> 'until')::timestamptz as until
      from jsonb_each(${JSON.stringify(caps)}::jsonb)
    ),
    due as (
      select id, endpoint_id, last_attempt_at from webhook_deliveries
      where id in (${sql.join(ids)})
        and status = 'pending'
        and attempts = ${attempt - 1}
        and next_attempt_at <= ${new Date(now.getTime() + EARLY_SLACK_MS)}
      for update skip locked
    ),
    ranked as (
      select due.id, due.last_attempt_at, caps.until,
             caps.cap is null or row_number() over (partition by due.endpoint_id order by due.id) <= caps.cap as fits
      from due left join caps on caps.endpoint_id = due.endpoint_id
    ),
    put_off as (
      update webhook_deliveries as d set next_attempt_at = r.until
      from ranked as r
      where d.id = r.id and not r.fits
      returning d.id, d.endpoint_id, d.next_attempt_at
    ),
    claimed as (
      update webhook_deliveries as d
      set attempts = ${attempt}, next_attempt_at = ${new Date(now.getTime() + deps.leaseMs)}, last_attempt_at = ${now}
      from ranked as r, webhook_endpoints as e
      where d.id = r.id and r.fits and e.id = d.endpoint_id
      returning d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, r.last_attempt_at as previous_attempt_at,
                e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, e.deleted_at, e.disabled_at, e.failing_since, ${eventPayloadText(sql`d.event_id`)} as payload
    )
    -- One row per claimed attempt (or one row of nulls), each carrying the list of those put off.
    select c.*, p.deferred
    from (select coalesce(jsonb_agg(jsonb_build_array(id, endpoint_id, next_attempt_at)), '[]'::jsonb) as deferred from put_off) as p
    left join claimed as c on true`;
  const { rows } = await deps.lane.run((db) => claim.execute(db));
  const deferred = (rows[0]?.deferred ?? []).map(([id, endpointId, until]) => ({
    id,
    endpointId,
    attempt,
    until: new Date(until),
  }));
  return { claimed: rows.filter((r) => r.id !== null), deferred };
}

/** Manual: the next attempt at once, whatever the schedule; a pending job for an earlier number then finds nothing. */
export async function claimManual(
  deps: { db: Db; leaseMs: number },
  deliveryId: string,
  now: Date,
): Promise<Claimed | undefined> {
  return deps.db
    .updateTable('webhook_deliveries as d')
    .from('webhook_endpoints as e')
    .set({
      next_attempt_at: new Date(now.getTime() + deps.leaseMs),
      last_attempt_at: now,
      status: 'pending',
      attempts: sql<number>`d.attempts + 1`,
      delivered_at: null,
    })
    .whereRef('e.id', '=', 'd.endpoint_id')
    .where('d.id', '=', deliveryId)
    .where('d.status', '<>', 'cancelled')
    .returning([
      'd.id',
      'd.endpoint_id',
      'd.event_id',
      'd.event_type',
      'd.attempts',
      // Never returned unsent: a manual attempt waits for its turn.
      sql<Date | null>`null::timestamptz`.as('previous_attempt_at'),
      'e.url',
      'e.secret_sealed',
      'e.previous_secret_sealed',
      'e.previous_secret_expires_at',
      'e.deleted_at',
      'e.disabled_at',
      'e.failing_since',
      eventPayloadText(sql`d.event_id`).as('payload'),
    ])
    .executeTakeFirst();
}

/** A claim cap as the claim statement reads it. */
function capParam(c: ClaimCap): { cap: number; until: string } {
  return { cap: c.cap, until: c.until.toISOString() };
}
