import type { HttpClient } from './http-client.ts';

/**
 * What a connector is handed: the context of every call (its settings, logger, HTTP client, URLs) and a connected
 * store (its credentials as stored, its webhook secret).
 */

export interface ConnectorLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

/** What core hands every connector call; `S` is the connector's settings (the output of its `settingsSchema`). */
export interface ConnectorContext<S = unknown> {
  http: HttpClient;
  logger: ConnectorLogger;
  clock: () => Date;
  /** Where platforms reach us (webhook callbacks, OAuth redirects), e.g. https://api.example.com. */
  publicUrl: string;
  /**
   * The connector's app settings (its public app's key and secret, the platform's origins),
   * read by core from `CONNECTOR_<PLATFORM>_<NAME>` and parsed with the manifest's
   * `settingsSchema` at start-up (defaults applied).
   */
  settings: S;
  /**
   * The URL this platform's webhooks are delivered to: per store with `storeId`
   * (`…/webhooks/<storeId>`), per app without it. Connectors never build core's paths
   * themselves.
   *
   * @example
   * await registerHook({ address: ctx.webhookUrl() }); // an app-level subscription
   */
  webhookUrl(storeId?: string): string;
}

/**
 * A connected store as core keeps it: the platform's id for the store, a display name, and
 * the credentials (sealed at rest by core, handed back to the connector decrypted).
 */
export interface StoreConnection<C> {
  /**
   * Our id for the store, where core has one: `ctx.webhookUrl(id)` is its own webhook URL (to register a webhook
   * again).
   */
  id?: string | undefined;
  /** The platform's id for the store: a shop domain, a store URL, a shop id. Unique per platform. */
  externalId: string;
  name: string;
  credentials: C;
  /** The per-store secret inbound webhooks are signed with, when the platform uses one. */
  webhookSecret?: string | undefined;
}
