import { sql } from 'kysely';
import type { SecretBox } from '../../../infra/crypto.ts';
import {
  listEnvelope,
  resolvePage,
  type CursorCodec,
  type ListEnvelope,
  newestFirst,
} from '../../../kernel/pagination.ts';
import type { Db } from '../../tables.ts';
import type { ConnectorRegistry } from '../connector-registry.ts';

/** Why a store is flagged on the health page (and counted in `stores_flagged`). */
export type StoreFlag = 'ingest_lag' | 'error_rate' | 'webhooks_stopped' | 'platform_error' | 'token_expiring';
export const STORE_FLAGS: readonly StoreFlag[] = [
  'ingest_lag',
  'error_rate',
  'webhooks_stopped',
  'platform_error',
  'token_expiring',
];

/** Where a store is flagged. */
export interface StoreHealthThresholds {
  /** The oldest unprocessed webhook is older than this (s). */
  ingestLagSeconds: number;
  /** Failed share of the last 24 h's store orders at or above this (0-1), with at least `errorRateMinFailed` failed. */
  errorRate: number;
  errorRateMinFailed: number;
  /** A store order created this long (s) after the last webhook arrived without one: the webhooks stopped. */
  webhooksSilentSeconds: number;
  /** Credentials that cannot renew themselves expire within this (s). */
  tokenExpirySeconds: number;
}

export const DEFAULT_THRESHOLDS: StoreHealthThresholds = {
  ingestLagSeconds: 300,
  errorRate: 0.25,
  errorRateMinFailed: 2,
  webhooksSilentSeconds: 1800,
  tokenExpirySeconds: 7 * 86400,
};

export interface StoreHealthView {
  id: string;
  resellerId: string;
  name: string;
  platform: string;
  externalId: string;
  status: 'connected' | 'disconnected';
  testMode: boolean;
  lastWebhookAt: string | null;
  lastPolledAt: string | null;
  /** Age (s) of the oldest webhook received and not yet processed; 0 when none waits. */
  ingestLagSeconds: number;
  last24h: { placed: number; skipped: number; failed: number };
  lastError: string | null;
  /** What the store's connector asks the merchant to do (GET /stores/{id} `notices`). */
  notices: string[];
  tokenExpiresAt: string | null;
  flags: StoreFlag[];
  createdAt: string;
}

export interface StoreHealthQuery {
  platform?: string | undefined;
  resellerId?: string | undefined;
  status?: 'connected' | 'disconnected' | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** Per platform, what the metrics report (gauges read at scrape time). */
export interface PlatformHealth {
  platform: string;
  connected: number;
  maxIngestLagSeconds: number;
  /**
   * Seconds until the soonest expiring credentials that cannot renew themselves (negative: expired); null when none
   * expire.
   */
  minTokenExpirySeconds: number | null;
  flagged: Record<StoreFlag, number>;
  last24h: { placed: number; skipped: number; failed: number };
}

/** The columns of `stores` a health view is made of (`StoreRow`). */
const STORE_COLUMNS = [
  'id',
  'reseller_id',
  'name',
  'platform',
  'external_id',
  'status',
  'mode',
  'last_polled_at',
  'last_error',
  'credentials_sealed',
  'created_at',
] as const;

type StoreRow = {
  id: string;
  reseller_id: string;
  name: string;
  platform: string;
  external_id: string;
  status: 'connected' | 'disconnected';
  mode: 'live' | 'test';
  last_polled_at: Date | null;
  last_error: string | null;
  credentials_sealed: string;
  created_at: Date;
};

/** What a store's flags are decided on: its health read at `now`. */
interface StoreFacts {
  now: Date;
  /** Age (s) of the oldest webhook not yet processed. */
  lag: number;
  last24h: { placed: number; skipped: number; failed: number };
  lastWebhook: Date | null;
  /** The store's own creation time of the newest store order it sent us. */
  newestOrder: Date | null;
  lastError: string | null;
  tokenExpiresAt: string | null;
}

/** Each flag and when a connected store raises it, in the order a view lists them (that of `STORE_FLAGS`). */
const FLAG_RULES: ReadonlyArray<readonly [StoreFlag, (f: StoreFacts, t: StoreHealthThresholds) => boolean]> = [
  ['ingest_lag', (f, t) => f.lag > t.ingestLagSeconds],
  [
    'error_rate',
    ({ last24h: d }, t) =>
      d.failed >= t.errorRateMinFailed && d.failed / (d.placed + d.skipped + d.failed) >= t.errorRate,
  ],
  // Store orders made well after the last webhook arrived, found by polling: the webhooks stopped.
  [
    'webhooks_stopped',
    (f, t) =>
      f.lastWebhook !== null &&
      f.newestOrder !== null &&
      f.newestOrder.getTime() - f.lastWebhook.getTime() > t.webhooksSilentSeconds * 1000,
  ],
  ['platform_error', (f) => Boolean(f.lastError)],
  [
    'token_expiring',
    (f, t) => f.tokenExpiresAt !== null && Date.parse(f.tokenExpiresAt) - f.now.getTime() < t.tokenExpirySeconds * 1000,
  ],
];

/**
 * The operators' view of connected stores: is each one keeping up (webhooks arriving and
 * processed, polls succeeding, orders placed), and which need a look. Read from the tables the
 * ingestion pipeline writes; nothing here changes a store.
 *
 * Token expiry is read from the stored credentials by convention: `refreshTokenExpiresAt`, or
 * `expiresAt` of credentials without a `refreshToken` (an access token that renews itself is
 * not a risk).
 */
export class StoreHealth {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #cursors: CursorCodec;
  readonly thresholds: StoreHealthThresholds;
  readonly #clock: () => Date;

