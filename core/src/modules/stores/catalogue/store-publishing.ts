import { createHash } from 'node:crypto';
import {
  ConnectorError,
  PlatformOptionsRequired,
  type Connector,
  type PublishedListing,
  type StoreConnection,
} from '@print-api/connector-kit';
import type { Selectable } from 'kysely';
import { newId } from '../../../infra/ids.ts';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import { SafeFetchError } from '../../../infra/safe-fetch/safe-fetch.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { notFound, Refusal, rejected, wrongState } from '../../../kernel/refusal.ts';
import { DEFAULT_RATE_LIMIT_WAIT_MS } from '../connect/connector-errors.ts';
import type { StoreCalls } from '../outbound/store-calls.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoreLocales } from './store-locales.ts';
import type { StorePublicationsTable } from './store-publications-tables.ts';
import type { StoresContext } from '../stores-context.ts';

type PublicationRow = Selectable<StorePublicationsTable>;

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
/** An intent still `publishing` after this long has lost its request (a crash): the next request for it recovers it. */
export const STALE_INTENT_MS = 2 * 60_000;
/** An intent still `publishing` this long after its last request is finished or undone by the sweep. */
export const SWEEP_INTENT_MS = 2 * STALE_INTENT_MS;
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
    const { row, recovering } = await this.#claim(store, input, currency, idempotencyKey, hash);
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
      else await this.#markInterrupted(row.id);
      throw this.#refusal(connector, err);
    }
    const saved = await this.#record(row, published);
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
    return publicationView(await this.#record(row, now));
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
    if (!row.external_product_id) throw this.#inProgress(row);
    const connection = await this.#connection(store, connector);
    const now = await this.#platformCall(connector, () =>
      connector.updateListing!(this.#deps.context(store.platform), connection, ref(row), {
        ...changes,
        currency: row.currency,
      }),
    );
    // Some platforms give the product new ids on a change (Etsy's inventory products): the link follows.
    if (now.externalProductId !== row.external_product_id || now.externalVariantId !== row.external_variant_id) {
      const moved = await this.#record(row, now);
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
    if (!row.external_product_id) throw this.#inProgress(row);
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
          await this.#record(taken, found);
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

  /**
   * Writes the intent, one per store and reseller product. Another's answers 409 with it, unless
   * it lost its request (interrupted, or `publishing` past STALE_INTENT_MS): it is taken over
   * (`recovering`: its product may exist already).
   */
  async #claim(
    store: StoreRow,
    input: PublishInput,
    currency: string,
    idempotencyKey: string | undefined,
    hash: string,
  ): Promise<{ row: PublicationRow; recovering: boolean }> {
    const { db } = this.#deps;
    const now = new Date();
    const values = {
      sku: input.resellerProduct.sku,
      title: input.title,
      price_cents: input.priceCents,
      currency,
      idempotency_key: idempotencyKey ?? null,
      request_hash: hash,
      updated_at: now,
    };
    const inserted = await db
      .insertInto('store_publications')
      .values({
        id: newId('pub', now.getTime()),
        store_id: store.id,
        reseller_product_id: input.resellerProduct.id,
        status: 'publishing',
        external_product_id: null,
        external_variant_id: null,
        url: null,
        notice: null,
        link_id: null,
        created_at: now,
        ...values,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: inserted, recovering: false };
    const existing = await db
      .selectFrom('store_publications')
      .selectAll()
      .where('store_id', '=', store.id)
      .where('reseller_product_id', '=', input.resellerProduct.id)
      .executeTakeFirst();
    if (!existing) throw rejected('idempotency_key_reused', 'The Idempotency-Key was used for a different request.');
    const lost =
      existing.status === 'publishing' &&
      (existing.notice === INTERRUPTED || now.getTime() - existing.updated_at.getTime() > STALE_INTENT_MS);
    if (!lost) throw listingExists(store, existing);
    // Taken over by one request only: the row changes under the condition it was read with.
    const taken = await db
      .updateTable('store_publications')
      .set({ ...values, notice: null })
      .where('id', '=', existing.id)
      .where('updated_at', '=', existing.updated_at)
      .returningAll()
      .executeTakeFirst();
    if (!taken) throw listingExists(store, existing);
    return { row: taken, recovering: true };
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

  async #markInterrupted(id: string): Promise<void> {
    await this.#deps.db
      .updateTable('store_publications')
      .set({ notice: INTERRUPTED, updated_at: new Date() })
      .where('id', '=', id)
      .execute();
  }

  /** The platform's answer recorded with the link it makes, in one transaction. */
  async #record(row: PublicationRow, published: PublishedListing): Promise<PublicationRow> {
    return this.#deps.db.transaction().execute(async (trx) => {
      const now = new Date();
      const link = {
        store_id: row.store_id,
        reseller_product_id: row.reseller_product_id,
        external_product_id: published.externalProductId,
        external_variant_id: published.externalVariantId,
      };
      await trx
        .insertInto('store_links')
        .values({ id: newId('lnk', now.getTime()), sku: row.sku, discovered: false, created_at: now, ...link })
        .onConflict((oc) => oc.doNothing())
        .execute();
      // A listing sync may have discovered it first: ours now, kept when the listing is gone.
      const made = await trx
        .updateTable('store_links')
        .set({ discovered: false })
        .where('store_id', '=', link.store_id)
        .where('reseller_product_id', '=', link.reseller_product_id)
        .where('external_product_id', '=', link.external_product_id)
        .where((eb) => eb(eb.fn.coalesce('external_variant_id', eb.val('')), '=', link.external_variant_id ?? ''))
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx
        .updateTable('store_publications')
        .set({
          status: published.status,
          external_product_id: published.externalProductId,
          external_variant_id: published.externalVariantId,
          url: webUrl(published.url),
          notice: published.notice ?? null,
          link_id: made.id,
          updated_at: now,
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** A platform call of a request, its typed failures answered in the API's words. */
  async #platformCall<T>(connector: Connector<unknown>, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.#refusal(connector, err);
    }
  }

  #refusal(connector: Connector<unknown>, err: unknown): unknown {
    if (!(err instanceof ConnectorError)) return err;
    const name = connector.manifest.displayName;
    if (err instanceof PlatformOptionsRequired)
      return rejected(
        'platform_options_required',
        err.message,
        err.options.map((o) => ({
          field: `platformOptions.${o.option}`,
          code: 'platform_options_required',
          message: `Choose a ${o.label}.`,
          choices: o.choices,
        })),
      );
    switch (err.kind) {
      case 'invalid_payload':
        return rejected(
          'listing_rejected',
          err.message.startsWith(name) ? err.message : `${name} refused the listing: ${err.message}`,
        );
      case 'rate_limited': {
        const seconds = Math.max(1, Math.ceil((err.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS) / 1000));
        return new Refusal(
          'store_rate_limited',
          `${name} asked us to slow down: try again in ${seconds} s.`,
          undefined,
          { retryAfter: seconds },
        );
      }
      case 'auth':
        return rejected(
          'store_credentials_rejected',
          `${name} refused the store's credentials: ${err.message}. Connect the store again.`,
        );
      case 'upstream_unavailable':
        return new Refusal(
          'store_unreachable',
          `${name} did not answer: ${err.message}. Try again: the product is never created twice.`,
        );
    }
  }

  #inProgress(row: PublicationRow): Refusal {
    return wrongState('publish_in_progress', `Listing ${row.id} is still being published: try again in a moment.`);
  }
}

