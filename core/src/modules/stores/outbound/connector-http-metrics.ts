import type { Counter, Histogram } from 'prom-client';
import type { Metrics } from '../../../infra/metrics.ts';

/** What the connector HTTP client records per exchange with a platform. */
export interface ConnectorHttpMetrics {
  /**
   * Exchanges by platform, the connector's `operation` and status (the HTTP status, or `timeout`, `refused`,
   * `unreachable`).
   */
  requests: Counter<'platform' | 'operation' | 'status'>;
  /** Time of one exchange (DNS to the last body byte; Retry-After waits not included). */
  duration: Histogram<'platform' | 'operation'>;
}

/** Registers the connector client's metrics once (every platform's client shares them). */
export function connectorHttpMetrics(metrics: Pick<Metrics, 'counter' | 'histogram'>): ConnectorHttpMetrics {
  return {
    requests: metrics.counter(
      'connector_http_requests_total',
      'Calls of connectors to their platforms, by platform, operation and status',
      ['platform', 'operation', 'status'],
    ),
    duration: metrics.histogram(
      'connector_http_request_duration_seconds',
      'Time of a connector call to its platform, by platform and operation',
      ['platform', 'operation'],
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ),
  };
}
