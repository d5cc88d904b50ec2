import { LRUCache } from 'lru-cache';
import type { Selectable } from 'kysely';
import { notFound, rejected, wrongState } from '../../../kernel/refusal.ts';
import { newId } from '../../../infra/ids.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import type { LinkedProduct } from '../../reseller-products/reseller-products-service.ts';
import type { StoreConnections, StoreRow } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';
import type { StoreLinksTable } from '../stores-tables.ts';

/** A connected store that sells a reseller product, and its listings of it (none for a link alone). */
export interface LinkedStore {
  id: string;
  platform: string;
  name: string;
  listings: Array<{ externalProductId: string; externalVariantId: string | null; title: string }>;
}

/** A link the merchant made for a listing: its orders print as the product (see mappingOf). */
export interface StoreMapping {
  id: string;
  reseller_product_id: string;
  sku: string;
  external_product_id: string;
  external_variant_id: string | null;
}

/**
 * The mapping a store line (or listing) follows when its SKU matches none of the reseller's
 * products: a link to its variant first, then a link to its product without a variant. Only
 * links the merchant made count: a discovered link only says which SKU the listing sold once,
 * and must not print the listing as that product after its SKU changed.
 */
export function mappingOf(
  mappings: readonly StoreMapping[],
  externalProductId: string | null | undefined,
  externalVariantId: string | null | undefined,
): StoreMapping | undefined {
  if (!externalProductId) return undefined;
  const ofProduct = mappings.filter((m) => m.external_product_id === externalProductId);
  return (
    (externalVariantId ? ofProduct.find((m) => m.external_variant_id === externalVariantId) : undefined) ??
    ofProduct.find((m) => m.external_variant_id === null)
  );
}

/**
 * The reseller product a store line (or listing) is mapped to (mappingOf), found among
 * `products` (by lower-cased SKU, as the SKU lookups answer); none when the mapped product's SKU
 * has changed since the link was made (a store disconnected meanwhile).
 */
export function mappedProduct<P extends { id: string }>(
  mappings: readonly StoreMapping[],
  products: ReadonlyMap<string, P>,
  externalProductId: string | null | undefined,
  externalVariantId: string | null | undefined,
): { mapping: StoreMapping; product: P } | undefined {
  const mapping = mappingOf(mappings, externalProductId, externalVariantId);
  const product = mapping ? products.get(mapping.sku.toLowerCase()) : undefined;
  return mapping && product?.id === mapping.reseller_product_id ? { mapping, product } : undefined;
}

/** How long a recorded link is taken to exist before it is written again (idempotently). */
const KNOWN_LINK_MS = 10 * 60_000;

/**
 * Store links: a reseller product a store sells, made by hand or discovered on an order. They
 * are the SKU guard (a linked product cannot be deleted; the reseller products ask through LinkRegistry).
 */
export class StoreLinks {
  readonly #deps: Pick<StoresContext, 'db'> & { connections: StoreConnections };
  /** Discovered links recorded lately, trusted to exist for KNOWN_LINK_MS (see discoverLink). */
  readonly #knownLinks = new LRUCache<string, true>({ max: 10_000, ttl: KNOWN_LINK_MS });

  constructor(deps: Pick<StoresContext, 'db'> & { connections: StoreConnections }) {
    this.#deps = deps;
  }

  /**
   * Records a link seen on a store order (its listing sells this SKU) unless it is known: one
   * statement the first time, none after (the links recorded lately are remembered).
   */
  async discoverLink(
    store: StoreRow,
    resellerProductId: string,
    sku: string,
    externalProductId: string | null,
    externalVariantId: string | null,
  ): Promise<void> {
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
    const rows = await this.#deps.db
      .selectFrom('store_links')
      .selectAll()
      .where('store_id', '=', storeId)
      .orderBy('created_at')
      .execute();
    return rows.map(linkView);
  }

