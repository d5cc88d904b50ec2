import { sql } from 'kysely';
import { listEnvelope, resolvePage } from '../../http/pagination.ts';
import type { Tenant } from '../orders/orders-service.ts';
import { matchedSkuKeys, productsBySkuKey, type ProductsBySku } from './listing-products.ts';
import type { StoreConnections } from './store-connections.ts';
import type { StoresContext } from './stores-context.ts';

/** `GET /stores/{id}/listings`: the listings a sync stored (listing-syncer.ts), matched to the reseller's products. */
export class StoreListings {
  readonly #deps: StoresContext & { connections: StoreConnections; products: ProductsBySku };

  /** `products`: the reseller products, by SKU (listings are matched through it, never its table). */
  constructor(deps: StoresContext & { connections: StoreConnections; products: ProductsBySku }) {
    this.#deps = deps;
  }

  /** The store's listings, each with the reseller product it matches (in the store's mode) or null. */
  async listListings(tenant: Tenant, storeId: string, query: { matched?: boolean | undefined; limit?: number | undefined; cursor?: string | undefined }) {
    const { db, cursors, connections, products: bySku } = this.#deps;
    const store = await connections.row(tenant, storeId);
    const page = resolvePage(cursors, 'store_listings', query);
    let q = db.selectFrom('store_listings').select(['id', 'external_product_id', 'external_variant_id', 'sku', 'sku_key', 'title', 'active', 'seen_at']).where('store_id', '=', storeId);
    if (query.matched !== undefined) {
      // Matched: the listing's SKU is a product of the store's reseller and mode (asked of the reseller products).
      const keys = await matchedSkuKeys(db, bySku, store);
      const matched = sql<boolean>`coalesce(sku_key = any(${keys}::text[]), false)`;
      q = q.where(query.matched ? matched : sql<boolean>`not ${matched}`);
    }
    if (page.after) q = q.where('id', '>', String(page.after[0]));
    const rows = await q.orderBy('id').limit(page.limit + 1).execute();
    const products = await productsBySkuKey(bySku, { resellerId: store.reseller_id, mode: store.mode }, rows.slice(0, page.limit).map((r) => r.sku_key));
    return listEnvelope(cursors, 'store_listings', page, rows, (r) => [r.id], (r) => {
      const product = r.sku_key ? products.get(r.sku_key) : undefined;
      return {
        id: r.id,
        externalProductId: r.external_product_id,
        externalVariantId: r.external_variant_id || null,
        sku: r.sku,
        title: r.title,
        active: r.active,
        resellerProduct: product ? { id: product.id, sku: product.sku } : null,
        seenAt: r.seen_at.toISOString(),
      };
    });
  }
}
