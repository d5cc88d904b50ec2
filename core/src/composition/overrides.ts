import type { Connector } from '@print-api/connector-kit';
import type { Logger } from '../infra/logger.ts';
import type { HostLookup } from '../infra/safe-fetch/safe-fetch.ts';
import type { PaymentGateway } from '../modules/payments/payment-gateway.ts';
import type { ProductionPartner } from '../modules/production/production-partner.ts';
import type { WebhooksOptions } from '../modules/webhooks/webhooks-options.ts';

/** Replacements for tests: third-party edges only (never our own parts). */
export interface Overrides {
  logger?: Logger;
  gateway?: PaymentGateway;
  checkResponses?: boolean;
  /** Key prefix of BullMQ queues and rate-limit counters (tests isolate runs with it). */
  redisPrefix?: string;
  /** Extra CA certificates trusted for outbound HTTPS (tests' self-signed local servers). */
  outboundCa?: string[];
  /** Tests only: the operators' identity provider answers on http://127.0.0.1 (openid-client wants https). */
  oidcAllowInsecureRequests?: boolean;
  /** DNS for outbound HTTPS (tests resolve the platforms they put behind nock); the OS resolver otherwise. */
  outboundLookup?: HostLookup;
  /** How often the maintenance sweeps run (ms). */
  maintenanceIntervalMs?: number;
  /** Connectors to load instead of CONNECTORS (a test's variant of a connector). */
  connectors?: Array<Connector<any, any>>;
  /**
   * Where connectors' `CONNECTOR_<PLATFORM>_*` variables are read (tests: their own environment); the process
   * environment otherwise.
   */
  connectorEnv?: (platform: string) => Record<string, string>;
  /** Webhook delivery tunables (timeout, retry schedule, lease…); tests shorten them. */
  webhooks?: Partial<WebhooksOptions>;
  /** The print facility live orders are handed to (a third party: tests stand one in). */
  productionPartner?: ProductionPartner;
  /**
   * A new embedded database starts from this data directory (tests: a migrated template) instead of being initialised.
   */
  pgliteTemplate?: Blob;
  /**
   * Where the embedded database keeps its files instead of DATA_DIR (tests: `memory://`, so a service that lives
   * for one suite writes none of its tens of megabytes to disk, nor deletes them after).
   */
  embeddedDatabaseDir?: string;
}
