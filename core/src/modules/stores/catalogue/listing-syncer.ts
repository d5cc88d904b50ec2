import { ConnectorError, type Connector, type StoreConnection, type StoreListing } from '@print-api/connector-kit';
import { sql } from 'kysely';
import { RetryLaterError } from '../../../infra/queue/job-queue.ts';
import { newId } from '../../../infra/ids.ts';
import { productsBySkuKey, type ProductsBySku } from './listing-products.ts';
import type { StoreCalls } from '../outbound/store-calls.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoreLinks } from './store-links.ts';
import type { StoreLocales } from './store-locales.ts';
import type { StoresContext } from '../stores-context.ts';

/** How often a store's listings are synced when nothing asks sooner (the safety net behind the product webhooks). */
export const LISTINGS_INTERVAL_MS = 60 * 60_000;
/**
 * The schedule asks again for a store whose sync was asked for (and has not completed) no sooner
 * than this: a store whose listings cannot be read (a token without the scope, a platform down
 * for hours) is not called on every maintenance tick.
 */
export const LISTINGS_RETRY_MS = 10 * 60_000;
/** A product webhook has the listings synced this much later: the edits of one save arrive together. */
export const LISTINGS_SOON_MS = 5_000;
/** How a failed listings run begins on the store's lastError (and how a complete run finds it to clear). */
export const LISTINGS_FAILED = 'Listings could not be read: ';
/** Runs one job makes before it hands the store to the next job (a queue's other stores get their turn). */
const MAX_RUNS_PER_JOB = 3;
/** Discovered links written per statement. */
const LINKS_BATCH = 500;

export interface ListingSyncerDeps extends Pick<StoresContext, 'db' | 'connectors' | 'context' | 'logger'> {
  connections: StoreConnections;
  links: StoreLinks;
  calls: StoreCalls;
  /** The store's currency and country, asked once after its first complete run. */
  locales: StoreLocales;
  /** Queues the store's listings job number `seq` (one per store at a time; an id of its own per number). */
  queueSync: (store: StoreRow, seq: number, delayMs: number) => Promise<void>;
  /** The reseller products, by SKU (listings are matched through it, never its table). */
  products: ProductsBySku;
}

/**
 * Store listings: the catalogue each connected store sells, read from its platform
 * (`listListings`), so that a reseller product a store lists is linked (and guarded) from the
 * moment the store is connected, not from its first order.
 *
 * A run reads every page, each under the platform's rate limit (a call slot per page) and each
 * written by its own statement (no transaction stays open across platform calls); its cursor is
 * kept on the store, so a run that waits for the limit goes on where it stopped. A complete run
 * then removes the listings it did not see and brings the store's discovered links in line:
 * every listing whose SKU is one of the reseller's products (in the store's mode) is a link, and
 * a discovered link whose listing is gone (or sells another SKU now) is removed. Links added by
 * hand stay. A sync asked for while a run is under way is followed by another run.
 */
export class ListingSyncer {
  readonly #deps: ListingSyncerDeps;

  constructor(deps: ListingSyncerDeps) {
    this.#deps = deps;
  }

  /** Whether the store's platform lists its catalogue. */
  canSync(store: StoreRow): boolean {
    return this.#deps.connectors.get(store.platform)?.listListings !== undefined;
  }

  /**
   * Asks for the store's listings to be synced (`delayMs` from now): on connect, on POST
   * /stores/{id}/sync, on a product webhook. The request is recorded on the store first; then a
   * job is queued only if none is live. A live job sees the request: it clears its flag only in
   * the statement that checks no request came after its run began (`#release`), so a request is
   * either seen by the live job or finds the flag clear and queues a job of its own, under a new
   * id (a queue folds an add into a job of the same id that is still running, even one that has
   * finished looking).
   */
  async requestSync(store: StoreRow, delayMs = 0): Promise<void> {
    if (!this.canSync(store)) return;
    await this.#deps.db
      .updateTable('stores')
      .set({ listings_requested_at: sql<Date>`now()` })
      .where('id', '=', store.id)
      .execute();
    const queued = await this.#deps.db
      .updateTable('stores')
      .set((eb) => ({ listings_job_live: true, listings_job_seq: eb('listings_job_seq', '+', 1) }))
      .where('id', '=', store.id)
      .where('listings_job_live', '=', false)
      .returning('listings_job_seq')
      .executeTakeFirst();
    if (queued) await this.#deps.queueSync(store, queued.listings_job_seq, delayMs);
  }

