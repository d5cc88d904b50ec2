import type { Selectable } from 'kysely';
import type { z } from 'zod';
import {
  previousSecretSigns,
  type WebhookAttemptsTable,
  type WebhookDeliveriesTable,
  type WebhookEndpointsTable,
} from './webhooks-tables.ts';
import type { webhookAttemptSchema, webhookDeliverySchema, webhookEndpointSchema } from './webhooks-schemas.ts';

export type WebhookEndpointView = z.infer<typeof webhookEndpointSchema>;
export type WebhookDeliveryView = z.infer<typeof webhookDeliverySchema>;
export type WebhookAttemptView = z.infer<typeof webhookAttemptSchema>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The endpoint as the API shows it: never a secret. `now` tells whether the previous secret still signs. */
export function toEndpointView(row: Selectable<WebhookEndpointsTable>, now: Date = new Date()): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    testMode: row.mode === 'test',
    enabled: row.disabled_at === null,
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason,
    failingSince: iso(row.failing_since),
    previousSecretExpiresAt: previousSecretSigns(row, now) ? iso(row.previous_secret_expires_at) : null,
    createdAt: row.created_at.toISOString(),
  };
}

export function toAttemptView(row: Selectable<WebhookAttemptsTable>): WebhookAttemptView {
  return {
    attempt: row.attempt,
    trigger: row.trigger,
    startedAt: row.started_at.toISOString(),
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    error: row.error,
    succeeded: row.succeeded,
  };
}

export function toDeliveryView(
  row: Selectable<WebhookDeliveriesTable>,
  attempts: Array<Selectable<WebhookAttemptsTable>>,
): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempts,
    // While an attempt runs, next_attempt_at is its lease, not a scheduled attempt.
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastAttemptAt: iso(row.last_attempt_at),
    lastStatusCode: row.last_status_code,
    lastLatencyMs: row.last_latency_ms,
    lastError: row.last_error,
    deliveredAt: iso(row.delivered_at),
    createdAt: row.created_at.toISOString(),
    attempts: attempts.map(toAttemptView),
  };
}
