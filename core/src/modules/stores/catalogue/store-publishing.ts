import { ConnectorError, type Connector, type PublishedListing, type StoreConnection } from '@print-api/connector-kit';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import { SafeFetchError } from '../../../infra/safe-fetch/safe-fetch.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { notFound, Refusal, rejected, wrongState } from '../../../kernel/refusal.ts';
import type { StoreCalls } from '../outbound/store-calls.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import { claimIntent, markInterrupted, recordPublished, requestHash, SWEEP_INTENT_MS } from './publication-intents.ts';
import { publicationView, type PublicationRow, type PublicationView } from './publication-view.ts';
import { publishInProgress, publishingRefusal } from './publishing-refusals.ts';
import type { StoreLocales } from './store-locales.ts';
import type { StoresContext } from '../stores-context.ts';

/** What `POST /stores/{id}/listings` asks for, its reseller product resolved. */
export interface PublishInput {
  resellerProduct: { id: string; sku: string };
  title: string;
  description?: string | undefined;
  priceCents: number;
  currency?: string | undefined;
  imageUrls: string[];
  published: boolean;
  platformOptions?: Record<string, unknown> | undefined;
}

export interface PublicationChanges {
  title?: string | undefined;
  priceCents?: number | undefined;
  published?: boolean | undefined;
}

export interface StorePublishingDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context' | 'logger'> {
  connections: StoreConnections;
  calls: StoreCalls;
  /** The store's currency (and country), asked of its platform once. */
  locales: StoreLocales;
  /** The SSRF guard's check of a URL (scheme, DNS, public addresses only), sending nothing. */
  checkImageUrl: (url: string) => Promise<void>;
  /** The store's catalogue changed by our hand: its listings are synced again. */
  listingsChanged: (store: StoreRow) => Promise<void>;
}

/** How long a request waits for one of the store's calls when its budget is spent, before answering 503. */
const CALL_WAIT_MS = 3000;
/** Listings pages read at most when recovering an intent (the product the lost call may have made). */
const RECOVERY_PAGES = 50;

/**
 * Publishing reseller products to stores: the product created in the store by its connector
 * (`publishListing`) with the reseller product's SKU and the merchant's price, and linked to it
 * (a link made by us, `discovered` false, guarding the product's deletion like the others).
 *
 * Never two products for one request: the intent is written (`publishing`) before the platform
 * is called, one per store and reseller product. A platform's refusal removes it; a call whose
 * outcome is unknown (no answer, a crash) leaves it, and the next request for the product first
 * looks for it among the store's listings (by SKU) before asking the platform again.
 */
export class StorePublishing {
  readonly #deps: StorePublishingDeps;

  constructor(deps: StorePublishingDeps) {
    this.#deps = deps;
  }

  /** Creates the product in the store; `created` false for a repeat of an earlier request (same Idempotency-Key). */
  async publish(
    tenant: Tenant,
    storeId: string,
    input: PublishInput,
    idempotencyKey?: string,
  ): Promise<{ listing: PublicationView; created: boolean }> {
    const { db } = this.#deps;
    const store = await this.#connectedStore(tenant, storeId);
    const connector = this.#publisher(store);
    const hash = requestHash(input);
    if (idempotencyKey) {
      const earlier = await db
        .selectFrom('store_publications')
        .selectAll()
        .where('store_id', '=', store.id)
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirst();
      if (earlier && earlier.request_hash !== hash)
        throw rejected('idempotency_key_reused', 'The Idempotency-Key was used for a different request.');
      if (earlier && earlier.status !== 'publishing') return { listing: publicationView(earlier), created: false };
    }
    await this.#checkImages(input.imageUrls);
    const connection = await this.#connection(store, connector);
    const { currency } = await this.#platformCall(connector, () => this.#deps.locales.of(store, connector, connection));
    if (input.currency && input.currency !== currency)
      throw rejected(
        'currency_mismatch',
        `The store sells in ${currency}, not ${input.currency}: give priceCents in ${currency} minor units (or leave currency out).`,
      );
    const { row, recovering } = await claimIntent(db, store, input, currency, idempotencyKey, hash);
    const ctx = this.#deps.context(store.platform);
    const draft = {
      sku: row.sku,
      title: input.title,
      description: input.description,
      priceCents: input.priceCents,
      currency,
      imageUrls: input.imageUrls,
      published: input.published,
      platformOptions: input.platformOptions,
    };
    let published: PublishedListing | null;
    try {
      published = recovering ? await this.#findBySku(store, connector, connection, row.sku) : null;
      published ??= await connector.publishListing!(
        ctx,
        recovering ? await this.#connection(store, connector) : connection,
        draft,
      );
    } catch (err) {
      // Refused: nothing was made, the intent goes and a corrected request may publish. No answer
      // (or anything else): the product may exist, and the next request looks for it first.
      if (err instanceof ConnectorError && err.kind !== 'upstream_unavailable')
        await db.deleteFrom('store_publications').where('id', '=', row.id).execute();
      else await markInterrupted(db, row.id);
      throw publishingRefusal(connector, err);
    }
    const saved = await recordPublished(db, row, published);
    await this.#deps.listingsChanged(store);
    return { listing: publicationView(saved), created: true };
  }

