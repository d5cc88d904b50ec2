import type { Connector, ConnectorContext, StoreConnection } from '@print-api/connector-kit';
import { LRUCache } from 'lru-cache';
import { sql, type Selectable } from 'kysely';
import { wrongState, notFound, rejected } from '../refusal.ts';
import { listEnvelope, resolvePage, type CursorCodec, type ListEnvelope } from '../../http/pagination.ts';
import { invalidRequest } from '../../http/validation.ts';
import type { SecretBox } from '../../infra/crypto.ts';
import { newId } from '../../infra/ids.ts';
import type { Tenant } from '../orders/orders-service.ts';
import type { LinkedProduct, LinkRegistry } from '../reseller-products/reseller-products-service.ts';
import type { Db } from '../tables.ts';
import { answeringFor } from './connector-errors.ts';
import { matchedSkuKeys, productsBySkuKey, type ProductsBySku } from './listing-products.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import { UNMATCHED_REASONS } from './order-ingester.ts';
import { storeNotices } from './store-notices.ts';
import type { StoreIngestsTable, StoreLinksTable, StoresTable } from './stores-tables.ts';

export type StoreRow = Selectable<StoresTable>;

export interface StoreView {
  id: string;
  platform: string;
  externalId: string;
  name: string;
  status: 'connected' | 'disconnected';
  testMode: boolean;
  lastPolledAt: string | null;
  lastError: string | null;
  createdAt: string;
  disconnectedAt: string | null;
  /** Reminders from the platform's connector (storeNotices), and what the last poll repaired (for a week). */
  notices: string[];
}

/**
 * Connected stores and their links: credentials are checked by the platform's connector,
 * sealed at rest and never shown again. Disconnecting keeps the history, stops ingestion
 * and releases the SKU guard.
 */

/** A connected store that sells a reseller product, and its listings of it (none for a link alone). */
export interface LinkedStore {
  id: string;
  platform: string;
  name: string;
  listings: Array<{ externalProductId: string; externalVariantId: string | null; title: string }>;
}

/** How long a recorded link is taken to exist before it is written again (idempotently). */
const KNOWN_LINK_MS = 10 * 60_000;
export class StoresService implements LinkRegistry {
  readonly #db: Db;
  readonly #box: SecretBox;
  /** Discovered links recorded lately, trusted to exist for KNOWN_LINK_MS (see discoverLink). */
  readonly #knownLinks = new LRUCache<string, true>({ max: 10_000, ttl: KNOWN_LINK_MS });
  readonly #cursors: CursorCodec;
  readonly #connectors: ConnectorRegistry;
  readonly #context: (platform: string) => ConnectorContext;
  readonly #onConnected: (store: StoreRow) => Promise<void>;
  readonly #products: ProductsBySku;

  constructor(deps: {
    db: Db;
    box: SecretBox;
    cursors: CursorCodec;
    connectors: ConnectorRegistry;
    context: (platform: string) => ConnectorContext;
    onConnected: (store: StoreRow) => Promise<void>;
    /** The reseller products, by SKU (listings are matched through it, never its table). */
    products: ProductsBySku;
  }) {
    this.#db = deps.db;
    this.#products = deps.products;
    this.#box = deps.box;
    this.#cursors = deps.cursors;
    this.#connectors = deps.connectors;
    this.#context = deps.context;
    this.#onConnected = deps.onConnected;
  }

