import { sql } from 'kysely';
import { listEnvelope, resolvePage } from '../../../kernel/pagination.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { matchedSkuKeys, productsBySkuKey, type ProductsBySku } from './listing-products.ts';
import type { StoreConnections } from '../connect/store-connections.ts';
import { mappedProduct, type StoreLinks } from './store-links.ts';
import type { StoresContext } from '../stores-context.ts';

/** `GET /stores/{id}/listings`: the listings a sync stored (listing-syncer.ts), matched to the reseller's products. */
export class StoreListings {
  readonly #deps: Pick<StoresContext, 'db' | 'cursors'> & {
    connections: StoreConnections;
    products: ProductsBySku;
    links: StoreLinks;
  };

  /**
   * `products`: the reseller products, by SKU (listings are matched through it, never its table); `links`: the store's
   * mappings.
   */
  constructor(
    deps: Pick<StoresContext, 'db' | 'cursors'> & {
      connections: StoreConnections;
      products: ProductsBySku;
      links: StoreLinks;
    },
  ) {
    this.#deps = deps;
  }

  /**
   * The store's listings, each with how its orders print: as the reseller product with its SKU
   * (in the store's mode), else as the product it is mapped to (a variant's link before its
   * product's; mappedProduct), else not at all.
   */
  async listListings(
    tenant: Tenant,
    storeId: string,
    query: { matched?: boolean | undefined; limit?: number | undefined; cursor?: string | undefined },
  ) {
    const { db, cursors, connections, products: bySku, links } = this.#deps;
    const store = await connections.row(tenant, storeId);
    const page = resolvePage(cursors, 'store_listings', query);
    let q = db
      .selectFrom('store_listings')
      .select(['id', 'external_product_id', 'external_variant_id', 'sku', 'sku_key', 'title', 'active', 'seen_at'])
      .where('store_id', '=', storeId);
    if (query.matched !== undefined) {
      // Matched: the listing's SKU is a product of the store's reseller and mode (asked of the reseller products), or
      // the merchant mapped it.
      const keys = await matchedSkuKeys(db, bySku, store);
      const mapped = sql<boolean>`exists (select 1 from store_links l where l.store_id = store_listings.store_id and not l.discovered and l.external_product_id = store_listings.external_product_id and (l.external_variant_id is null or l.external_variant_id = store_listings.external_variant_id))`;
      const matched = sql<boolean>`(coalesce(sku_key = any(${keys}::text[]), false) or ${mapped})`;
      q = q.where(query.matched ? matched : sql<boolean>`not ${matched}`);
    }
    if (page.after) q = q.where('id', '>', String(page.after[0]));
    const rows = await q
      .orderBy('id')
      .limit(page.limit + 1)
      .execute();
    const shown = rows.slice(0, page.limit);
    const mappings = await links.mappings(
      storeId,
      shown.map((r) => r.external_product_id),
    );
    const owner = { resellerId: store.reseller_id, mode: store.mode };
    const products = await productsBySkuKey(bySku, owner, [
      ...shown.map((r) => r.sku_key),
      ...mappings.map((m) => m.sku.toLowerCase()),
    ]);
    return listEnvelope(
      cursors,
      'store_listings',
      page,
      rows,
      (r) => [r.id],
      (r) => {
        const bySkuKey = r.sku_key ? products.get(r.sku_key) : undefined;
        const mapped = bySkuKey
          ? undefined
          : mappedProduct(mappings, products, r.external_product_id, r.external_variant_id || null);
        const product = bySkuKey ?? mapped?.product;
        const resellerProduct = product ? { id: product.id, sku: product.sku } : null;
        return {
          id: r.id,
          externalProductId: r.external_product_id,
          externalVariantId: r.external_variant_id || null,
          sku: r.sku,
          title: r.title,
          active: r.active,
          resellerProduct,
          match: {
            by: bySkuKey ? ('sku' as const) : mapped ? ('link' as const) : null,
            resellerProduct,
            linkId: mapped?.mapping.id ?? null,
          },
          seenAt: r.seen_at.toISOString(),
        };
      },
    );
  }
}