  /** One published listing; a `pending` one is read again from the platform (`getListing`). */
  async get(tenant: Tenant, storeId: string, listingId: string): Promise<PublicationView> {
    const { store, row } = await this.#find(tenant, storeId, listingId);
    const connector = this.#deps.connectors.get(store.platform);
    if (row.status !== 'pending' || !connector?.getListing || !row.external_product_id) return publicationView(row);
    const connection = await this.#connection(store, connector);
    const now = await this.#platformCall(connector, () =>
      connector.getListing!(this.#deps.context(store.platform), connection, ref(row)),
    );
    return publicationView(await recordPublished(this.#deps.db, row, now));
  }

  /** Pushes a change of title, price or visibility to the store. */
  async update(
    tenant: Tenant,
    storeId: string,
    listingId: string,
    changes: PublicationChanges,
  ): Promise<PublicationView> {
    const { store, row } = await this.#find(tenant, storeId, listingId);
    if (store.status !== 'connected') throw wrongState('store_disconnected', `Store ${store.id} is disconnected.`);
    const connector = this.#publisher(store);
    if (!row.external_product_id) throw publishInProgress(row);
    const connection = await this.#connection(store, connector);
    const now = await this.#platformCall(connector, () =>
      connector.updateListing!(this.#deps.context(store.platform), connection, ref(row), {
        ...changes,
        currency: row.currency,
      }),
    );
    // Some platforms give the product new ids on a change (Etsy's inventory products): the link follows.
    if (now.externalProductId !== row.external_product_id || now.externalVariantId !== row.external_variant_id) {
      const moved = await recordPublished(this.#deps.db, row, now);
      if (row.link_id && row.link_id !== moved.link_id)
        await this.#deps.db.deleteFrom('store_links').where('id', '=', row.link_id).execute();
    }
    const updated = await this.#deps.db
      .updateTable('store_publications')
      .set({
        title: changes.title ?? row.title,
        price_cents: changes.priceCents ?? row.price_cents,
        status: now.status,
        updated_at: new Date(),
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.#deps.listingsChanged(store);
    return publicationView(updated);
  }

  /** Archives (unpublishes) the product in the store, then forgets the listing and its link. */
  async unpublish(tenant: Tenant, storeId: string, listingId: string): Promise<{ id: string; deleted: true }> {
    const { store, row } = await this.#find(tenant, storeId, listingId);
    if (store.status !== 'connected') throw wrongState('store_disconnected', `Store ${store.id} is disconnected.`);
    const connector = this.#publisher(store);
    if (!row.external_product_id) throw publishInProgress(row);
    const connection = await this.#connection(store, connector);
    await this.#platformCall(connector, () =>
      connector.unpublishListing!(this.#deps.context(store.platform), connection, ref(row)),
    );
    await this.#deps.db.transaction().execute(async (trx) => {
      if (row.link_id) await trx.deleteFrom('store_links').where('id', '=', row.link_id).execute();
      await trx.deleteFrom('store_publications').where('id', '=', row.id).execute();
    });
    await this.#deps.listingsChanged(store);
    return { id: row.id, deleted: true };
  }

  /**
   * The sweep (a maintenance task): intents a crash left `publishing` (no request has come back for them in
   * SWEEP_INTENT_MS) are finished where the store has the product with their SKU (recorded and linked, as the request
   * would have), and undone where it has not (a publish may then be asked again). Each is taken by one sweeper.
   */
  async recoverInterrupted(limit = 20): Promise<{ finished: number; undone: number }> {
    const { db, logger } = this.#deps;
    const rows = await db
      .selectFrom('store_publications')
      .innerJoin('stores', 'stores.id', 'store_publications.store_id')
      .selectAll('store_publications')
      .where('store_publications.status', '=', 'publishing')
      .where('store_publications.updated_at', '<', new Date(Date.now() - SWEEP_INTENT_MS))
      .where('stores.status', '=', 'connected')
      .orderBy('store_publications.updated_at')
      .limit(limit)
      .execute();
    const done = { finished: 0, undone: 0 };
    for (const row of rows) {
      try {
        const store = await db
          .selectFrom('stores')
          .selectAll()
          .where('id', '=', row.store_id)
          .executeTakeFirstOrThrow();
        const connector = this.#deps.connectors.get(store.platform);
        if (!connector?.listListings) continue;
        const taken = await db
          .updateTable('store_publications')
          .set({ updated_at: new Date() })
          .where('id', '=', row.id)
          .where('status', '=', 'publishing')
          .where('updated_at', '=', row.updated_at)
          .returningAll()
          .executeTakeFirst();
        if (!taken) continue;
        const connection = await this.#deps.calls.connectionWithin(store, CALL_WAIT_MS);
        const found = await this.#findBySku(store, connector, connection, row.sku);
        if (found) {
          await recordPublished(db, taken, found);
          await this.#deps.listingsChanged(store);
          done.finished++;
        } else {
          await db
            .deleteFrom('store_publications')
            .where('id', '=', row.id)
            .where('status', '=', 'publishing')
            .execute();
          done.undone++;
        }
      } catch (err) {
        logger.warn('interrupted publish not recovered; the next sweep tries again', {
          listing: row.id,
          error: (err as Error).message,
        });
      }
    }
    return done;
  }

  /** The stores (of the owner) a reseller product is published to, for its page. */
  async publishedOf(
    tenant: Tenant,
    resellerProductId: string,
  ): Promise<Array<PublicationView & { store: { id: string; name: string; platform: string } }>> {
    const rows = await this.#deps.db
      .selectFrom('store_publications')
      .innerJoin('stores', 'stores.id', 'store_publications.store_id')
      .selectAll('store_publications')
      .select(['stores.name as store_name', 'stores.platform as store_platform'])
      .where('store_publications.reseller_product_id', '=', resellerProductId)
      .where('stores.reseller_id', '=', tenant.resellerId)
      .where('stores.mode', '=', tenant.mode)
      .orderBy('store_publications.created_at')
      .execute();
    return rows.map((r) => ({
      ...publicationView(r),
      store: { id: r.store_id, name: r.store_name, platform: r.store_platform },
    }));
  }

  async #connectedStore(tenant: Tenant, storeId: string): Promise<StoreRow> {
    const store = await this.#deps.connections.row(tenant, storeId);
    if (store.status !== 'connected') throw wrongState('store_disconnected', `Store ${store.id} is disconnected.`);
    return store;
  }

