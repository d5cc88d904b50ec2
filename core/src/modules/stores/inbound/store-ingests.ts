import { sql, type RawBuilder, type Selectable } from 'kysely';
import { listEnvelope, resolvePage, newestFirst } from '../../../kernel/pagination.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { UNMATCHED_REASONS } from './order-ingester.ts';
import type { StoreConnections } from '../connect/store-connections.ts';
import type { StoresContext } from '../stores-context.ts';
import type { StoreIngestsTable } from '../stores-tables.ts';

/** `GET /stores/{id}/ingests`: what became of each of a store's orders. */
export class StoreIngests {
  readonly #deps: Pick<StoresContext, 'db' | 'cursors'> & { connections: StoreConnections };

  constructor(deps: Pick<StoresContext, 'db' | 'cursors'> & { connections: StoreConnections }) {
    this.#deps = deps;
  }

  async listIngests(
    tenant: Tenant,
    storeId: string,
    query: {
      status?: StoreIngestsTable['status'] | 'skipped' | undefined;
      externalProductId?: string | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
    },
  ) {
    const { db, cursors, connections } = this.#deps;
    await connections.row(tenant, storeId);
    const page = resolvePage(cursors, 'store_ingests', query);
    let q = db.selectFrom('store_ingests').selectAll().where('store_id', '=', storeId);
    if (query.status === 'skipped') q = q.where(skippedOnly());
    else if (query.status) q = q.where('status', '=', query.status);
    if (query.externalProductId !== undefined) q = q.where(ofListing(query.externalProductId));
    const rows = await newestFirst(q, page);
    return listEnvelope(cursors, 'store_ingests', page, rows, (r) => [r.created_at.toISOString(), r.id], ingestView);
  }
}

/**
 * Skipped store orders only, as isSkippedOrder says: nothing placed, and a line skipped because
 * the reseller could make it print (its SKU or its listing's mapping is none of their active products).
 */
export function skippedOnly(): RawBuilder<boolean> {
  return sql<boolean>`status = 'no_print_lines' and exists (select 1 from jsonb_array_elements(skipped_lines) as line where line->>'reason' in (${sql.join([...UNMATCHED_REASONS])}))`;
}

/**
 * Store orders with a line of the store product `externalProductId` skipped as unmatched. Those
 * recorded before the listings of skipped lines were (none recorded) are found by a skipped
 * line's SKU: one of that product's listings in the store sells it.
 */
export function ofListing(externalProductId: string): RawBuilder<boolean> {
  return sql<boolean>`(${externalProductId} = any(skipped_product_ids) or (cardinality(skipped_product_ids) = 0 and exists (
    select 1 from store_listings listing, jsonb_array_elements(skipped_lines) line
    where listing.store_id = store_ingests.store_id and listing.external_product_id = ${externalProductId} and listing.sku_key = lower(line->>'sku'))))`;
}

export function ingestView(row: Selectable<StoreIngestsTable>) {
  return {
    id: row.id,
    externalOrderId: row.external_order_id,
    externalName: row.external_name,
    status: row.status,
    orderId: row.order_id,
    skippedLines: row.skipped_lines,
    error: row.error,
    attempts: row.attempts,
    storeUpdatedAt: row.store_updated_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
