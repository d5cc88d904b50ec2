import type { CursorCodec } from '../../kernel/pagination.ts';
import type { AccountsService, ApiKeyView, Reseller } from '../accounts/accounts-service.ts';
import type { Mode } from '../../kernel/tenant.ts';
import type { OrderView } from '../orders/orders-schemas.ts';
import type { OrdersService } from '../orders/orders-service.ts';
import { Refusal } from '../../kernel/refusal.ts';
import type { Db } from '../tables.ts';
import type { WalletService } from '../wallet/wallet-service.ts';

/** What the console's search finds: resellers and orders, each with what a row shows. */
export interface SearchHits {
  resellers: Array<Pick<Reseller, 'id' | 'name' | 'email' | 'status'>>;
  orders: Array<{
    id: string;
    resellerId: string;
    resellerName: string;
    mode: Mode;
    externalOrderId: string | null;
    state: string;
    createdAt: Date;
  }>;
}

/** The reseller page's facts: the account, both wallets, its keys, stores and latest orders. */
export interface ResellerPageData {
  reseller: Reseller;
  wallets: Array<{
    mode: Mode;
    balanceCents: number;
    entries: Array<{
      kind: string;
      amountCents: number;
      createdAt: string;
      orderId?: string | null;
      reference?: string | null;
    }>;
  }>;
  keys: ApiKeyView[];
  stores: Array<{ id: string; name: string; platform: string; mode: Mode; status: string; lastError: string | null }>;
  orders: SearchHits['orders'];
}

/** The order page's facts: the order, its events with their webhook deliveries, the store order it came from. */
export interface OrderPageData {
  order: OrderView & { resellerId: string; mode: Mode };
  resellerName: string;
  events: Array<{
    id: string;
    type: string;
    createdAt: Date;
    deliveries: Array<{ endpointUrl: string; status: string; attempts: number; lastStatusCode: number | null }>;
  }>;
  storeOrder: {
    storeId: string;
    storeName: string;
    platform: string;
    externalOrderId: string;
    externalName: string | null;
    status: string;
    createdAt: Date;
  } | null;
}

const SEARCH_LIMIT = 20;

/**
 * The console's lookups, read-only: the search field (a reseller by id, name or e-mail; an order
 * by id, external order id or its reseller's e-mail) and what the reseller and order pages show.
 * Each query is bounded (a page of rows, an indexed id).
 */
