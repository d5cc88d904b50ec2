import type { Db } from '../../tables.ts';
import type { Metrics } from '../../../infra/metrics.ts';
import type { WebhookDeliveriesService } from '../../webhooks/webhook-deliveries-service.ts';
import { STORE_FLAGS, type PlatformHealth, type StoreHealth } from './store-health.ts';

/** The stores' own tables and health, and the webhooks module's deliveries (read through its service). */
interface HealthDeps {
  db: Db;
  health: StoreHealth;
  webhooks: Pick<WebhookDeliveriesService, 'health'>;
}

/** How long one reading of the tables serves scrapes (several Prometheus servers, one query). */
const READ_EVERY_MS = 10_000;

/**
 * The gauges operators alert on, read from the database at scrape time (so every process
 * reports the same; scrape one): per platform, connected stores, the ingest lag, the soonest
 * expiring credentials, flagged stores by reason and the last 24 h's store orders by outcome;
 * reseller webhook deliveries waiting and failed, and attempts of the last hour by outcome;
 * tracking pushes to stores by state.
 */
export function registerStoreHealthMetrics(metrics: Metrics, deps: HealthDeps): void {
  let cached: { at: number; value: Promise<Reading> } | undefined;
  const read = (): Promise<Reading> => {
    if (!cached || Date.now() - cached.at > READ_EVERY_MS) {
      const value = reading(deps).catch((err: unknown) => {
        cached = undefined;
        throw err;
      });
      cached = { at: Date.now(), value };
    }
    return cached.value;
  };
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (g: { set(labels: Record<string, string>, v: number): void }, r: Reading) => void,
  ) =>
    metrics.gauge(name, help, labelNames, async function () {
      const r = await read().catch(() => undefined);
      this.reset();
      if (r) fill(this, r);
    });

  gauge('stores_connected', 'Connected stores per platform', ['platform'], (g, r) =>
    r.platforms.forEach((p) => g.set({ platform: p.platform }, p.connected)),
  );
  gauge(
    'store_ingest_lag_seconds',
    'Age of the oldest received store webhook not yet processed, worst store per platform (0: none waits)',
    ['platform'],
    (g, r) => r.platforms.forEach((p) => g.set({ platform: p.platform }, p.maxIngestLagSeconds)),
  );
  gauge(
    'store_token_expiry_seconds',
    'Seconds until the soonest expiring store credentials that cannot renew themselves, per platform (negative: expired)',
    ['platform'],
    (g, r) =>
      r.platforms.forEach((p) =>
        p.minTokenExpirySeconds === null ? undefined : g.set({ platform: p.platform }, p.minTokenExpirySeconds),
      ),
  );
  gauge(
    'stores_flagged',
    'Connected stores flagged on the store health page, per platform and reason',
    ['platform', 'flag'],
    (g, r) =>
      r.platforms.forEach((p) => STORE_FLAGS.forEach((flag) => g.set({ platform: p.platform, flag }, p.flagged[flag]))),
  );
  gauge(
    'store_orders_24h',
    'Store orders received in the last 24 h per platform and outcome (placed, skipped, failed)',
    ['platform', 'outcome'],
    (g, r) =>
      r.platforms.forEach((p) =>
        (['placed', 'skipped', 'failed'] as const).forEach((outcome) =>
          g.set({ platform: p.platform, outcome }, p.last24h[outcome]),
        ),
      ),
  );
  gauge(
    'webhook_deliveries',
    'Webhook deliveries to resellers not delivered, by status (pending, failed)',
    ['status'],
    (g, r) => {
      g.set({ status: 'pending' }, r.deliveries.pending);
      g.set({ status: 'failed' }, r.deliveries.failed);
    },
  );
  gauge(
    'webhook_delivery_attempts_1h',
    'Webhook delivery attempts of the last hour by outcome (succeeded, failed)',
    ['outcome'],
    (g, r) => {
      g.set({ outcome: 'succeeded' }, r.attempts.succeeded);
      g.set({ outcome: 'failed' }, r.attempts.failed);
    },
  );
  gauge('store_fulfilments', 'Tracking pushes to stores by status (pending, failed)', ['status'], (g, r) => {
    g.set({ status: 'pending' }, r.fulfilments.pending);
    g.set({ status: 'failed' }, r.fulfilments.failed);
  });
}

interface Reading {
  platforms: PlatformHealth[];
  deliveries: { pending: number; failed: number };
  attempts: { succeeded: number; failed: number };
  fulfilments: { pending: number; failed: number };
}

async function reading(deps: HealthDeps): Promise<Reading> {
  const hourAgo = new Date(Date.now() - 3600_000);
  const [platforms, { deliveries, attempts }, fulfilments] = await Promise.all([
    deps.health.perPlatform(),
    deps.webhooks.health(hourAgo),
    deps.db
      .selectFrom('store_fulfilments')
      .select((eb) => [
        eb.fn.countAll<number>().filterWhere('status', '=', 'pending').as('pending'),
        eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('failed'),
      ])
      .where('status', 'in', ['pending', 'failed'])
      .executeTakeFirstOrThrow(),
  ]);
  return {
    platforms,
    deliveries,
    attempts,
    fulfilments: { pending: Number(fulfilments.pending), failed: Number(fulfilments.failed) },
  };
}
