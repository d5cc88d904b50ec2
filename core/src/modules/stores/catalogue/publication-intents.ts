import { createHash } from 'node:crypto';
import type { PublishedListing } from '@print-api/connector-kit';
import { newId } from '../../../infra/ids.ts';
import { rejected, wrongState, type Refusal } from '../../../kernel/refusal.ts';
import type { Db } from '../../tables.ts';
import type { StoreRow } from '../connect/store-connections.ts';
import { INTERRUPTED, publicationView, webUrl, type PublicationRow } from './publication-view.ts';
import type { PublishInput } from './store-publishing.ts';

/** An intent still `publishing` after this long has lost its request (a crash): the next request for it recovers it. */
export const STALE_INTENT_MS = 2 * 60_000;
/** An intent still `publishing` this long after its last request is finished or undone by the sweep. */
export const SWEEP_INTENT_MS = 2 * STALE_INTENT_MS;

/**
 * Writes the intent, one per store and reseller product. Another's answers 409 with it, unless
 * it lost its request (interrupted, or `publishing` past STALE_INTENT_MS): it is taken over
 * (`recovering`: its product may exist already).
 */
export async function claimIntent(
  db: Db,
  store: StoreRow,
  input: PublishInput,
  currency: string,
  idempotencyKey: string | undefined,
  hash: string,
): Promise<{ row: PublicationRow; recovering: boolean }> {
  const now = new Date();
  const values = {
    sku: input.resellerProduct.sku,
    title: input.title,
    price_cents: input.priceCents,
    currency,
    idempotency_key: idempotencyKey ?? null,
    request_hash: hash,
    updated_at: now,
  };
  const inserted = await db
    .insertInto('store_publications')
    .values({
      id: newId('pub', now.getTime()),
      store_id: store.id,
      reseller_product_id: input.resellerProduct.id,
      status: 'publishing',
      external_product_id: null,
      external_variant_id: null,
      url: null,
      notice: null,
      link_id: null,
      created_at: now,
      ...values,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { row: inserted, recovering: false };
  const existing = await db
    .selectFrom('store_publications')
    .selectAll()
    .where('store_id', '=', store.id)
    .where('reseller_product_id', '=', input.resellerProduct.id)
    .executeTakeFirst();
  if (!existing) throw rejected('idempotency_key_reused', 'The Idempotency-Key was used for a different request.');
  const lost =
    existing.status === 'publishing' &&
    (existing.notice === INTERRUPTED || now.getTime() - existing.updated_at.getTime() > STALE_INTENT_MS);
  if (!lost) throw listingExists(store, existing);
  // Taken over by one request only: the row changes under the condition it was read with.
  const taken = await db
    .updateTable('store_publications')
    .set({ ...values, notice: null })
    .where('id', '=', existing.id)
    .where('updated_at', '=', existing.updated_at)
    .returningAll()
    .executeTakeFirst();
  if (!taken) throw listingExists(store, existing);
  return { row: taken, recovering: true };
}

/** The intent's call got no answer: the next request for it recovers it at once. */
export async function markInterrupted(db: Db, id: string): Promise<void> {
  await db
    .updateTable('store_publications')
    .set({ notice: INTERRUPTED, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** The platform's answer recorded with the link it makes, in one transaction. */
export async function recordPublished(
  db: Db,
  row: PublicationRow,
  published: PublishedListing,
): Promise<PublicationRow> {
  return db.transaction().execute(async (trx) => {
    const now = new Date();
    const link = {
      store_id: row.store_id,
      reseller_product_id: row.reseller_product_id,
      external_product_id: published.externalProductId,
      external_variant_id: published.externalVariantId,
    };
    await trx
      .insertInto('store_links')
      .values({ id: newId('lnk', now.getTime()), sku: row.sku, discovered: false, created_at: now, ...link })
      .onConflict((oc) => oc.doNothing())
      .execute();
    // A listing sync may have discovered it first: ours now, kept when the listing is gone.
    const made = await trx
      .updateTable('store_links')
      .set({ discovered: false })
      .where('store_id', '=', link.store_id)
      .where('reseller_product_id', '=', link.reseller_product_id)
      .where('external_product_id', '=', link.external_product_id)
      .where((eb) => eb(eb.fn.coalesce('external_variant_id', eb.val('')), '=', link.external_variant_id ?? ''))
      .returning('id')
      .executeTakeFirstOrThrow();
    return trx
      .updateTable('store_publications')
      .set({
        status: published.status,
        external_product_id: published.externalProductId,
        external_variant_id: published.externalVariantId,
        url: webUrl(published.url),
        notice: published.notice ?? null,
        link_id: made.id,
        updated_at: now,
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** What an Idempotency-Key's repeat must match: the request's every field. */
export function requestHash(input: PublishInput): string {
  const { resellerProduct, title, description, priceCents, currency, imageUrls, published, platformOptions } = input;
  return createHash('sha256')
    .update(
      JSON.stringify([
        resellerProduct.id,
        title,
        description ?? null,
        priceCents,
        currency ?? null,
        imageUrls,
        published,
        platformOptions ?? null,
      ]),
    )
    .digest('hex');
}

function listingExists(store: StoreRow, row: PublicationRow): Refusal {
  return wrongState('listing_exists', `${row.sku} is published to store ${store.id} already as listing ${row.id}.`, [
    { code: 'listing_exists', field: 'resellerProduct', listing: publicationView(row) },
  ]);
}
