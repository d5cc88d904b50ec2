import type { StoreOrder } from '@print-api/connector-kit';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import { Refusal } from '../../../kernel/refusal.ts';
import { newId } from '../../../infra/ids.ts';
import { insertFromJson } from '../../../infra/db/json-insert.ts';
import { RELAXED_COMMIT } from '../../../infra/db/relaxed-commit.ts';
import type { Outbox, OutboxEvent } from '../../events/outbox.ts';
import type { OrdersService } from '../../orders/orders-service.ts';
import type { ResellerProductsService } from '../../reseller-products/reseller-products-service.ts';
import type { Db } from '../../tables.ts';
import { orderRecipient } from './store-recipient.ts';
import { markProcessed } from './stored-events.ts';
import type { StoreRow } from '../connect/store-connections.ts';
import { mappedProduct, type StoreLinks } from '../catalogue/store-links.ts';
import type { StoreIngestsTable } from '../stores-tables.ts';
import type { StoresContext } from '../stores-context.ts';

type StoreIngest = Selectable<StoreIngestsTable>;
type SkippedLine = { sku: string | null; quantity: number; reason: string };

/** A line without a SKU whose listing the merchant could map (POST /stores/{id}/links). */
const NO_SKU_UNMAPPED = 'no SKU, and its listing is mapped to none of your products';
/** A line whose listing is mapped to a product that is inactive. */
const MAPPED_INACTIVE = 'your product mapped to this listing is inactive';

/**
 * Why a line is skipped when the reseller could make it print: its SKU is not (or not now) one
 * of their active products, or its listing is mapped to none (or to an inactive one).
 */
export const UNMATCHED_REASONS = [
  'not one of your SKUs: not a print item',
  'your product with this SKU is inactive',
  NO_SKU_UNMAPPED,
  MAPPED_INACTIVE,
] as const;

const isUnmatched = (reason: string) => (UNMATCHED_REASONS as readonly string[]).includes(reason);

/** The event that tells the reseller an order was skipped for SKUs of theirs it did not find. */
export const ORDER_SKIPPED_EVENT = 'store.order_skipped';

/**
 * A skipped store order: nothing placed (`no_print_lines`) and at least one line skipped because
 * its SKU is none of the reseller's active products. Creating (or activating) the product and
 * retrying the ingest places it.
 */
export function isSkippedOrder(status: string, skipped: SkippedLine[]): boolean {
  return status === 'no_print_lines' && skipped.some((l) => isUnmatched(l.reason));
}

/** Why OrdersService.cancel refuses an order that is past cancelling: recorded on the ingest, never retried. */
const NOT_CANCELLABLE = new Set(['order_not_cancellable', 'payment_in_progress']);

export interface OrderIngesterDeps extends Pick<StoresContext, 'db'> {
  links: StoreLinks;
  resellerProducts: ResellerProductsService;
  orders: OrdersService;
  /** Where `store.order_skipped` is written (with the outcome, in one statement). */
  outbox?: Outbox;
  onPlaced?: (platform: string, storeCreatedAt: string) => void;
}

/**
 * Ingesting: one store order becomes a print order. Lines are mapped through the reseller's
 * SKUs (the others are skipped and recorded); a paid order with print lines is placed with
 * `source` = the platform and the idempotency key `<platform>:<store>:<order>`, so it is never
 * placed twice; a cancelled one cancels ours while that is possible. Every outcome is recorded
 * in store_ingests, and an older copy of an order never overrides a newer one.
 */
export class OrderIngester {
  readonly #deps: OrderIngesterDeps;
  readonly #onPlaced: (platform: string, storeCreatedAt: string) => void;

  constructor(deps: OrderIngesterDeps) {
    this.#deps = deps;
    this.#onPlaced = deps.onPlaced ?? (() => undefined);
  }

