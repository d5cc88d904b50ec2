import type { StoreOrder } from './store-order.ts';

/**
 * What reaches a connector from its platform, and what it answers: inbound webhooks (as they arrived, the verdict on
 * their signature, what they mean) and calls to the connector's own endpoints. Core receives and stores them; the
 * connector only reads them (`Connector.verifyWebhook`, `parseWebhook`, `endpoints`).
 */

/** An inbound webhook exactly as it arrived: verify on these raw bytes, never on re-serialised JSON. */
export interface InboundWebhook {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  /** Extra path after `/connectors/<platform>/webhooks/` (e.g. a store id or a topic). */
  path: string;
  query: Record<string, string | undefined>;
}

export type WebhookVerdict =
  | {
      ok: true;
      /** The platform's topic/event name (orders/paid, order.updated, …). */
      topic: string;
      /** The platform's delivery or event id: the same event delivered twice is stored once. */
      eventId: string | null;
      /** When the platform says the event happened (stale replays are recognised by it). */
      occurredAt: string | null;
      /**
       * Answer 200 and store nothing: a platform's unsigned reachability check that carries no
       * event (WooCommerce's `webhook_id=N` ping when a webhook is created).
       */
      acknowledgeOnly?: boolean;
    }
  | { ok: false; reason: string };

/** What a verified webhook means for us. */
export type WebhookContent =
  | { kind: 'orders'; orders: StoreOrder[] }
  /** A thin notification: the orders must be fetched (Etsy, TikTok Shop, Wix). */
  | { kind: 'fetch'; externalOrderIds: string[] }
  /**
   * The app was removed or its authorisation revoked: the store is disconnected, with `reason` (a default when absent)
   * shown as its `lastError`.
   */
  | { kind: 'uninstalled'; reason?: string }
  /**
   * Something the merchant must act on (an authorisation about to expire): shown as the store's `lastError` until it
   * reconnects.
   */
  | { kind: 'store_warning'; message: string }
  /** The store's catalogue changed (a product created, updated or deleted): its listings are synced again soon. */
  | { kind: 'listings_changed' }
  /** Privacy requests: erase personal data of these store orders (or the whole store). */
  | { kind: 'redact'; externalOrderIds: string[] | 'all' }
  | { kind: 'ignored'; reason: string };

/**
 * A call to one of the connector's own endpoints (`/connectors/<slug>/<name>`, see `Connector.endpoints`), as it
 * arrived.
 */
export interface EndpointCall {
  method: 'GET' | 'POST';
  /** The endpoint's public URL without query, as the platform was given it: `<PUBLIC_URL>/connectors/<slug>/<name>`. */
  url: string;
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** The raw body (empty for a GET): verify on these bytes. */
  rawBody: Buffer;
}

/**
 * What an endpoint answers: `ok` is 200 with `body` (204 without one), after core has erased and disconnected the
 * stores of `accountDeleted` (the platform's user deleted their account: every store whose `externalId` is listed loses
 * the personal data held for it, as a `redact` of `all` does, and is disconnected with `reason`). Not `ok`:
 * `invalid_request` is a 400, `not_verified` (a signature that does not verify) a 412 `notification_not_verified`.
 */
export type EndpointAnswer =
  | { ok: true; body?: Record<string, unknown>; accountDeleted?: { externalIds: string[]; reason: string } }
  | { ok: false; problem: 'invalid_request' | 'not_verified'; message: string };

/** Path segments core serves itself under `/connectors/<slug>/`: not a connector endpoint's name. */
export const RESERVED_ENDPOINTS = ['webhooks', 'install', 'callback', 'credentials', 'install-links'] as const;