  connector(platform: string): Connector<any> {
    const c = this.#connectors.get(platform);
    if (!c) throw rejected('unsupported_platform', `No connector for ${platform} is enabled.`, [{ field: 'platform', code: 'unsupported_platform', allowedValues: this.#connectors.all().map((x) => x.manifest.platform) }]);
    return c;
  }

  /** `POST /stores`: the connector checks the credentials with the platform. */
  async connect(tenant: Tenant, platform: string, input: Record<string, unknown>): Promise<StoreView> {
    const connector = this.connector(platform);
    const parsed = connector.manifest.connectSchema.safeParse(input);
    if (!parsed.success) throw invalidRequest(parsed.error.issues, 'body', `The ${connector.manifest.displayName} connection fields are invalid`);
    const connection = await answeringFor(connector.manifest.displayName, 'credentials', () => connector.connect(this.#context(platform), parsed.data), this.#context(platform).logger);
    return this.#view(await this.saveConnection(tenant, platform, connection));
  }

  /** Stores (or reconnects) a verified connection, then lets the pipeline register webhooks and polling. */
  async saveConnection(tenant: Tenant, platform: string, connection: StoreConnection<unknown>): Promise<StoreRow> {
    const now = new Date();
    const existing = await this.#db.selectFrom('stores').selectAll().where('platform', '=', platform).where('external_id', '=', connection.externalId).where('status', '=', 'connected').executeTakeFirst();
    if (existing && (existing.reseller_id !== tenant.resellerId || existing.mode !== tenant.mode)) {
      throw wrongState('store_connected_elsewhere', `The ${platform} store ${connection.externalId} is already connected to another account.`);
    }
    const values = {
      name: connection.name,
      credentials_sealed: this.#box.sealJson(connection.credentials),
      webhook_secret_sealed: connection.webhookSecret ? this.#box.seal(connection.webhookSecret) : (existing?.webhook_secret_sealed ?? null),
      updated_at: now,
      last_error: null,
    };
    const row = existing
      ? await this.#db.updateTable('stores').set(values).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow()
      : await this.#db
          .insertInto('stores')
          .values({ id: newId('sto', now.getTime()), reseller_id: tenant.resellerId, mode: tenant.mode, platform, external_id: connection.externalId, status: 'connected', poll_cursor: null, last_polled_at: null, created_at: now, disconnected_at: null, ...values })
          .returningAll()
          .executeTakeFirstOrThrow();
    try {
      await this.#onConnected(row);
    } catch (err) {
      // The store is connected; webhooks could not be registered. Polling catches orders up, and the merchant sees why.
      const reason = `Webhooks could not be registered: ${(err as Error).message}`;
      return this.#db.updateTable('stores').set({ last_error: reason, updated_at: new Date() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    }
    return row;
  }

  async list(tenant: Tenant, query: { limit?: number | undefined; cursor?: string | undefined }): Promise<ListEnvelope<StoreView>> {
    const page = resolvePage(this.#cursors, 'stores', query);
    let q = this.#db.selectFrom('stores').selectAll().where('reseller_id', '=', tenant.resellerId).where('mode', '=', tenant.mode);
    if (page.after) {
      const [createdAt, id] = page.after;
      q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(new Date(String(createdAt)), String(id))));
    }
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
    return listEnvelope(this.#cursors, 'stores', page, rows, (r) => [r.created_at.toISOString(), r.id], (r) => this.#view(r));
  }

  async get(tenant: Tenant, id: string): Promise<StoreView> {
    return this.#view(await this.row(tenant, id));
  }

  async row(tenant: Tenant, id: string): Promise<StoreRow> {
    const row = await this.#db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.reseller_id !== tenant.resellerId || row.mode !== tenant.mode) throw notFound('store', id);
    return row;
  }

  async disconnect(tenant: Tenant, id: string): Promise<StoreView> {
    await this.row(tenant, id);
    return this.#view(await this.markDisconnected(id));
  }

  async markDisconnected(id: string, reason?: string): Promise<StoreRow> {
    const now = new Date();
    return this.#db
      .updateTable('stores')
      .set({ status: 'disconnected', disconnected_at: now, updated_at: now, ...(reason ? { last_error: reason } : {}) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Shows something the merchant must act on as the store's `lastError` (cleared when it reconnects). */
  async noteProblem(id: string, message: string): Promise<void> {
    await this.#db.updateTable('stores').set({ last_error: message, updated_at: new Date() }).where('id', '=', id).where('status', '=', 'connected').execute();
  }

  /** The connection as the connector needs it (credentials decrypted once per sealed value, parsed anew each time). */
  connection(row: StoreRow): StoreConnection<unknown> {
    return {
      id: row.id,
      externalId: row.external_id,
      name: row.name,
      credentials: JSON.parse(this.#box.openRemembered(row.credentials_sealed)) as unknown,
      webhookSecret: row.webhook_secret_sealed ? this.#box.openRemembered(row.webhook_secret_sealed) : undefined,
    };
  }

  /** The store's webhook secret, for checking a delivery's signature (opened once per sealed value). */
  webhookSecret(row: StoreRow): string | undefined {
    return row.webhook_secret_sealed ? this.#box.openRemembered(row.webhook_secret_sealed) : undefined;
  }

  /**
   * Records a link seen on a store order (its listing sells this SKU) unless it is known: one
   * statement the first time, none after (the links recorded lately are remembered).
   */
  async discoverLink(store: StoreRow, resellerProductId: string, sku: string, externalProductId: string | null, externalVariantId: string | null): Promise<void> {
    const key = [store.id, resellerProductId, externalProductId ?? '', externalVariantId ?? ''].join('\u0000');
    if (this.#knownLinks.has(key)) return;
    const now = new Date();
    await this.#db
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

  /**
   * Renews a store's credentials under a lock every process shares (a PostgreSQL advisory lock
   * held by the transaction): `renew` gets the connection as stored at that moment (another
   * process may have just renewed it) and answers new credentials, stored before the lock is
   * released, or null (still good). Answers the credentials in force. Platforms that rotate the
   * refresh token need it: two processes renewing at once would spend the same refresh token twice.
   */
  async renewCredentials(id: string, renew: (current: StoreConnection<unknown>) => Promise<unknown>): Promise<unknown> {
    return this.#db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`store-credentials:${id}`}))`.execute(trx);
      const current = this.connection(await trx.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
      const renewed = await renew(current);
      if (renewed === null || renewed === undefined) return current.credentials;
      await trx.updateTable('stores').set({ credentials_sealed: this.#box.sealJson(renewed), updated_at: new Date() }).where('id', '=', id).execute();
      return renewed;
    });
  }

  async updateCredentials(id: string, credentials: unknown): Promise<void> {
    await this.#db.updateTable('stores').set({ credentials_sealed: this.#box.sealJson(credentials), updated_at: new Date() }).where('id', '=', id).execute();
  }

  async setWebhookSecret(id: string, secret: string): Promise<void> {
    await this.#db.updateTable('stores').set({ webhook_secret_sealed: this.#box.seal(secret), updated_at: new Date() }).where('id', '=', id).execute();
  }

  async findConnected(platform: string, externalId: string): Promise<StoreRow | undefined> {
    return this.#db.selectFrom('stores').selectAll().where('platform', '=', platform).where('external_id', '=', externalId).where('status', '=', 'connected').executeTakeFirst();
  }

  async findById(id: string): Promise<StoreRow | undefined> {
    return this.#db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async connectedStores(platform?: string): Promise<StoreRow[]> {
    let q = this.#db.selectFrom('stores').selectAll().where('status', '=', 'connected');
    if (platform) q = q.where('platform', '=', platform);
    return q.execute();
  }

  // Links

  async listLinks(tenant: Tenant, storeId: string): Promise<Array<ReturnType<typeof linkView>>> {
    await this.row(tenant, storeId);
    const rows = await this.#db.selectFrom('store_links').selectAll().where('store_id', '=', storeId).orderBy('created_at').execute();
    return rows.map(linkView);
  }

  async addLink(
    tenant: Tenant,
    storeId: string,
    input: { resellerProductId: string; sku: string; externalProductId?: string | null | undefined; externalVariantId?: string | null | undefined },
    discovered = false,
  ): Promise<ReturnType<typeof linkView>> {
    await this.row(tenant, storeId);
    const now = new Date();
    await this.#db
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
    const row = await this.#db
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
    await this.row(tenant, storeId);
    const deleted = await this.#db.deleteFrom('store_links').where('id', '=', linkId).where('store_id', '=', storeId).executeTakeFirst();
    this.#knownLinks.clear();
    if (Number(deleted.numDeletedRows) === 0) throw notFound('store link', linkId);
    return { id: linkId, deleted: true };
  }

  async countLinks(resellerProductIds: string[]): Promise<Map<string, number>> {
    if (resellerProductIds.length === 0) return new Map();
    const rows = await this.#db
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
    const linked = await this.#db
      .selectFrom('store_links')
      .innerJoin('stores', 'stores.id', 'store_links.store_id')
      .select(['stores.id', 'stores.platform', 'stores.name'])
      .where('store_links.reseller_product_id', '=', product.id)
      .where('stores.status', '=', 'connected')
      .distinct()
      .execute();
    const listings = await this.#db
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

  // Listings

  /** `GET /stores/{id}/listings`: the store's listings, each with the reseller product it matches (in the store's mode) or null. */
  async listListings(tenant: Tenant, storeId: string, query: { matched?: boolean | undefined; limit?: number | undefined; cursor?: string | undefined }) {
    const store = await this.row(tenant, storeId);
    const page = resolvePage(this.#cursors, 'store_listings', query);
    let q = this.#db.selectFrom('store_listings').select(['id', 'external_product_id', 'external_variant_id', 'sku', 'sku_key', 'title', 'active', 'seen_at']).where('store_id', '=', storeId);
    if (query.matched !== undefined) {
      // Matched: the listing's SKU is a product of the store's reseller and mode (asked of the reseller products).
      const keys = await matchedSkuKeys(this.#db, this.#products, store);
      const matched = sql<boolean>`coalesce(sku_key = any(${keys}::text[]), false)`;
      q = q.where(query.matched ? matched : sql<boolean>`not ${matched}`);
    }
    if (page.after) q = q.where('id', '>', String(page.after[0]));
    const rows = await q.orderBy('id').limit(page.limit + 1).execute();
    const products = await productsBySkuKey(this.#products, { resellerId: store.reseller_id, mode: store.mode }, rows.slice(0, page.limit).map((r) => r.sku_key));
    return listEnvelope(this.#cursors, 'store_listings', page, rows, (r) => [r.id], (r) => {
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

  async removeLinksOf(resellerProductId: string): Promise<void> {
    await this.#db.deleteFrom('store_links').where('reseller_product_id', '=', resellerProductId).execute();
    this.#knownLinks.clear();
  }

  // Ingests

  async listIngests(tenant: Tenant, storeId: string, query: { status?: StoreIngestsTable['status'] | 'skipped' | undefined; limit?: number | undefined; cursor?: string | undefined }) {
    await this.row(tenant, storeId);
    const page = resolvePage(this.#cursors, 'store_ingests', query);
    let q = this.#db.selectFrom('store_ingests').selectAll().where('store_id', '=', storeId);
    if (query.status === 'skipped') {
      // As isSkippedOrder says: nothing placed, and a line skipped for a SKU that is none of the reseller's active products.
      q = q
        .where('status', '=', 'no_print_lines')
        .where(sql<boolean>`exists (select 1 from jsonb_array_elements(skipped_lines) as line where line->>'reason' in (${sql.join([...UNMATCHED_REASONS])}))`);
    } else if (query.status) q = q.where('status', '=', query.status);
    if (page.after) {
      const [createdAt, id] = page.after;
      q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(new Date(String(createdAt)), String(id))));
    }
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
    return listEnvelope(this.#cursors, 'store_ingests', page, rows, (r) => [r.created_at.toISOString(), r.id], ingestView);
  }

  #view(row: StoreRow): StoreView {
    return {
      id: row.id,
      platform: row.platform,
      externalId: row.external_id,
      name: row.name,
      status: row.status,
      testMode: row.mode === 'test',
      lastPolledAt: row.last_polled_at?.toISOString() ?? null,
      lastError: row.last_error,
      createdAt: row.created_at.toISOString(),
      disconnectedAt: row.disconnected_at?.toISOString() ?? null,
      notices: storeNotices(row, this.#connectors.get(row.platform), () => this.connection(row)),
    };
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