  readonly #connectors: Pick<ConnectorRegistry, 'get'> | undefined;

  constructor(deps: {
    db: Db;
    box: SecretBox;
    cursors: CursorCodec;
    thresholds?: Partial<StoreHealthThresholds>;
    clock?: () => Date;
    /** The connectors whose reminders (`storeNotices`) a connected store shows (none when not given). */
    connectors?: Pick<ConnectorRegistry, 'get'>;
  }) {
    this.#connectors = deps.connectors;
    this.#db = deps.db;
    this.#box = deps.box;
    this.#cursors = deps.cursors;
    this.thresholds = { ...DEFAULT_THRESHOLDS, ...deps.thresholds };
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** One page of stores, newest first, with their health. */
  async list(query: StoreHealthQuery): Promise<ListEnvelope<StoreHealthView>> {
    const page = resolvePage(this.#cursors, 'store_health', query);
    let q = this.#db.selectFrom('stores').select(STORE_COLUMNS);
    // The platform as connectors name it (`SHOPIFY`) or as in paths (`shopify`).
    if (query.platform) q = q.where(sql<string>`lower(platform)`, '=', query.platform.toLowerCase());
    if (query.resellerId) q = q.where('reseller_id', '=', query.resellerId);
    if (query.status) q = q.where('status', '=', query.status);
    const rows = (await newestFirst(q, page)) as StoreRow[];
    const views = await this.#views(rows.slice(0, page.limit));
    const byId = new Map(views.map((v) => [v.id, v]));
    return listEnvelope(
      this.#cursors,
      'store_health',
      page,
      rows,
      (r) => [r.created_at.toISOString(), r.id],
      (r) => byId.get(r.id)!,
    );
  }

  /** Every connected store's health summed per platform (for the metrics). */
  async perPlatform(): Promise<PlatformHealth[]> {
    const rows = (await this.#db
      .selectFrom('stores')
      .select(STORE_COLUMNS)
      .where('status', '=', 'connected')
      .execute()) as StoreRow[];
    const views = await this.#views(rows);
    const now = this.#clock().getTime();
    const out = new Map<string, PlatformHealth>();
    for (const v of views) {
      let p = out.get(v.platform);
      if (!p) {
        p = {
          platform: v.platform,
          connected: 0,
          maxIngestLagSeconds: 0,
          minTokenExpirySeconds: null,
          flagged: Object.fromEntries(STORE_FLAGS.map((f) => [f, 0])) as Record<StoreFlag, number>,
          last24h: { placed: 0, skipped: 0, failed: 0 },
        };
        out.set(v.platform, p);
      }
      p.connected++;
      p.maxIngestLagSeconds = Math.max(p.maxIngestLagSeconds, v.ingestLagSeconds);
      if (v.tokenExpiresAt) {
        const left = Math.round((Date.parse(v.tokenExpiresAt) - now) / 1000);
        p.minTokenExpirySeconds = p.minTokenExpirySeconds === null ? left : Math.min(p.minTokenExpirySeconds, left);
      }
      for (const f of v.flags) p.flagged[f]++;
      for (const outcome of ['placed', 'skipped', 'failed'] as const) p.last24h[outcome] += v.last24h[outcome];
    }
    return [...out.values()];
  }

  async #views(rows: StoreRow[]): Promise<StoreHealthView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const now = this.#clock();
    const since = new Date(now.getTime() - 24 * 3600 * 1000);
    const [webhooks, ingests, lateOrders] = await Promise.all([
      this.#db
        .selectFrom('store_webhook_events')
        .where('store_id', 'in', ids)
        .select((eb) => [
          'store_id',
          eb.fn.max('received_at').as('last_received'),
          eb.fn.min('received_at').filterWhere('processed_at', 'is', null).as('oldest_unprocessed'),
        ])
        .groupBy('store_id')
        .execute(),
      this.#db
        .selectFrom('store_ingests')
        .where('store_id', 'in', ids)
        .where('created_at', '>=', since)
        .select((eb) => [
          'store_id',
          eb.fn.countAll<number>().filterWhere('status', 'in', ['placed', 'waiting_payment']).as('placed'),
          eb.fn.countAll<number>().filterWhere('status', 'in', ['no_print_lines', 'cancelled']).as('skipped'),
          eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('failed'),
        ])
        .groupBy('store_id')
        .execute(),
      // The newest store order each store sent us (by the store's own creation time): orders made
      // well after the last webhook arrived, found by polling, mean the webhooks stopped.
      this.#db
        .selectFrom('store_ingests')
        .where('store_id', 'in', ids)
        .select((eb) => ['store_id', eb.fn.max(sql<Date>`coalesce(store_created_at, created_at)`).as('newest_order')])
        .groupBy('store_id')
        .execute(),
    ]);
    const hooks = new Map(webhooks.map((w) => [w.store_id!, w]));
    const counts = new Map(ingests.map((i) => [i.store_id, i]));
    const newest = new Map(lateOrders.map((o) => [o.store_id, o.newest_order]));
    const t = this.thresholds;
    return rows.map((row) => {
      const hook = hooks.get(row.id);
      const lastWebhook = hook?.last_received ? new Date(hook.last_received as unknown as string) : null;
      const oldest = hook?.oldest_unprocessed ? new Date(hook.oldest_unprocessed as unknown as string) : null;
      const lag = oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)) : 0;
      const c = counts.get(row.id);
      const last24h = {
        placed: Number(c?.placed ?? 0),
        skipped: Number(c?.skipped ?? 0),
        failed: Number(c?.failed ?? 0),
      };
      const tokenExpiresAt = this.#tokenExpiry(row.credentials_sealed);
      const newestOrder = newest.get(row.id) ? new Date(newest.get(row.id) as unknown as string) : null;
      const facts: StoreFacts = {
        now,
        lag,
        last24h,
        lastWebhook,
        newestOrder,
        lastError: row.last_error,
        tokenExpiresAt,
      };
      const flags =
        row.status === 'connected' ? FLAG_RULES.filter(([, raised]) => raised(facts, t)).map(([flag]) => flag) : [];
      return {
        id: row.id,
        resellerId: row.reseller_id,
        name: row.name,
        platform: row.platform,
        externalId: row.external_id,
        status: row.status,
        testMode: row.mode === 'test',
        lastWebhookAt: lastWebhook?.toISOString() ?? null,
        lastPolledAt: row.last_polled_at ? new Date(row.last_polled_at).toISOString() : null,
        ingestLagSeconds: lag,
        last24h,
        lastError: row.last_error,
        notices: this.#noticesOf(row),
        tokenExpiresAt,
        flags,
        createdAt: new Date(row.created_at).toISOString(),
      };
    });
  }

  #noticesOf(row: StoreRow): string[] {
    const connector = this.#connectors?.get(row.platform);
    if (!connector?.storeNotices || row.status !== 'connected') return [];
    try {
      return connector.storeNotices(
        { externalId: row.external_id, name: row.name, credentials: this.#box.openJson(row.credentials_sealed) },
        new Date(),
      );
    } catch {
      return [];
    }
  }

  #tokenExpiry(sealed: string): string | null {
    try {
      const credentials = JSON.parse(this.#box.openRemembered(sealed)) as Record<string, unknown>;
      const at =
        typeof credentials.refreshTokenExpiresAt === 'string'
          ? credentials.refreshTokenExpiresAt
          : !credentials.refreshToken && typeof credentials.expiresAt === 'string'
            ? credentials.expiresAt
            : null;
      return at && !Number.isNaN(Date.parse(at)) ? new Date(at).toISOString() : null;
    } catch {
      return null;
    }
  }
}