  /**
   * Links a listing (or the whole store) to a reseller product. A link that names a listing is a
   * mapping (see mappingOf): the listing's orders print as the product whatever SKU they carry.
   * A discovered link for the same listing and product becomes the merchant's own (a listings
   * sync no longer removes it). A listing maps to one product: mapping it to another is refused
   * until that link is removed. Under the store's row lock, so two requests cannot map one
   * listing twice.
   */
  async addLink(
    tenant: Tenant,
    storeId: string,
    input: {
      resellerProductId: string;
      sku: string;
      externalProductId?: string | null | undefined;
      externalVariantId?: string | null | undefined;
    },
    discovered = false,
  ): Promise<ReturnType<typeof linkView>> {
    const { db, connections } = this.#deps;
    const store = await connections.row(tenant, storeId);
    const productId = input.externalProductId ?? null;
    const variantId = input.externalVariantId ?? null;
    if (productId !== null && store.listings_synced_at !== null)
      await this.#refuseUnlisted(storeId, productId, variantId);
    const row = await db.transaction().execute(async (trx) => {
      await trx.selectFrom('stores').select('id').where('id', '=', storeId).forUpdate().executeTakeFirstOrThrow();
      if (productId !== null && !discovered) {
        const other = await trx
          .selectFrom('store_links')
          .selectAll()
          .where('store_id', '=', storeId)
          .where('discovered', '=', false)
          .where('external_product_id', '=', productId)
          .where((eb) => eb(eb.fn.coalesce('external_variant_id', eb.val('')), '=', variantId ?? ''))
          .where('reseller_product_id', '!=', input.resellerProductId)
          .executeTakeFirst();
        if (other) {
          const named = `listing ${productId}${variantId ? ` (variant ${variantId})` : ''}`;
          throw wrongState(
            'listing_already_mapped',
            `The store's ${named} is mapped to your product ${other.sku} already (link ${other.id}): remove that link first to map it to another product.`,
            [
              {
                field: 'externalProductId',
                code: 'listing_already_mapped',
                linkId: other.id,
                resellerProductId: other.reseller_product_id,
              },
            ],
          );
        }
      }
      const now = new Date();
      await trx
        .insertInto('store_links')
        .values({
          id: newId('lnk', now.getTime()),
          store_id: storeId,
          reseller_product_id: input.resellerProductId,
          sku: input.sku,
          external_product_id: productId,
          external_variant_id: variantId,
          discovered,
          created_at: now,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      // Made by hand now: the merchant's own, whoever found it first (a discovered one stays as found).
      return trx
        .updateTable('store_links')
        .set((eb) => ({ discovered: discovered ? eb.ref('discovered') : false }))
        .where('store_id', '=', storeId)
        .where('reseller_product_id', '=', input.resellerProductId)
        .where((eb) => eb(eb.fn.coalesce('external_product_id', eb.val('')), '=', productId ?? ''))
        .where((eb) => eb(eb.fn.coalesce('external_variant_id', eb.val('')), '=', variantId ?? ''))
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return linkView(row);
  }

  /** 422 unknown_listing when the store's catalogue (synced) has no such listing: a mistyped id would map nothing. */
  async #refuseUnlisted(storeId: string, productId: string, variantId: string | null): Promise<void> {
    const listed = await this.#deps.db
      .selectFrom('store_listings')
      .select('id')
      .where('store_id', '=', storeId)
      .where('external_product_id', '=', productId)
      .$if(variantId !== null, (qb) => qb.where('external_variant_id', '=', variantId!))
      .limit(1)
      .executeTakeFirst();
    if (listed) return;
    const named = `product ${productId}${variantId ? ` with variant ${variantId}` : ''}`;
    throw rejected(
      'unknown_listing',
      `The store's catalogue has no ${named} (as last synced): use an externalProductId (and externalVariantId) from GET /stores/${storeId}/listings, or POST /stores/${storeId}/sync first if you added it just now.`,
      [{ field: variantId ? 'externalVariantId' : 'externalProductId', code: 'unknown_listing' }],
    );
  }

  /** The store's explicit links (made by hand, never discovered) to any of these store products: its mappings. */
  async mappings(storeId: string, externalProductIds: Iterable<string | null | undefined>): Promise<StoreMapping[]> {
    const ids = [...new Set([...externalProductIds].filter((id): id is string => !!id))];
    if (ids.length === 0) return [];
    const rows = await this.#deps.db
      .selectFrom('store_links')
      .select(['id', 'reseller_product_id', 'sku', 'external_product_id', 'external_variant_id'])
      .where('store_id', '=', storeId)
      .where('discovered', '=', false)
      .where('external_product_id', 'in', ids)
      .orderBy('created_at')
      .execute();
    return rows.flatMap(({ external_product_id, ...r }) =>
      external_product_id === null ? [] : [{ ...r, external_product_id }],
    );
  }

  async removeLink(tenant: Tenant, storeId: string, linkId: string): Promise<{ id: string; deleted: true }> {
    await this.#deps.connections.row(tenant, storeId);
    const deleted = await this.#deps.db
      .deleteFrom('store_links')
      .where('id', '=', linkId)
      .where('store_id', '=', storeId)
      .executeTakeFirst();
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
      .select([
        'stores.id',
        'stores.platform',
        'stores.name',
        'store_listings.external_product_id',
        'store_listings.external_variant_id',
        'store_listings.title',
      ])
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
      store.listings.push({
        externalProductId: l.external_product_id,
        externalVariantId: l.external_variant_id || null,
        title: l.title,
      });
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