  /** `requestSync`, its failure (the queue unreachable) logged, not thrown: the hourly schedule asks again. */
  async requestSyncQuietly(store: StoreRow, delayMs = 0): Promise<void> {
    await this.requestSync(store, delayMs).catch((err: Error) =>
      this.#deps.logger.warn('store listings sync not queued; the schedule will ask again', {
        storeId: store.id,
        error: err.message,
      }),
    );
  }

  /**
   * The listings job: runs (or goes on with) the store's listings run until it is complete. A
   * run the platform refuses shows on the store as its `lastError` (a grant without the scope
   * to read listings: the merchant must reconnect), cleared by the next complete run; waiting
   * for a rate limit is no failure.
   */
  async sync(storeId: string): Promise<void> {
    try {
      await this.#sync(storeId);
    } catch (err) {
      if (!waitsForABudget(err))
        await this.#deps.connections.noteProblem(storeId, `${LISTINGS_FAILED}${(err as Error).message}`);
      throw err;
    }
  }

  /**
   * The store's job failed for good (the platform refused it, or its attempts ran out): it lets go
   * of the store, so that the next request (a reconnect, a product webhook, the schedule) queues one.
   */
  async letGo(storeId: string): Promise<void> {
    await this.#release(storeId, null);
  }

  async #sync(storeId: string): Promise<void> {
    for (let run = 0; ; run++) {
      const store = await this.#deps.connections.findById(storeId);
      if (!store || store.status !== 'connected' || !this.canSync(store)) {
        await this.#release(storeId, null);
        return;
      }
      if (run === MAX_RUNS_PER_JOB) {
        await this.#handOver(store);
        return;
      }
      const startedAt = await this.#run(store);
      // Asked for again while this run read the store: what changed may have been read already, or not.
      if (await this.#release(storeId, startedAt)) return;
    }
  }

  /**
   * Clears the store's live-job flag, in one statement with the check that no sync was asked for
   * after `startedAt` (null: whatever was asked, the store is not synced now); false when one was,
   * and the job must run again.
   */
  async #release(storeId: string, startedAt: Date | null): Promise<boolean> {
    const released = await this.#deps.db
      .updateTable('stores')
      .set({ listings_job_live: false })
      .where('id', '=', storeId)
      .$if(startedAt !== null, (q) =>
        q.where((eb) =>
          eb.or([eb('listings_requested_at', 'is', null), eb('listings_requested_at', '<=', startedAt!)]),
        ),
      )
      .executeTakeFirst();
    return Number(released.numUpdatedRows) > 0;
  }

  /** A store asked for again and again (a product webhook storm) is handed to a job of the next number, soon. */
  async #handOver(store: StoreRow): Promise<void> {
    const next = await this.#deps.db
      .updateTable('stores')
      .set((eb) => ({ listings_job_seq: eb('listings_job_seq', '+', 1) }))
      .where('id', '=', store.id)
      .returning('listings_job_seq')
      .executeTakeFirstOrThrow();
    await this.#deps.queueSync(store, next.listings_job_seq, LISTINGS_SOON_MS);
  }

  /** One run, page after page; answers when it began. */
  async #run(store: StoreRow): Promise<Date> {
    const connector = this.#deps.connectors.get(store.platform)!;
    const ctx = this.#deps.context(store.platform);
    let startedAt = store.listings_run_started_at;
    let cursor = startedAt ? store.listings_cursor : null;
    if (!startedAt) {
      const started = await this.#deps.db
        .updateTable('stores')
        .set({ listings_run_started_at: sql<Date>`now()`, listings_cursor: null })
        .where('id', '=', store.id)
        .returning('listings_run_started_at')
        .executeTakeFirstOrThrow();
      startedAt = started.listings_run_started_at!;
    }
    const connection = await this.#deps.calls.connection(store);
    for (let page = 0; ; page++) {
      if (page > 0) await this.#deps.calls.slot(store);
      const result = await connector.listListings!(ctx, connection, cursor);
      await this.#save(store.id, result.listings, startedAt);
      cursor = result.nextCursor;
      if (!cursor) break;
      await this.#deps.db.updateTable('stores').set({ listings_cursor: cursor }).where('id', '=', store.id).execute();
    }
    await this.#complete(store, startedAt);
    await this.#learnLocale(store.id, connector, connection);
    return startedAt;
  }

  /**
   * The store's currency and country, asked of its platform once it is readable (so the
   * dashboard knows the country before anything is published). A failure is only logged: the
   * next run, or the first publish, asks again.
   */
  async #learnLocale(
    storeId: string,
    connector: Connector<unknown>,
    connection: StoreConnection<unknown>,
  ): Promise<void> {
    const store = await this.#deps.connections.findById(storeId);
    if (!store || this.#deps.locales.learned(store)) return;
    try {
      await this.#deps.calls.slot(store);
      await this.#deps.locales.of(store, connector, connection);
    } catch (err) {
      this.#deps.logger.warn('store currency and country not learned; asked again later', {
        storeId,
        error: (err as Error).message,
      });
    }
  }

  /** A page of listings, written in one statement (a listing repeated within the page once). */
  async #save(storeId: string, listings: StoreListing[], seenAt: Date): Promise<void> {
    const rows = new Map<string, StoreListing>();
    for (const l of listings) rows.set(`${l.externalProductId}\u0000${l.externalVariantId ?? ''}`, l);
    if (rows.size === 0) return;
    const now = new Date();
    await this.#deps.db
      .insertInto('store_listings')
      .values(
        [...rows.values()].map((l) => {
          const sku = l.sku?.trim() || null;
          return {
            id: newId('lst', now.getTime()),
            store_id: storeId,
            external_product_id: l.externalProductId,
            external_variant_id: l.externalVariantId ?? '',
            sku,
            sku_key: sku?.toLowerCase() ?? null,
            title: l.title,
            active: l.active,
            seen_at: seenAt,
            created_at: now,
          };
        }),
      )
      .onConflict((oc) =>
        oc.columns(['store_id', 'external_product_id', 'external_variant_id']).doUpdateSet((eb) => ({
          sku: eb.ref('excluded.sku'),
          sku_key: eb.ref('excluded.sku_key'),
          title: eb.ref('excluded.title'),
          active: eb.ref('excluded.active'),
          seen_at: eb.ref('excluded.seen_at'),
        })),
      )
      .execute();
  }

  /** A complete run: the listings it did not see are gone; the discovered links follow the listings. */
  async #complete(store: StoreRow, startedAt: Date): Promise<void> {
    const removed = await this.#deps.db
      .deleteFrom('store_listings')
      .where('store_id', '=', store.id)
      .where('seen_at', '<', startedAt)
      .executeTakeFirst();
    const matched = await this.#linkMatched(store);
    // A discovered link stands for a listing that sells its product's SKU: gone with the listing.
    const kept = new Set(matched.map((m) => linkKey(m.product_id, m.external_product_id, m.external_variant_id)));
    const discovered = await this.#deps.db
      .selectFrom('store_links')
      .select(['id', 'reseller_product_id', 'external_product_id', 'external_variant_id'])
      .where('store_id', '=', store.id)
      .where('discovered', '=', true)
      .execute();
    const gone = discovered
      .filter(
        (l) => !kept.has(linkKey(l.reseller_product_id, l.external_product_id ?? '', l.external_variant_id ?? '')),
      )
      .map((l) => l.id);
    let unlinked = 0;
    for (let i = 0; i < gone.length; i += LINKS_BATCH) {
      const deleted = await this.#deps.db
        .deleteFrom('store_links')
        .where('id', 'in', gone.slice(i, i + LINKS_BATCH))
        .executeTakeFirst();
      unlinked += Number(deleted.numDeletedRows);
    }
    this.#deps.links.forgetKnownLinks();
    await this.#deps.db
      .updateTable('stores')
      .set({ listings_run_started_at: null, listings_cursor: null, listings_synced_at: sql<Date>`now()` })
      .where('id', '=', store.id)
      .execute();
    // A failed listings run's message goes with the first run that completes.
    await this.#deps.db
      .updateTable('stores')
      .set({ last_error: null })
      .where('id', '=', store.id)
      .where('last_error', 'like', `${LISTINGS_FAILED}%`)
      .execute();
    this.#deps.logger.info('store listings synced', {
      storeId: store.id,
      removedListings: Number(removed.numDeletedRows),
      removedLinks: unlinked,
    });
  }

  /**
   * Every listing whose SKU is one of the reseller's products (in the store's mode, asked of the
   * reseller products' service) becomes a discovered link; the matches, for the links to keep.
   */
  async #linkMatched(
    store: StoreRow,
  ): Promise<Array<{ product_id: string; sku: string; external_product_id: string; external_variant_id: string }>> {
    const listings = await this.#deps.db
      .selectFrom('store_listings')
      .select(['sku_key', 'external_product_id', 'external_variant_id'])
      .where('store_id', '=', store.id)
      .where('sku_key', 'is not', null)
      .execute();
    const products = await productsBySkuKey(
      this.#deps.products,
      { resellerId: store.reseller_id, mode: store.mode },
      listings.map((l) => l.sku_key),
    );
    const matched = listings.flatMap((l) => {
      const product = products.get(l.sku_key!);
      return product
        ? [
            {
              product_id: product.id,
              sku: product.sku,
              external_product_id: l.external_product_id,
              external_variant_id: l.external_variant_id,
            },
          ]
        : [];
    });
    const now = new Date();
    for (let i = 0; i < matched.length; i += LINKS_BATCH) {
      await this.#deps.db
        .insertInto('store_links')
        .values(
          matched.slice(i, i + LINKS_BATCH).map((m) => ({
            id: newId('lnk', now.getTime()),
            store_id: store.id,
            reseller_product_id: m.product_id,
            sku: m.sku,
            external_product_id: m.external_product_id,
            external_variant_id: m.external_variant_id || null,
            discovered: true,
            created_at: now,
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    return matched;
  }

  /**
   * Queues a sync of every connected store whose listings are older than the interval (the
   * maintenance loop calls this). A store whose job is live but was asked for longer than the
   * retry interval ago has its job queued again under the same id: a no-op while that job waits
   * or runs, its replacement when the job was lost (the queue unreachable when it was added) or
   * failed for good.
   */
  async scheduleSyncs(intervalMs = LISTINGS_INTERVAL_MS): Promise<number> {
    let n = 0;
    const retryMs = Math.min(intervalMs, LISTINGS_RETRY_MS);
    for (const store of await this.#deps.connections.connectedStores()) {
      if (!this.canSync(store)) continue;
      const askedAgo = store.listings_requested_at ? Date.now() - store.listings_requested_at.getTime() : null;
      if (store.listings_job_live) {
        if (askedAgo !== null && askedAgo < retryMs) continue;
        await this.#deps.queueSync(store, store.listings_job_seq, 0);
        n++;
        continue;
      }
      if (store.listings_synced_at && Date.now() - store.listings_synced_at.getTime() < intervalMs) continue;
      if (askedAgo !== null && askedAgo < retryMs) continue;
      await this.requestSync(store);
      n++;
    }
    return n;
  }
}

/**
 * A run that stopped to wait for a call budget: the platform's (it answered 429) or the store's own (`StoreCalls.slot`:
 * its calls per window spent, by the connect flow's calls for instance). Neither is a failure the merchant should see.
 */
function waitsForABudget(err: unknown): boolean {
  return (err instanceof ConnectorError && err.kind === 'rate_limited') || err instanceof RetryLaterError;
}

/** A discovered link's identity: the product and the listing (no variant: ''). */
function linkKey(productId: string, externalProductId: string, externalVariantId: string): string {
  return JSON.stringify([productId, externalProductId, externalVariantId]);
}
