import { randomUUID } from 'node:crypto';
import { hmacSignature, type InboundWebhook } from '@print-api/connector-kit';
import { sql, type Selectable } from 'kysely';
import type { SecretBox } from '../../infra/crypto.ts';
import { newId, randomToken } from '../../infra/ids.ts';
import { sha256Hex } from '../../infra/crypto.ts';
import type { Logger } from '../../infra/logger.ts';
import { notFound, rejected } from '../../kernel/refusal.ts';
import type { Db } from '../tables.ts';
import type {
  SandboxLine,
  SandboxOrdersTable,
  SandboxProductsTable,
  SandboxShipTo,
  SandboxShopsTable,
} from './sandbox-tables.ts';

export type ShopRow = Selectable<SandboxShopsTable>;
export type SandboxOrderRow = Selectable<SandboxOrdersTable>;
export type SandboxProductRow = Selectable<SandboxProductsTable>;

/** Hands a signed delivery to the service's webhook receiver, as `POST /connectors/<slug>/webhooks/<path>` would. */
export type WebhookInbox = (slug: string, req: InboundWebhook) => Promise<unknown>;

/** A store order as the merchant makes it in the sandbox. */
export interface NewSandboxOrder {
  lines: Array<{
    sku?: string | undefined;
    quantity: number;
    title?: string | undefined;
    externalProductId?: string | undefined;
  }>;
  shipTo: SandboxShipTo;
  paid: boolean;
}

/**
 * The sandbox platform's origin: a name that never resolves (RFC 6761 `.invalid`), the default
 * of the sandbox connector's `CONNECTOR_SANDBOX_API_URL`. Calls to it are answered in the
 * process that makes them (sandbox-platform-api.ts); nothing goes over the network.
 */
export const SANDBOX_ORIGIN = 'https://sandbox.print-api.invalid';

/** The path a registered webhook URL delivers to: `…/connectors/<slug>/webhooks[/<rest>]`. */
const WEBHOOK_PATH = /\/connectors\/([a-z][a-z0-9-]*)\/webhooks(?:\/(.*))?$/;

/**
 * The sandbox platform: the other side of the sandbox connector, kept by the service itself in
 * its database (so every API and worker process sees the same shops). It holds what a real
 * platform holds (shops, their store orders, products and the fulfilments pushed back to them)
 * and, like a real one, tells the shop's registered webhook URL about every change, signed with
 * the shop's secret: the delivery is handed in-process to the same receiver the webhook route
 * uses (`inbox`), never sent over the network. What the connector asks of it arrives through
 * `sandbox-platform-api.ts`; what the merchant does, through `sandbox-routes.ts`.
 */
export class SandboxPlatform {
  readonly #deps: { db: Db; box: SecretBox; logger: Logger; inbox: WebhookInbox; now?: () => Date };

  constructor(deps: { db: Db; box: SecretBox; logger: Logger; inbox: WebhookInbox; now?: () => Date }) {
    this.#deps = deps;
  }