/**
 * A product page as a platform gave it (a WooCommerce permalink…), kept and shown only when it is an http(s) URL: a
 * `javascript:` or `data:` one would run in the dashboard's link.
 */
export function webUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** The notice of an intent whose call got no answer: the next request recovers it at once. */
const INTERRUPTED = 'interrupted';

function listingExists(store: StoreRow, row: PublicationRow): Refusal {
  return wrongState('listing_exists', `${row.sku} is published to store ${store.id} already as listing ${row.id}.`, [
    { code: 'listing_exists', field: 'resellerProduct', listing: publicationView(row) },
  ]);
}

function ref(row: PublicationRow): { externalProductId: string; externalVariantId: string | null } {
  return { externalProductId: row.external_product_id!, externalVariantId: row.external_variant_id };
}

function requestHash(input: PublishInput): string {
  const { resellerProduct, title, description, priceCents, currency, imageUrls, published, platformOptions } = input;
  return createHash('sha256')
    .update(
      JSON.stringify([
        resellerProduct.id,
        title,
        description ?? null,
        priceCents,
        currency ?? null,
        imageUrls,
        published,
        platformOptions ?? null,
      ]),
    )
    .digest('hex');
}

export type PublicationView = ReturnType<typeof publicationView>;

export function publicationView(row: PublicationRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    resellerProduct: { id: row.reseller_product_id, sku: row.sku },
    title: row.title,
    priceCents: row.price_cents,
    currency: row.currency,
    status: row.status,
    externalProductId: row.external_product_id,
    externalVariantId: row.external_variant_id,
    url: webUrl(row.url),
    notice:
      row.notice === INTERRUPTED
        ? 'The platform did not answer: publishing again looks for the product first, so it is never created twice.'
        : row.notice,
    matchedBy: 'sku' as const,
    linkId: row.link_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
