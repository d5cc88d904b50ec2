import type { Connector, StoreConnection } from '@print-api/connector-kit';
import type { Selectable } from 'kysely';
import { wrongState, notFound, rejected } from '../../../kernel/refusal.ts';
import { listEnvelope, resolvePage, type ListEnvelope, newestFirst } from '../../../kernel/pagination.ts';
import { invalidRequest } from '../../../web/validation.ts';
import { newId } from '../../../infra/ids.ts';
import type { Tenant } from '../../../kernel/tenant.ts';
import { answeringFor } from './connector-errors.ts';
import type { StoreCredentials } from './store-credentials.ts';
import { storeNotices } from '../health/store-notices.ts';
import type { StoresContext } from '../stores-context.ts';
import type { StoresTable } from '../stores-tables.ts';

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
  /**
   * The store's own country (ISO 3166-1 alpha-2), as its platform said it; null until asked, or when it does not say.
   */
  country: string | null;
  /** The currency it sells in (ISO 4217), asked with its country; null until then. */
  currency: string | null;
  /** Reminders from the platform's connector (storeNotices), and what the last poll repaired (for a week). */
  notices: string[];
}

export interface StoreConnectionsDeps extends Pick<StoresContext, 'db' | 'box' | 'cursors' | 'connectors' | 'context'> {
  credentials: StoreCredentials;
  /** A store was connected or reconnected (the pipeline registers webhooks, polls, reads listings). */
  onConnected: (store: StoreRow) => Promise<void>;
}

/**
 * Connected stores: credentials are checked by the platform's connector, sealed at rest and
 * never shown again. Disconnecting keeps the history, stops ingestion and releases the SKU guard.
 */
export class StoreConnections {
  readonly #deps: StoreConnectionsDeps;

  constructor(deps: StoreConnectionsDeps) {
    this.#deps = deps;
  }

  connector(platform: string): Connector<any> {
    const { connectors } = this.#deps;
    const c = connectors.get(platform);
    if (!c)
      throw rejected('unsupported_platform', `No connector for ${platform} is enabled.`, [
        {
          field: 'platform',
          code: 'unsupported_platform',
          allowedValues: connectors.all().map((x) => x.manifest.platform),
        },
      ]);
    return c;
  }

  /** `POST /stores`: the connector checks the credentials with the platform. */
  async connect(tenant: Tenant, platform: string, input: Record<string, unknown>): Promise<StoreView> {
    const { context } = this.#deps;
    const connector = this.connector(platform);
    const parsed = connector.manifest.connectSchema.safeParse(input);
    if (!parsed.success)
      throw invalidRequest(
        parsed.error.issues,
        'body',
        `The ${connector.manifest.displayName} connection fields are invalid`,
      );
    refuseLiveIfTestOnly(tenant, connector);
    const connection = await answeringFor(
      connector.manifest.displayName,
      'credentials',
      () => connector.connect(context(platform), parsed.data),
      context(platform).logger,
    );
    return this.view(await this.saveConnection(tenant, platform, connection));
  }

