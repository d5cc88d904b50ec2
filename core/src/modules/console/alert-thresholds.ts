import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the deployment's Prometheus rules are (the repository's `ops/alerts.yml`). */
export const ALERTS_FILE = path.resolve(import.meta.dirname, '../../../../ops/alerts.yml');

/**
 * The thresholds the console's home page marks its charts against: the very numbers
 * `ops/alerts.yml` alerts on, read from that file, so that a threshold tuned there is the one
 * the console shows. Each is the number its alert's expression compares with.
 */
export interface AlertThresholds {
  /** StoreIngestLag: the oldest unprocessed store webhook, in seconds, above which it pages. */
  ingestLagSeconds: number;
  /** StoreWebhooksStopped: stores flagged as no longer sending webhooks, above which it warns. */
  storesBehind: number;
  /** StoreOrdersFailing: the failed share of a platform's store orders (and the least number failed). */
  failedOrderShare: number;
  failedOrdersAtLeast: number;
  /** WebhookDeliveriesFailing: the failed share of the last hour's attempts (and the least number failed). */
  failedDeliveryShare: number;
  failedDeliveriesAtLeast: number;
  /** DeadJobs: dead jobs per queue above which it warns. */
  deadJobs: number;
  /** Where the numbers came from: the file, or these defaults when it could not be read. */
  source: string;
}

/** The numbers `ops/alerts.yml` ships with (used when the file is not deployed next to the code). */
export const DEFAULT_THRESHOLDS: AlertThresholds = {
  ingestLagSeconds: 600,
  storesBehind: 0,
  failedOrderShare: 0.2,
  failedOrdersAtLeast: 3,
  failedDeliveryShare: 0.5,
  failedDeliveriesAtLeast: 10,
  deadJobs: 0,
  source: 'defaults (ops/alerts.yml not found)',
};

/** Each alert's expression, by the alert's name (the YAML's `expr:`, inline or as a block). */
export function alertExpressions(yaml: string): Map<string, string> {
  const out = new Map<string, string>();
  const blocks = yaml.split(/^\s*- alert: /m).slice(1);
  for (const block of blocks) {
    const name = block.split(/\s/, 1)[0]!;
    const expr = /^\s*expr:\s*(\|[^\n]*\n((?:[ \t]+[^\n]*\n?)+)|[^\n]+)/m.exec(block);
    if (expr) out.set(name, (expr[2] ?? expr[1]!).replace(/\s+/g, ' ').trim());
  }
  return out;
}

/** The numbers an expression compares with (`> 600`, `>= 3`), in order. */
function comparisons(expr: string | undefined): number[] {
  return [...(expr ?? '').matchAll(/(?:>=|<=|>|<|==)\s*(-?\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
}

/** The thresholds of `yaml` (the alerts file's text); an alert missing from it keeps its default. */
export function thresholdsOf(yaml: string, source: string): AlertThresholds {
  const exprs = alertExpressions(yaml);
  const pick = (alert: string, index: number, fallback: number) => comparisons(exprs.get(alert))[index] ?? fallback;
  const d = DEFAULT_THRESHOLDS;
  return {
    ingestLagSeconds: pick('StoreIngestLag', 0, d.ingestLagSeconds),
    storesBehind: pick('StoreWebhooksStopped', 0, d.storesBehind),
    failedOrderShare: pick('StoreOrdersFailing', 0, d.failedOrderShare),
    failedOrdersAtLeast: pick('StoreOrdersFailing', 1, d.failedOrdersAtLeast),
    failedDeliveryShare: pick('WebhookDeliveriesFailing', 0, d.failedDeliveryShare),
    failedDeliveriesAtLeast: pick('WebhookDeliveriesFailing', 1, d.failedDeliveriesAtLeast),
    deadJobs: pick('DeadJobs', 0, d.deadJobs),
    source,
  };
}

/** The thresholds of the deployment's `ops/alerts.yml` (its defaults when the file is not there). */
export function loadAlertThresholds(file = ALERTS_FILE): AlertThresholds {
  let yaml: string;
  try {
    yaml = readFileSync(file, 'utf8');
  } catch {
    return DEFAULT_THRESHOLDS;
  }
  return thresholdsOf(yaml, 'ops/alerts.yml');
}