  async #find(tenant: Tenant, storeId: string, listingId: string): Promise<{ store: StoreRow; row: PublicationRow }> {
    const store = await this.#deps.connections.row(tenant, storeId);
    const row = await this.#deps.db
      .selectFrom('store_publications')
      .selectAll()
      .where('id', '=', listingId)
      .where('store_id', '=', store.id)
      .executeTakeFirst();
    if (!row) throw notFound('published listing', listingId);
    return { store, row };
  }

  /** The store's connector, if it publishes; else 422 with what the merchant can do instead. */
  #publisher(store: StoreRow): Connector<unknown> {
    const connector = this.#deps.connectors.get(store.platform);
    if (connector?.manifest.capabilities.publishing && connector.publishListing) return connector;
    const name = connector?.manifest.displayName ?? store.platform;
    const advice =
      connector?.manifest.publishingAdvice ??
      `Create the product in your ${name} store with your product's SKU, then map it with POST /stores/{id}/links.`;
    throw rejected('not_supported_by_platform', `${name} stores cannot be published to from here. ${advice}`);
  }

  async #checkImages(urls: string[]): Promise<void> {
    for (const [i, url] of urls.entries()) {
      try {
        await this.#deps.checkImageUrl(url);
      } catch (err) {
        if (!(err instanceof SafeFetchError)) throw err;
        throw rejected('invalid_image_url', `imageUrls[${i}] is refused: ${err.message}.`, [
          { field: `imageUrls[${i}]`, code: err.code, message: err.message, url },
        ]);
      }
    }
  }

  /** The store's connection after one of its calls, waiting a little for one when its budget is spent. */
  async #connection(store: StoreRow, connector: Connector<unknown>): Promise<StoreConnection<unknown>> {
    try {
      return await this.#deps.calls.connectionWithin(store, CALL_WAIT_MS);
    } catch (err) {
      if (err instanceof RetryLaterError)
        throw new Refusal(
          'store_rate_limited',
          `${connector.manifest.displayName} allows only so many calls for a store: try again in ${Math.ceil(err.retryAfterMs / 1000)} s.`,
          undefined,
          { retryAfter: Math.max(1, Math.ceil(err.retryAfterMs / 1000)) },
        );
      throw err;
    }
  }

  /** The product a lost call may have made: the store's listing carrying the SKU, if any. */
  async #findBySku(
    store: StoreRow,
    connector: Connector<unknown>,
    connection: StoreConnection<unknown>,
    sku: string,
  ): Promise<PublishedListing | null> {
    if (!connector.listListings) return null;
    const ctx = this.#deps.context(store.platform);
    let cursor: string | null = null;
    for (let page = 0; page < RECOVERY_PAGES; page++) {
      if (page > 0) await this.#connection(store, connector);
      const result = await connector.listListings(ctx, connection, cursor);
      const hit = result.listings.find((l) => l.sku?.trim().toLowerCase() === sku.toLowerCase());
      if (hit)
        return {
          externalProductId: hit.externalProductId,
          externalVariantId: hit.externalVariantId,
          status: hit.active ? 'active' : 'draft',
        };
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return null;
  }

  /** A platform call of a request, its typed failures answered in the API's words. */
  async #platformCall<T>(connector: Connector<unknown>, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw publishingRefusal(connector, err);
    }
  }
}

function ref(row: PublicationRow): { externalProductId: string; externalVariantId: string | null } {
  return { externalProductId: row.external_product_id!, externalVariantId: row.external_variant_id };
}