  /**
   * One store order: place it when paid and it has print lines, cancel ours when it is
   * cancelled, record every outcome. `fromEvent`: the stored webhook the order came in, marked
   * processed by the statement that records the outcome (the answer says whether it was: an
   * order that changes nothing records nothing).
   */
  async ingest(store: StoreRow, order: StoreOrder, fromEvent?: string): Promise<boolean> {
    const ingest = await this.#upsert(store, order);
    const updatedAt = new Date(order.updatedAt);
    const stale = ingest.store_updated_at !== null && updatedAt < ingest.store_updated_at;
    if (stale && !order.cancelled) return false;
    const record = (patch: Outcome) =>
      this.#record(ingest, order, patch, {
        stale,
        updatedAt,
        fromEvent,
        event: this.#skippedEvent(store, ingest, order, patch),
      });
    const tenant = { resellerId: store.reseller_id, mode: store.mode };

    if (order.cancelled) {
      if (!ingest.order_id) return record({ status: 'cancelled' });
      try {
        await this.#deps.orders.cancel(tenant, ingest.order_id);
        return await record({ status: 'cancelled' });
      } catch (err) {
        if (!(err instanceof Refusal) || !NOT_CANCELLABLE.has(err.code)) throw err;
        // Cancelled already: by another ingest of this same cancellation (the webhook and a poll together, or a job
        // retried after its cancel committed), or by the reseller. Ours and the store's agree: that is the outcome.
        if ((await this.#deps.orders.get(tenant, ingest.order_id)).state === 'CANCELLED')
          return await record({ status: 'cancelled' });
        return record({
          status: ingest.status,
          error: `The store cancelled the order, but ours could not be: ${err.message}`,
        });
      }
    }
    if (ingest.order_id) return false; // placed already: nothing an update can change
    if (order.notForPrint)
      return record({
        status: 'no_print_lines',
        skipped: order.lines.map((l) => ({
          sku: l.sku?.trim() || null,
          quantity: l.quantity,
          reason: order.notForPrint!,
        })),
      });

    const { lines, skipped, skippedProductIds, products } = await this.#printLines(store, order);
    if (lines.length === 0) return record({ status: 'no_print_lines', skipped, skippedProductIds });
    if (!order.paid) return record({ status: 'waiting_payment', skipped });
    // The platform withheld the address (it says why): the order waits, visibly, and is placed once an update or a
    // retry brings it.
    if (!order.recipient && order.recipientMissing)
      return record({ status: 'waiting_address', skipped, error: order.recipientMissing });
    if (!order.recipient)
      return record({ status: 'failed', skipped, error: 'The store order has no shipping address.' });
    try {
      const result = await this.#deps.orders.place(
        tenant,
        { externalOrderId: order.externalId, lines, recipient: orderRecipient(order.recipient) },
        {
          idempotencyKey: `${store.platform.toLowerCase()}:${store.id}:${order.externalId}`,
          source: store.platform,
          storeId: store.id,
          knownSkus: products,
        },
      );
      if (!result.duplicate) this.#onPlaced(store.platform, order.createdAt);
      return await record({ status: 'placed', order_id: result.order.id, skipped });
    } catch (err) {
      // Refused by one of our rules (no funds, an inactive account…): the outcome, not a failure to retry.
      if (err instanceof Refusal) return record({ status: 'failed', skipped, error: `${err.code}: ${err.message}` });
      throw err;
    }
  }

  /**
   * The ingest row of the order, new or existing, in one statement (its values one jsonb parameter: insertFromJson).
   */
  async #upsert(store: StoreRow, order: StoreOrder): Promise<StoreIngest> {
    const now = new Date();
    const row = {
      id: newId('ing', now.getTime()),
      store_id: store.id,
      external_order_id: order.externalId,
      external_name: order.name ?? null,
      // Until its outcome is recorded a moment later (a reader never sees a guess at it).
      status: 'received',
      order_id: null,
      skipped_lines: [],
      error: null,
      store_updated_at: null,
      store_created_at: new Date(order.createdAt),
      attempts: 0,
      created_at: now,
      updated_at: now,
    };
    // A no-op update on conflict, so the one statement returns the row, new or existing.
    // Relaxed: lost in a crash, it is written again when the webhook is processed again (see #record).
    const { rows } = await sql<StoreIngest & { relaxed: string }>`
      with ing as (${insertFromJson('store_ingests', [row])} on conflict (store_id, external_order_id) do update set store_id = store_ingests.store_id returning *)
      select ing.*, ${RELAXED_COMMIT} as relaxed from ing`.execute(this.#deps.db);
    const { relaxed: _, ...ingest } = rows[0]!;
    return ingest;
  }

  /**
   * Records an outcome (and marks `fromEvent` processed in the same statement). An order a
   * privacy request erased, even while this ingest was under way, stays erased: its name,
   * skipped lines and error are not written again.
   *
   * Copies of one order are ingested side by side (a webhook per topic, a poll), and each
   * decided on the row as it read it: an outcome is written only if no newer copy's outcome was
   * recorded meanwhile, and never over a placed order unless it is that order's own outcome
   * (placed again, or cancelled). Else the older copy's "waiting for payment" would overwrite
   * "placed" (seen under load: Shopify's orders/create arriving after orders/paid).
   */
  async #record(
    ingest: StoreIngest,
    order: StoreOrder,
    patch: Outcome,
    at: { stale: boolean; updatedAt: Date; fromEvent: string | undefined; event: OutboxEvent | null },
  ): Promise<boolean> {
    const unlessRedacted = <T>(value: T) => sql<T>`case when redacted_at is null then ${value} else null end`;
    const update = this.#deps.db
      .updateTable('store_ingests')
      .set({
        status: patch.status,
        ...(patch.order_id !== undefined ? { order_id: patch.order_id } : {}),
        ...(patch.skipped
          ? {
              skipped_lines: sql<string>`case when redacted_at is null then ${JSON.stringify(patch.skipped)}::jsonb else '[]'::jsonb end`,
              skipped_product_ids: sql<string[]>`${patch.skippedProductIds ?? []}::text[]`,
            }
          : {}),
        error: unlessRedacted(patch.error ?? null),
        store_updated_at: at.stale ? ingest.store_updated_at : at.updatedAt,
        external_name: unlessRedacted(order.name ?? ingest.external_name),
        attempts: ingest.attempts + 1,
        updated_at: new Date(),
      })
      .where('id', '=', ingest.id)
      .$if(!at.stale, (qb) =>
        qb.where((eb) => eb.or([eb('store_updated_at', 'is', null), eb('store_updated_at', '<=', at.updatedAt)])),
      )
      .$if(patch.status !== 'placed' && patch.status !== 'cancelled', (qb) => qb.where('order_id', 'is', null))
      .returning('id');
    // Relaxed (RELAXED_COMMIT): the print order is committed as usual; losing this record and
    // the processed mark in a crash only has the sweeper queue the webhook again, and its
    // second run finds the order by its idempotency key and records it.
    // The skipped event is written by the statement that records the outcome: never one without the other.
    const run = (db: Db, event: RawBuilder<unknown>) =>
      at.fromEvent
        ? sql`with processed as (${markProcessed(this.#deps.db, at.fromEvent)}), recorded as (${update})${event} select ${RELAXED_COMMIT} as relaxed`.execute(
            db,
          )
        : sql`with recorded as (${update})${event} select ${RELAXED_COMMIT} as relaxed`.execute(db);
    const outbox = this.#deps.outbox;
    const skippedEvent = at.event;
    if (!skippedEvent || !outbox) {
      await run(this.#deps.db, sql``);
      return at.fromEvent !== undefined;
    }
    // Told once: copies of one order ingested side by side (a webhook and the catch-up poll) all
    // read the ingest before any outcome was recorded. Under the row's lock, only the copy that
    // finds it not skipped yet writes the event.
    await this.#deps.db.transaction().execute(async (trx) => {
      const now = await trx
        .selectFrom('store_ingests')
        .select(['status', 'skipped_lines'])
        .where('id', '=', ingest.id)
        .forUpdate()
        .executeTakeFirst();
      const tell = now !== undefined && !isSkippedOrder(now.status, now.skipped_lines);
      await run(trx, tell ? sql`, told as (${outbox.insertOf([skippedEvent]).insert})` : sql``);
    });
    outbox.notify();
    return at.fromEvent !== undefined;
  }

  /**
   * `store.order_skipped` when this outcome makes the order a skipped one and it was not one
   * already (a webhook delivered again, or an update of the order, tells nothing new).
   */
  #skippedEvent(store: StoreRow, ingest: StoreIngest, order: StoreOrder, patch: Outcome): OutboxEvent | null {
    const skipped = patch.skipped ?? [];
    if (!isSkippedOrder(patch.status, skipped) || isSkippedOrder(ingest.status, ingest.skipped_lines)) return null;
    const unmatched = skipped.filter((l) => isUnmatched(l.reason));
    return {
      resellerId: store.reseller_id,
      mode: store.mode,
      type: ORDER_SKIPPED_EVENT,
      orderId: null,
      data: {
        store: { id: store.id, platform: store.platform, name: store.name },
        storeOrder: { ingestId: ingest.id, externalOrderId: order.externalId, name: order.name ?? null },
        unmatchedSkus: [...new Set(unmatched.flatMap((l) => (l.sku ? [l.sku] : [])))],
        skippedLines: skipped,
      },
    };
  }

  /**
   * The order's print lines, the others with why they are skipped (every SKU in one query; for
   * the lines no SKU matched, the store's mappings and their products in two more). A line
   * prints as the reseller's product with its SKU (skipped while it is inactive); else as the
   * product its listing is mapped to (a variant's mapping before its product's); else it is
   * skipped. `skippedProductIds`: the listings of the lines skipped as unmatched.
   */
  async #printLines(store: StoreRow, order: StoreOrder) {
    const skipped: SkippedLine[] = [];
    const skippedProductIds = new Set<string>();
    const lines: Array<{ resellerSku: string; quantity: number }> = [];
    const owner = { resellerId: store.reseller_id, mode: store.mode };
    // The order placement uses the same lookups: the lines' SKUs and the mapped products'.
    const products = new Map(
      await this.#deps.resellerProducts.findBySkus(
        owner,
        order.lines.flatMap((l) => (l.sku?.trim() ? [l.sku.trim()] : [])),
      ),
    );
    // Mappings only for the lines no SKU matched (most orders: none, and no query).
    const unmatched = order.lines.filter((l) => !(l.sku?.trim() && products.has(l.sku.trim().toLowerCase())));
    const mappings = await this.#deps.links.mappings(
      store.id,
      unmatched.map((l) => l.externalProductId),
    );
    const mappedSkus = mappings.map((m) => m.sku).filter((sku) => !products.has(sku.toLowerCase()));
    if (mappedSkus.length > 0)
      for (const [key, product] of await this.#deps.resellerProducts.findBySkus(owner, mappedSkus))
        products.set(key, product);
    for (const line of order.lines) {
      const sku = line.sku?.trim() || null;
      const bySku = sku ? products.get(sku.toLowerCase()) : undefined;
      if (bySku?.active) {
        lines.push({ resellerSku: bySku.sku, quantity: line.quantity });
        if (line.externalProductId || line.externalVariantId)
          await this.#deps.links.discoverLink(
            store,
            bySku.id,
            bySku.sku,
            line.externalProductId ?? null,
            line.externalVariantId ?? null,
          );
        continue;
      }
      // The SKU decides when it is one of the reseller's products, active or not (as the listings show it).
      const mapped = bySku
        ? undefined
        : mappedProduct(mappings, products, line.externalProductId, line.externalVariantId);
      if (mapped?.product.active) {
        lines.push({ resellerSku: mapped.product.sku, quantity: line.quantity });
        continue;
      }
      const reason = mapped
        ? MAPPED_INACTIVE
        : bySku
          ? UNMATCHED_REASONS[1]
          : sku
            ? UNMATCHED_REASONS[0]
            : line.externalProductId
              ? NO_SKU_UNMAPPED
              : 'no SKU: not a print item';
      skipped.push({ sku, quantity: line.quantity, reason });
      if (line.externalProductId && isUnmatched(reason)) skippedProductIds.add(line.externalProductId);
    }
    return { lines, skipped, skippedProductIds: [...skippedProductIds], products };
  }
}

interface Outcome {
  status: StoreIngest['status'];
  order_id?: string | null;
  skipped?: SkippedLine[];
  /** The listings of the lines skipped as unmatched (written with `skipped`). */
  skippedProductIds?: string[];
  error?: string | null;
}