  /** Stores (or reconnects) a verified connection, then lets the pipeline register webhooks and polling. */
  async saveConnection(tenant: Tenant, platform: string, connection: StoreConnection<unknown>): Promise<StoreRow> {
    const { db, box } = this.#deps;
    refuseLiveIfTestOnly(tenant, this.connector(platform));
    const now = new Date();
    const existing = await db
      .selectFrom('stores')
      .selectAll()
      .where('platform', '=', platform)
      .where('external_id', '=', connection.externalId)
      .where('status', '=', 'connected')
      .executeTakeFirst();
    if (existing && (existing.reseller_id !== tenant.resellerId || existing.mode !== tenant.mode)) {
      throw wrongState(
        'store_connected_elsewhere',
        `The ${platform} store ${connection.externalId} is already connected to another account.`,
      );
    }
    const values = {
      name: connection.name,
      credentials_sealed: box.sealJson(connection.credentials),
      webhook_secret_sealed: connection.webhookSecret
        ? box.seal(connection.webhookSecret)
        : (existing?.webhook_secret_sealed ?? null),
      updated_at: now,
      last_error: null,
    };
    const row = existing
      ? await db
          .updateTable('stores')
          .set(values)
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await db
          .insertInto('stores')
          .values({
            id: newId('sto', now.getTime()),
            reseller_id: tenant.resellerId,
            mode: tenant.mode,
            platform,
            external_id: connection.externalId,
            status: 'connected',
            poll_cursor: null,
            last_polled_at: null,
            created_at: now,
            disconnected_at: null,
            ...values,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
    try {
      await this.#deps.onConnected(row);
    } catch (err) {
      // The store is connected; webhooks could not be registered. Polling catches orders up, and the merchant sees why.
      const reason = `Webhooks could not be registered: ${(err as Error).message}`;
      return db
        .updateTable('stores')
        .set({ last_error: reason, updated_at: new Date() })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    return row;
  }

  async list(
    tenant: Tenant,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<ListEnvelope<StoreView>> {
    const { db, cursors } = this.#deps;
    const page = resolvePage(cursors, 'stores', query);
    const rows = await newestFirst(
      db.selectFrom('stores').selectAll().where('reseller_id', '=', tenant.resellerId).where('mode', '=', tenant.mode),
      page,
    );
    return listEnvelope(
      cursors,
      'stores',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      (r) => this.view(r),
    );
  }

  async get(tenant: Tenant, id: string): Promise<StoreView> {
    return this.view(await this.row(tenant, id));
  }

  /** The tenant's store, or not found (another reseller's or mode's store is not found either). */
  async row(tenant: Tenant, id: string): Promise<StoreRow> {
    const row = await this.#deps.db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.reseller_id !== tenant.resellerId || row.mode !== tenant.mode) throw notFound('store', id);
    return row;
  }

  async disconnect(tenant: Tenant, id: string): Promise<StoreView> {
    await this.row(tenant, id);
    return this.view(await this.markDisconnected(id));
  }

  async markDisconnected(id: string, reason?: string): Promise<StoreRow> {
    const now = new Date();
    return this.#deps.db
      .updateTable('stores')
      .set({ status: 'disconnected', disconnected_at: now, updated_at: now, ...(reason ? { last_error: reason } : {}) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Shows something the merchant must act on as the store's `lastError` (cleared when it reconnects). */
  async noteProblem(id: string, message: string): Promise<void> {
    await this.#deps.db
      .updateTable('stores')
      .set({ last_error: message, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'connected')
      .execute();
  }

  async findConnected(platform: string, externalId: string): Promise<StoreRow | undefined> {
    return this.#deps.db
      .selectFrom('stores')
      .selectAll()
      .where('platform', '=', platform)
      .where('external_id', '=', externalId)
      .where('status', '=', 'connected')
      .executeTakeFirst();
  }

  async findById(id: string): Promise<StoreRow | undefined> {
    return this.#deps.db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async connectedStores(platform?: string): Promise<StoreRow[]> {
    let q = this.#deps.db.selectFrom('stores').selectAll().where('status', '=', 'connected');
    if (platform) q = q.where('platform', '=', platform);
    return q.execute();
  }

  /** The store as the API shows it. */
  view(row: StoreRow): StoreView {
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
      country: row.country,
      currency: row.currency,
      notices: storeNotices(row, this.#deps.connectors.get(row.platform), () => this.#deps.credentials.connection(row)),
    };
  }
}

/**
 * A connector whose stores are for test keys only (a sandbox) is refused to a live key, before anything is asked of it.
 */
function refuseLiveIfTestOnly(tenant: Tenant, connector: Connector<any>): void {
  if (connector.manifest.testModeOnly && tenant.mode !== 'test') {
    throw rejected(
      'store_not_connectable',
      `${connector.manifest.displayName} stores are for test keys: connect one with a prk_test_ key (a live key's stores take real orders).`,
    );
  }
}
