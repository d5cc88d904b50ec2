import type { ColumnType, Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Mode } from '../../kernel/tenant.ts';

/**
 * A reseller's registered receiver, per mode. Deleted endpoints stay (soft delete) so their delivery history keeps its
 * owner.
 */
export interface WebhookEndpointsTable {
  id: string;
  reseller_id: string;
  mode: Mode;
  url: string;
  /** Subscribed event kinds, or `['*']` for all of them. */
  events: ColumnType<string[], string, string>;
  /** The signing secret, sealed with the SecretBox: never stored in clear. */
  secret_sealed: string;
  /** The secret before the last rotation, still signing (beside the new one) until it expires. */
  previous_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  previous_secret_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Set at the first failure after a success; cleared by any success. */
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  deleted_at: Date | null;
}

/** Whether an endpoint's previous secret still signs at `at` (after a rotation, until it expires). */
export function previousSecretSigns<
  T extends { previous_secret_sealed: string | null; previous_secret_expires_at: Date | null },
>(endpoint: T, at: Date): endpoint is T & { previous_secret_sealed: string; previous_secret_expires_at: Date } {
  return (
    endpoint.previous_secret_sealed !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > at
  );
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/**
 * One event for one endpoint. The retry schedule lives here (`next_attempt_at`), not in the
 * queue: a job only says "look at this delivery now", so lost jobs are rebuilt by the sweeper.
 */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts started (claimed), including one interrupted by a crash. */
  attempts: number;
  /** When the next attempt is due; while an attempt runs, when its lease runs out. */
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export type AttemptTrigger = 'scheduled' | 'manual';

/** The outcome of each finished attempt, for GET /webhooks/{id}/deliveries. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  trigger: AttemptTrigger;
  started_at: Date;
  status_code: number | null;
  /** Null for an attempt interrupted by a crash: it has no outcome. */
  latency_ms: number | null;
  error: string | null;
  succeeded: boolean;
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export const webhooksMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
      .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'jsonb', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('failing_since', 'timestamptz')
      .addColumn('disabled_at', 'timestamptz')
      .addColumn('disabled_reason', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('deleted_at', 'timestamptz')
      .execute();
    await sql`create index webhook_endpoints_owner_idx on webhook_endpoints (reseller_id, mode, created_at desc, id desc) where deleted_at is null`.execute(
      db,
    );

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
      .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) =>
        c.notNull().check(sql`status in ('pending', 'delivered', 'failed', 'cancelled')`),
      )
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'timestamptz')
      .addColumn('last_attempt_at', 'timestamptz')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_latency_ms', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('delivered_at', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      // Fan-out may run twice (two processes, a sweep after a crash): one delivery per pair all the same.
      .addUniqueConstraint('webhook_deliveries_event_endpoint_uq', ['event_id', 'endpoint_id'])
      .execute();
    await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
      db,
    );
    await db.schema
      .createIndex('webhook_deliveries_page_idx')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'created_at desc', 'id desc'])
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger in ('scheduled', 'manual')`))
      .addColumn('started_at', 'timestamptz', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('latency_ms', 'integer')
      .addColumn('error', 'text')
      .addColumn('succeeded', 'boolean', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
      .execute();
  },
};

/** Secret rotation: the previous secret and until when it signs too. */
export const webhookSecretRotationMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_sealed', 'text').execute();
    await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'timestamptz').execute();
  },
};

/**
 * The attempts of a time window (the console's failed deliveries per hour, the last hour's
 * attempts of /metrics): by when they started, across every delivery. Part of migration 0030.
 */
export const webhookAttemptsWindowIndexMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('webhook_attempts_started_idx').on('webhook_attempts').column('started_at').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('webhook_attempts_started_idx').execute();
  },
};
