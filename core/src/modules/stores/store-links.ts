import { LRUCache } from 'lru-cache';
import type { Selectable } from 'kysely';
import { notFound } from '../refusal.ts';
import { newId } from '../../infra/ids.ts';
import type { Tenant } from '../orders/orders-service.ts';
import type { LinkedProduct } from '../reseller-products/reseller-products-service.ts';
import type { StoreConnections, StoreRow } from './store-connections.ts';
import type { StoresContext } from './stores-context.ts';
import type { StoreLinksTable } from './stores-tables.ts';

/** A connected store that sells a reseller product, and its listings of it (none for a link alone). */
export interface LinkedStore {
  id: string;
  platform: string;
  name: string;
  listings: Array<{ externalProductId: string; externalVariantId: string | null; title: string }>;
}

/** How long a recorded link is taken to exist before it is written again (idempotently). */
const KNOWN_LINK_MS = 10 * 60_000;

/**
 * Store links: a reseller product a store sells, made by hand or discovered on an order. They
 * are the SKU guard (a linked product cannot be deleted; the reseller products ask through LinkRegistry).
 */
export class StoreLinks {
  readonly #deps: StoresContext & { connections: StoreConnections };
  /** Discovered links recorded lately, trusted to exist for KNOWN_LINK_MS (see discoverLink). */
  readonly #knownLinks = new LRUCache<string, true>({ max: 10_000, ttl: KNOWN_LINK_MS });

  constructor(deps: StoresContext & { connections: StoreConnections }) {
    this.#deps = deps;
  }

  /**
   * Records a link seen on a store order (its listing sells this SKU) unless it is known: one
   * statement the first time, none after (the links recorded lately are remembered).
   */
  async discoverLink(store: StoreRow, resellerProductId: string, sku: string, externalProductId: string | null, externalVariantId: string | null): Promise<void> {
    const key = [store.id, resellerProductId, externalProductId ?? '', externalVariantId ?? ''].join('\u0000');
    if (this.#knownLinks.has(key)) return;
    const now = new Date();
    await this.#deps.db
      .insertInto('store_links')
      .values({
        id: newId('lnk', now.getTime()),
        store_id: store.id,
        reseller_product_id: resellerProductId,
        sku,
        external_product_id: externalProductId,
        external_variant_id: externalVariantId,
        discovered: true,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
    // Remembered for a while only: a link deleted through another process is found again later.
    this.#knownLinks.set(key, true);
  }

  /** Forgets the links recorded lately (a listings sync removed some: an order may discover them again). */
  forgetKnownLinks(): void {
    this.#knownLinks.clear();
  }

  async listLinks(tenant: Tenant, storeId: string): Promise<Array<ReturnType<typeof linkView>>> {
    await this.#deps.connections.row(tenant, storeId);
    const rows = await this.#deps.db.selectFrom('store_links').selectAll().where('store_id', '=', storeId).orderBy('created_at').execute();
    return rows.map(linkView);
  }

  async addLink(
    tenant: Tenant,
    storeId: string,
    input: { resellerProductId: string; sku: string; externalProductId?: string | null | undefined; externalVariantId?: string | null | undefined },
    discovered = false,
  ): Promise<ReturnType<typeof linkView>> {
    const { db, connections } = this.#deps;
    await connections.row(tenant, storeId);
    const now = new Date();
    await db
      .insertInto('store_links')
      .values({
        id: newId('lnk', now.getTime()),
        store_id: storeId,
        reseller_product_id: input.resellerProductId,
        sku: input.sku,
        external_product_id: input.externalProductId ?? null,
        external_variant_id: input.externalVariantId ?? null,
        discovered,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const row = await db
      .selectFrom('store_links')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('reseller_product_id', '=', input.resellerProductId)
      .where((eb) => eb(eb.fn.coalesce('external_product_id', eb.val('')), '=', input.externalProductId ?? ''))
      .where((eb) => eb(eb.fn.coalesce('external_variant_id', eb.val('')), '=', input.externalVariantId ?? ''))
      .executeTakeFirstOrThrow();
    return linkView(row);
  }

  async removeLink(tenant: Tenant, storeId: string, linkId: string): Promise<{ id: string; deleted: true }> {
    await this.#deps.connections.row(tenant, storeId);
    const deleted = await this.#deps.db.deleteFrom('store_links').where('id', '=', linkId).where('store_id', '=', storeId).executeTakeFirst();
    this.#knownLinks.clear();
    if (Number(deleted.numDeletedRows) === 0) throw notFound('store link', linkId);
    return { id: linkId, deleted: true };
  }

  async countLinks(resellerProductIds: string[]): Promise<Map<string, number>> {
    if (resellerProductIds.length === 0) return new Map();
    const rows = await this.#deps.db
      .selectFrom('store_links')
      .select((eb) => ['reseller_product_id', eb.fn.countAll<number>().as('n')])
      .where('reseller_product_id', 'in', resellerProductIds)
      .groupBy('reseller_product_id')
      .execute();
    return new Map(rows.map((r) => [r.reseller_product_id, Number(r.n)]));
  }

  /**
   * Connected stores that sell the product: linked to it (by a listing or by hand), or listing
   * its SKU (a listing synced before the product was made, not yet a link), with those listings.
   */
  async connectedStoresLinkedTo(product: LinkedProduct): Promise<LinkedStore[]> {
    const { db } = this.#deps;
    const linked = await db
      .selectFrom('store_links')
      .innerJoin('stores', 'stores.id', 'store_links.store_id')
      .select(['stores.id', 'stores.platform', 'stores.name'])
      .where('store_links.reseller_product_id', '=', product.id)
      .where('stores.status', '=', 'connected')
      .distinct()
      .execute();
    const listings = await db
      .selectFrom('store_listings')
      .innerJoin('stores', 'stores.id', 'store_listings.store_id')
      .select(['stores.id', 'stores.platform', 'stores.name', 'store_listings.external_product_id', 'store_listings.external_variant_id', 'store_listings.title'])
      .where('store_listings.sku_key', '=', product.skuKey)
      .where('stores.reseller_id', '=', product.resellerId)
      .where('stores.mode', '=', product.mode)
      .where('stores.status', '=', 'connected')
      .orderBy('stores.id')
      .limit(100)
      .execute();
    const stores = new Map<string, LinkedStore>(linked.map((s) => [s.id, { ...s, listings: [] }]));
    for (const l of listings) {
      const store = stores.get(l.id) ?? { id: l.id, platform: l.platform, name: l.name, listings: [] };
      store.listings.push({ externalProductId: l.external_product_id, externalVariantId: l.external_variant_id || null, title: l.title });
      stores.set(l.id, store);
    }
    return [...stores.values()];
  }

  async removeLinksOf(resellerProductId: string): Promise<void> {
    await this.#deps.db.deleteFrom('store_links').where('reseller_product_id', '=', resellerProductId).execute();
    // What was published of it to stores since disconnected goes with it.
    await this.#deps.db.deleteFrom('store_publications').where('reseller_product_id', '=', resellerProductId).execute();
    this.#knownLinks.clear();
  }
}

export function linkView(row: Selectable<StoreLinksTable>) {
  return {
    id: row.id,
    resellerProductId: row.reseller_product_id,
    sku: row.sku,
    externalProductId: row.external_product_id,
    externalVariantId: row.external_variant_id,
    discovered: row.discovered,
    createdAt: row.created_at.toISOString(),
  };
}