export class ConsoleLookup {
  readonly #deps: {
    db: Db;
    accounts: AccountsService;
    orders: OrdersService;
    wallet: WalletService;
    cursors: CursorCodec;
  };

  constructor(deps: {
    db: Db;
    accounts: AccountsService;
    orders: OrdersService;
    wallet: WalletService;
    cursors: CursorCodec;
  }) {
    this.#deps = deps;
  }

  async search(text: string): Promise<SearchHits> {
    const q = text.trim();
    if (!q) return { resellers: [], orders: [] };
    const { accounts, cursors } = this.#deps;
    const resellers = (await accounts.listResellers(cursors, { q, limit: SEARCH_LIMIT })).data;
    const ids = resellers.map((r) => r.id);
    const orders = await this.#orders((qb) =>
      qb.where((eb: any) =>
        eb.or([
          eb('o.id', '=', q),
          eb('o.external_order_id', '=', q),
          // An e-mail finds its reseller's latest orders (the recipient's is not searched: personal data).
          ...(q.includes('@') && ids.length ? [eb('o.reseller_id', 'in', ids)] : []),
        ]),
      ),
    );
    return { resellers: resellers.map(({ id, name, email, status }) => ({ id, name, email, status })), orders };
  }

  async reseller(id: string): Promise<ResellerPageData> {
    const { db, accounts, wallet } = this.#deps;
    const reseller = await accounts.getReseller(id);
    const [live, test, keys, stores, orders] = await Promise.all([
      wallet.statement(id, 'live', { limit: 10 }),
      wallet.statement(id, 'test', { limit: 10 }),
      accounts.listApiKeys(id),
      db
        .selectFrom('stores')
        .select(['id', 'name', 'platform', 'mode', 'status', 'last_error'])
        .where('reseller_id', '=', id)
        .orderBy('created_at', 'desc')
        .limit(50)
        .execute(),
      this.#orders((qb) => qb.where('o.reseller_id', '=', id)),
    ]);
    return {
      reseller,
      wallets: [
        { mode: 'live', balanceCents: live.balanceCents, entries: live.entries.data },
        { mode: 'test', balanceCents: test.balanceCents, entries: test.entries.data },
      ],
      keys,
      stores: stores.map((s) => ({ ...s, lastError: s.last_error })),
      orders,
    };
  }

  async order(id: string): Promise<OrderPageData> {
    const { db, accounts, orders } = this.#deps;
    const order = await orders.getById(id);
    const [reseller, events, ingest] = await Promise.all([
      accounts.getReseller(order.resellerId),
      db
        .selectFrom('events')
        .select(['id', 'type', 'created_at'])
        .where('order_id', '=', id)
        .orderBy('created_at')
        .orderBy('id')
        .limit(200)
        .execute(),
      db
        .selectFrom('store_ingests as i')
        .innerJoin('stores as s', 's.id', 'i.store_id')
        .select([
          'i.store_id',
          's.name',
          's.platform',
          'i.external_order_id',
          'i.external_name',
          'i.status',
          'i.created_at',
        ])
        .where('i.order_id', '=', id)
        .executeTakeFirst(),
    ]);
    const deliveries = events.length
      ? await db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
          .select(['d.event_id', 'e.url', 'd.status', 'd.attempts', 'd.last_status_code'])
          .where(
            'd.event_id',
            'in',
            events.map((e) => e.id),
          )
          .execute()
      : [];
    return {
      order,
      resellerName: reseller.name,
      events: events.map((e) => ({
        id: e.id,
        type: e.type,
        createdAt: e.created_at,
        deliveries: deliveries
          .filter((d) => d.event_id === e.id)
          .map((d) => ({
            endpointUrl: d.url,
            status: d.status,
            attempts: d.attempts,
            lastStatusCode: d.last_status_code,
          })),
      })),
      storeOrder: ingest
        ? {
            storeId: ingest.store_id,
            storeName: ingest.name,
            platform: ingest.platform,
            externalOrderId: ingest.external_order_id,
            externalName: ingest.external_name,
            status: ingest.status,
            createdAt: ingest.created_at,
          }
        : null,
    };
  }

  /** The names of the resellers `ids` (for a page that lists them by name). */
  async resellerNames(ids: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.#deps.db.selectFrom('resellers').select(['id', 'name']).where('id', 'in', unique).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** The latest orders matching `where`, with their reseller's name. */
  async #orders(where: (qb: any) => any): Promise<SearchHits['orders']> {
    const rows = await where(
      this.#deps.db
        .selectFrom('orders as o')
        .innerJoin('resellers as r', 'r.id', 'o.reseller_id')
        .select(['o.id', 'o.reseller_id', 'r.name', 'o.mode', 'o.external_order_id', 'o.state', 'o.created_at']),
    )
      .orderBy('o.created_at', 'desc')
      .limit(SEARCH_LIMIT)
      .execute();
    return (rows as Array<Record<string, any>>).map((r) => ({
      id: r.id,
      resellerId: r.reseller_id,
      resellerName: r.name,
      mode: r.mode,
      externalOrderId: r.external_order_id,
      state: r.state,
      createdAt: r.created_at,
    }));
  }
}

/** A lookup's refusal (an unknown id) as the page's 404; anything else goes on. */
export function isNotFound(err: unknown): boolean {
  return err instanceof Refusal && err.code === 'not_found';
}