  #now(): Date {
    return this.#deps.now?.() ?? new Date();
  }

  /** Opens a shop: its row and the API token (shown once; only its hash is kept). */
  async openShop(name: string): Promise<{ shop: ShopRow; token: string }> {
    const token = `sbx_${randomToken(24)}`;
    const shop = await this.#deps.db
      .insertInto('sandbox_shops')
      .values({
        id: newId('sbs'),
        name,
        token_hash: sha256Hex(token),
        webhook_url: null,
        webhook_secret_sealed: null,
        order_seq: 1000,
        created_at: this.#now(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { shop, token };
  }

  async shopByToken(token: string): Promise<ShopRow | undefined> {
    return this.#deps.db
      .selectFrom('sandbox_shops')
      .selectAll()
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirst();
  }

  async shop(id: string): Promise<ShopRow | undefined> {
    return this.#deps.db.selectFrom('sandbox_shops').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async registerWebhook(shopId: string, url: string, secret: string): Promise<void> {
    await this.#deps.db
      .updateTable('sandbox_shops')
      .set({ webhook_url: url, webhook_secret_sealed: this.#deps.box.seal(secret) })
      .where('id', '=', shopId)
      .execute();
  }

  /**
   * A new store order (numbered on from 1001), then its `orders/create` webhook. As a real
   * platform's, a line of a listing carries the listing's id, SKU and title: a line naming a
   * listing (`externalProductId`) takes its SKU and title, and a line naming only a SKU the shop
   * lists (active) carries that listing's id, so that a store link of the listing applies to it.
   */
  async createOrder(shopId: string, input: NewSandboxOrder): Promise<SandboxOrderRow> {
    const { db } = this.#deps;
    const now = this.#now();
    const listed = await this.#listingsOf(shopId, input.lines);
    const order = await db.transaction().execute(async (tx) => {
      const { order_seq } = await tx
        .updateTable('sandbox_shops')
        .set({ order_seq: sql`order_seq + 1` })
        .where('id', '=', shopId)
        .returning('order_seq')
        .executeTakeFirstOrThrow();
      const id = String(order_seq + 1);
      const lines: SandboxLine[] = input.lines.map((l, i) => {
        const listing = listed[i];
        return {
          id: `${id}-${i + 1}`,
          sku: l.sku ?? listing?.sku ?? null,
          quantity: l.quantity,
          title: l.title ?? listing?.title ?? null,
          product_id: listing?.id ?? null,
        };
      });
      return tx
        .insertInto('sandbox_orders')
        .values({
          shop_id: shopId,
          id,
          name: `#${id}`,
          paid: input.paid,
          cancelled: false,
          lines: JSON.stringify(lines),
          ship_to: JSON.stringify(input.shipTo),
          fulfillments: '[]',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    await this.#deliver(shopId, 'orders/create', { order: orderWire(order) });
    return order;
  }

  /**
   * The listing each line is of: the one it names (refused when the shop has none such), else the
   * shop's active listing of its SKU (the oldest, SKUs compared without case), else none.
   */
  async #listingsOf(shopId: string, lines: NewSandboxOrder['lines']): Promise<Array<SandboxProductRow | undefined>> {
    const ids = lines.flatMap((l) => (l.externalProductId ? [l.externalProductId] : []));
    const skus = lines.flatMap((l) => (!l.externalProductId && l.sku ? [l.sku.toLowerCase()] : []));
    if (ids.length === 0 && skus.length === 0) return lines.map(() => undefined);
    const rows = await this.#deps.db
      .selectFrom('sandbox_products')
      .selectAll()
      .where('shop_id', '=', shopId)
      .where((eb) =>
        eb.or([
          ...(ids.length ? [eb('id', 'in', ids)] : []),
          ...(skus.length ? [eb.and([eb('status', '=', 'active'), eb(sql`lower(sku)`, 'in', skus)])] : []),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return lines.map((l, i) => {
      if (l.externalProductId) {
        const named = rows.find((r) => r.id === l.externalProductId);
        if (!named) {
          const field = `lines[${i}].externalProductId`;
          throw rejected(
            'unknown_listing',
            `The sandbox store has no listing ${l.externalProductId}: make it first (POST …/sandbox-listings).`,
            [{ field, line: i, code: 'unknown_listing', message: `${field} is not a listing of this store` }],
          );
        }
        return named;
      }
      const sku = l.sku?.toLowerCase();
      return sku ? rows.find((r) => r.status === 'active' && r.sku?.toLowerCase() === sku) : undefined;
    });
  }

  /** The customer pays an unpaid order: `orders/paid`. An order already paid is answered as it is. */
  async payOrder(shopId: string, id: string): Promise<SandboxOrderRow> {
    const current = await this.order(shopId, id);
    if (current.paid) return current;
    // Every change moves updated_at forward, so the newer state always wins at the ingester.
    const at = new Date(Math.max(this.#now().getTime(), current.updated_at.getTime() + 1));
    const order = await this.#deps.db
      .updateTable('sandbox_orders')
      .set({ paid: true, updated_at: at })
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.#deliver(shopId, 'orders/paid', { order: orderWire(order) });
    return order;
  }

  async order(shopId: string, id: string): Promise<SandboxOrderRow> {
    const order = await this.#deps.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!order) throw notFound('sandbox store order', id);
    return order;
  }

  /** The shop's orders, newest first, after the position `before` (created_at, id). */
  async latestOrders(
    shopId: string,
    before: { at: Date; id: string } | undefined,
    limit: number,
  ): Promise<SandboxOrderRow[]> {
    let q = this.#deps.db.selectFrom('sandbox_orders').selectAll().where('shop_id', '=', shopId);
    if (before) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before.at, before.id)));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** Orders changed after `after` (`<updated_at ISO>|<id>`, exclusive), oldest change first. */
  async changedOrders(
    shopId: string,
    after: { at: Date; id: string } | null,
    limit: number,
  ): Promise<SandboxOrderRow[]> {
    let q = this.#deps.db.selectFrom('sandbox_orders').selectAll().where('shop_id', '=', shopId);
    if (after) q = q.where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.at, after.id)));
    return q.orderBy('updated_at').orderBy('id').limit(limit).execute();
  }

  /** Tracking pushed back by the connector, kept with the order. */
  async addFulfillment(
    shopId: string,
    id: string,
    fulfillment: Omit<SandboxOrderRow['fulfillments'][number], 'created_at'>,
  ): Promise<void> {
    await this.order(shopId, id);
    const entry = JSON.stringify([{ ...fulfillment, created_at: this.#now().toISOString() }]);
    await this.#deps.db
      .updateTable('sandbox_orders')
      .set({ fulfillments: sql`fulfillments || ${entry}::jsonb` })
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * A new product in the shop (the merchant's, or one the connector publishes); `products/create` tells the service.
   */
  async createProduct(
    shopId: string,
    p: Pick<SandboxProductRow, 'sku' | 'title' | 'description' | 'price_cents' | 'currency' | 'status'>,
  ): Promise<SandboxProductRow> {
    const now = this.#now();
    const product = await this.#deps.db
      .insertInto('sandbox_products')
      .values({ id: newId('sbp'), shop_id: shopId, ...p, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.#deliver(shopId, 'products/create', { product: productWire(product) });
    return product;
  }

  async updateProduct(
    shopId: string,
    id: string,
    changes: Partial<Pick<SandboxProductRow, 'title' | 'price_cents' | 'currency' | 'status'>>,
  ): Promise<SandboxProductRow> {
    await this.product(shopId, id);
    const product = await this.#deps.db
      .updateTable('sandbox_products')
      .set({ ...changes, updated_at: this.#now() })
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.#deliver(shopId, changes.status === 'archived' ? 'products/delete' : 'products/update', {
      product: productWire(product),
    });
    return product;
  }

  async product(shopId: string, id: string): Promise<SandboxProductRow> {
    const product = await this.#deps.db
      .selectFrom('sandbox_products')
      .selectAll()
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!product) throw notFound('sandbox product', id);
    return product;
  }

  /** The shop's listings that are not archived, in the order they were made, after `afterId`. */
  async listings(shopId: string, afterId: string | undefined, limit: number): Promise<SandboxProductRow[]> {
    let q = this.#deps.db
      .selectFrom('sandbox_products')
      .selectAll()
      .where('shop_id', '=', shopId)
      .where('status', '!=', 'archived');
    if (afterId) q = q.where('id', '>', afterId);
    return q.orderBy('id').limit(limit).execute();
  }

  /** One page of the shop's products, in the order they were made. */
  async products(shopId: string, offset: number, limit: number): Promise<SandboxProductRow[]> {
    return this.#deps.db
      .selectFrom('sandbox_products')
      .selectAll()
      .where('shop_id', '=', shopId)
      .orderBy('id')
      .offset(offset)
      .limit(limit)
      .execute();
  }

  /**
   * Tells the shop's webhook URL (as the connector registered it) about a change, signed as
   * the connector's verifier expects: handed to the receiver in-process. A delivery that fails
   * is logged and dropped, as platforms drop what they cannot deliver: polling finds the order.
   */
  async #deliver(shopId: string, topic: string, payload: unknown): Promise<void> {
    const shop = await this.shop(shopId);
    const target = shop?.webhook_url ? WEBHOOK_PATH.exec(new URL(shop.webhook_url).pathname) : null;
    if (!shop?.webhook_secret_sealed || !target) return;
    const body = JSON.stringify(payload);
    const timestamp = String(Math.floor(this.#now().getTime() / 1000));
    const signature = hmacSignature([`${timestamp}.`, body], this.#deps.box.open(shop.webhook_secret_sealed), {
      encoding: 'hex',
    });
    const headers = {
      'content-type': 'application/json',
      'x-sandbox-topic': topic,
      'x-sandbox-event-id': randomUUID(),
      'x-sandbox-timestamp': timestamp,
      'x-sandbox-signature': signature,
    };
    try {
      await this.#deps.inbox(target[1]!, { headers, rawBody: Buffer.from(body), path: target[2] ?? '', query: {} });
    } catch (err) {
      this.#deps.logger.warn('sandbox webhook not delivered; polling will find the change', {
        shopId,
        topic,
        error: (err as Error).message,
      });
    }
  }
}

/** An order in the sandbox platform's wire format (what its API and webhooks carry). */
export function orderWire(o: SandboxOrderRow) {
  return {
    id: o.id,
    name: o.name,
    paid: o.paid,
    cancelled: o.cancelled,
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
    lines: o.lines,
    ship_to: o.ship_to,
  };
}

export function productWire(p: SandboxProductRow) {
  return {
    id: p.id,
    sku: p.sku,
    title: p.title,
    description: p.description,
    price_cents: p.price_cents,
    currency: p.currency,
    status: p.status,
    url: `${SANDBOX_ORIGIN}/shops/${p.shop_id}/products/${p.id}`,
  };
}
