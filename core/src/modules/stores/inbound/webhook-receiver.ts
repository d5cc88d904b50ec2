import type { InboundWebhook, WebhookVerdict } from '@print-api/connector-kit';
import { LRUCache } from 'lru-cache';
import { Refusal } from '../../../kernel/refusal.ts';
import { sha256Hex } from '../../../infra/crypto.ts';
import { newId } from '../../../infra/ids.ts';
import { DeliveryWriter } from './delivery-writer.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoreCredentials } from '../connect/store-credentials.ts';
import type { StoresContext } from '../stores-context.ts';

/** How long a store read for a webhook's signature check is reused (a check that fails on it reads the store again). */
const STORE_FOR_WEBHOOK_MS = 10_000;

type Verified = Extract<WebhookVerdict, { ok: true }>;

/** The delivery's key for duplicates: the platform's event id, else a hash of the body. */
const eventKey = (verdict: Verified, req: InboundWebhook): string =>
  verdict.eventId ?? sha256Hex(req.rawBody.toString('latin1'));

/** What the platform is told about a delivery it may keep. */
export interface Receipt {
  received: true;
  duplicate?: boolean;
  ignored?: string;
}

export interface WebhookReceiverDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context'> {
  connections: StoreConnections;
  credentials: StoreCredentials;
  /** A delivery was stored: queue its ingestion. */
  stored: (platform: string, eventId: string) => void;
}

/**
 * Receiving: inbound webhooks are verified on the raw body, stored and acknowledged. Stored is
 * what the platform is told: the ingest job follows (`stored` hands the new delivery on), and
 * one lost on the way is the sweeper's. Duplicates are stored once.
 *
 * A delivery names its store in the path (`/connectors/<slug>/webhooks/<storeId>`, per-store
 * webhooks signed with the store's secret) or not (`/connectors/<slug>/webhooks`, or a path of
 * the connector's own such as Shopify's `compliance`): then the connector names it from the
 * delivery (`identifyStore`: a shop id, an instance id) and the app-level secret verifies.
 */
export class WebhookReceiver {
  readonly #deps: WebhookReceiverDeps;
  // ttlResolution 0: the age is read from the clock on each look-up, without a timer per look-up.
  readonly #storesForWebhooks = new LRUCache<string, StoreRow>({
    max: 10_000,
    ttl: STORE_FOR_WEBHOOK_MS,
    ttlResolution: 0,
  });
  readonly #writer: DeliveryWriter;

  constructor(deps: WebhookReceiverDeps) {
    this.#deps = deps;
    this.#writer = new DeliveryWriter(deps.db);
  }

  /**
   * `POST /connectors/<slug>/webhooks[/<path>]`: verify, store, answer. Forged or stale
   * deliveries are refused (401 invalid_signature) and nothing is stored.
   */
  async receive(slug: string, req: InboundWebhook): Promise<Receipt> {
    const connector = this.#deps.connectors.bySlug(slug);
    if (!connector) throw new Refusal('not_found', `No connector '${slug}' is enabled.`);
    const platform = connector.manifest.platform;
    const pathStoreId = req.path.split('/').find((p) => p.startsWith('sto_'));
    let store: StoreRow | undefined;
    let reused = false;
    if (pathStoreId) {
      store = this.#storesForWebhooks.get(pathStoreId);
      reused = store !== undefined;
      store ??= await this.#storeById(pathStoreId);
    }
    const verify = (row: StoreRow | undefined) =>
      connector.verifyWebhook(req, {
        storeSecret: row ? this.#deps.credentials.webhookSecret(row) : undefined,
        settings: this.#deps.connectors.settings(platform),
      });
    if (!pathStoreId) {
      const external = connector.identifyStore?.(req);
      if (external) {
        // Most app-level deliveries verify with the app's secret alone: then the insert finds the
        // connected store itself, one round trip. Nothing stored (a duplicate, a store we do not
        // know, a disconnected one) or a store's own secret needed: the long way below decides.
        const appVerdict = await verify(undefined);
        if (appVerdict.ok && appVerdict.acknowledgeOnly) return { received: true };
        if (appVerdict.ok) {
          const id = newId('whe');
          const row = { id, platform, eventKey: eventKey(appVerdict, req), topic: appVerdict.topic };
          const stored = await this.#writer.storeForConnected(
            { ...row, headers: req.headers, rawBody: req.rawBody, path: req.path, receivedAt: new Date() },
            external,
          );
          if (stored) {
            this.#deps.stored(platform, id);
            return { received: true, duplicate: false };
          }
        }
        // A disconnected store still receives privacy requests (Shopify's shop/redact comes 48 h after uninstall).
        store =
          (await this.#deps.connections.findConnected(platform, external)) ??
          (await this.#latestStore(platform, external));
      }
    }
    let verdict = await verify(store);
    // The store's secret may have changed since it was read (a reconnect registers new webhooks): read it again.
    if (!verdict.ok && reused) verdict = await verify((store = await this.#storeById(pathStoreId!)));
    if (!verdict.ok) throw new Refusal('invalid_signature', verdict.reason);
    if (verdict.acknowledgeOnly) return { received: true };
    if (!store || store.platform !== platform) return { received: true, ignored: 'unknown store' };
    const id = newId('whe');
    const inserted = await this.#writer.store({
      id,
      platform,
      storeId: store.id,
      eventKey: eventKey(verdict, req),
      topic: verdict.topic,
      headers: req.headers,
      rawBody: req.rawBody,
      path: req.path,
      receivedAt: new Date(),
    });
    if (inserted) this.#deps.stored(platform, id);
    return { received: true, duplicate: !inserted };
  }

  async #storeById(id: string): Promise<StoreRow | undefined> {
    const store = await this.#deps.connections.findById(id);
    if (store) this.#storesForWebhooks.set(id, store);
    return store;
  }

  async #latestStore(platform: string, externalId: string): Promise<StoreRow | undefined> {
    return this.#deps.db
      .selectFrom('stores')
      .selectAll()
      .where('platform', '=', platform)
      .where('external_id', '=', externalId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }
}
