import { ConnectorError, parsePayload, TimeWindowCursor, type StoreOrder, type StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';
import { FIRST_POLL_LOOKBACK_MS, PAGE_SIZE, POLL_OVERLAP_MS } from './config.ts';
import type { EtsyClient } from './etsy-client.ts';

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const text = z.string().nullish();
const seconds = z.number().nullish();

const transaction = z.object({
  transaction_id: id,
  listing_id: id.nullish(),
  product_id: id.nullish(),
  sku: z.string().nullish(),
  quantity: z.number().int().nonnegative(),
  title: text,
  is_digital: z.boolean().nullish(),
});

/** The fields of a ShopReceipt a print order needs (names exact, as Open API v3 answers them). */
export const receiptSchema = z.object({
  receipt_id: id,
  status: z.string().nullish(),
  is_paid: z.boolean().nullish(),
  is_shipped: z.boolean().nullish(),
  name: text,
  first_line: text,
  second_line: text,
  city: text,
  state: text,
  zip: text,
  country_iso: text,
  buyer_email: text,
  create_timestamp: seconds,
  created_timestamp: seconds,
  update_timestamp: seconds,
  updated_timestamp: seconds,
  transactions: z.array(transaction).default([]),
});
export type EtsyReceipt = z.infer<typeof receiptSchema>;

const receiptsPage = z.object({ count: z.number().int().nonnegative().optional(), results: z.array(receiptSchema) });

/** Statuses of a receipt the buyer no longer pays for: our order is cancelled while that is possible. */
const CANCELLED = new Set(['canceled', 'cancelled', 'fully refunded']);

/** Why a paid receipt without its address waits: it is never placed with an empty address. */
export const ADDRESS_WITHHELD =
  'Etsy did not share the shipping address of this order (address fields are given only to apps Etsy approves for them): it waits until the address can be read, then is placed; ask Etsy for address access, or place the order yourself';

const time = (r: EtsyReceipt, a: 'create' | 'update'): number => {
  const s = a === 'create' ? (r.created_timestamp ?? r.create_timestamp) : (r.updated_timestamp ?? r.update_timestamp ?? r.created_timestamp ?? r.create_timestamp);
  if (s === null || s === undefined) throw new ConnectorError('invalid_payload', `Etsy receipt ${r.receipt_id} has no ${a}d_timestamp`);
  return s * 1000;
};

/** The receipt's shipping address, or null when Etsy withheld it (some regions, apps without address access). */
export function receiptRecipient(r: EtsyReceipt): StoreRecipient | null {
  const name = r.name?.trim();
  const address1 = r.first_line?.trim();
  const city = r.city?.trim();
  const country = r.country_iso?.trim();
  if (!name || !address1 || !city || !country) return null;
  const address2 = r.second_line?.trim();
  const email = r.buyer_email?.trim();
  const state = subdivision(r.state, country);
  // Etsy gives no buyer phone (the reseller's contact goes to the carrier) and no company.
  return { name, address1, ...(address2 ? { address2 } : {}), postalCode: r.zip?.trim() ?? '', city, ...(state ? { state } : {}), country: country.toUpperCase(), ...(email ? { email } : {}) };
}

/**
 * The receipt's `state` (Etsy's province, state or region, `MI` for Milan): an ISO 3166-2 code
 * with the receipt's country as its prefix loses the prefix (`IT-MI` -> `MI`); anything else stays as written.
 */
export function subdivision(state: string | null | undefined, country: string): string | undefined {
  const s = state?.trim();
  if (!s) return undefined;
  const iso = /^([A-Za-z]{2})-([A-Za-z0-9]{1,3})$/.exec(s);
  return iso && iso[1]!.toUpperCase() === country.trim().toUpperCase() ? iso[2]!.toUpperCase() : s;
}

/** A receipt as a store order: lines from `transactions[]`, a digital item never printed. */
export function toStoreOrder(r: EtsyReceipt): StoreOrder {
  const status = r.status?.toLowerCase() ?? '';
  const recipient = receiptRecipient(r);
  return {
    externalId: r.receipt_id,
    name: `#${r.receipt_id}`,
    paid: r.is_paid === true || status === 'paid' || status === 'completed',
    cancelled: CANCELLED.has(status),
    createdAt: new Date(time(r, 'create')).toISOString(),
    updatedAt: new Date(time(r, 'update')).toISOString(),
    lines: r.transactions.map((t) => ({
      externalLineId: t.transaction_id,
      sku: t.is_digital ? null : (t.sku ?? null),
      quantity: t.quantity,
      title: t.title ?? undefined,
      externalProductId: t.listing_id ?? null,
      externalVariantId: t.product_id ?? null,
    })),
    recipient,
    ...(recipient ? {} : { recipientMissing: ADDRESS_WITHHELD }),
  };
}

export function parseReceipt(value: unknown): EtsyReceipt {
  return parsePayload(receiptSchema, value, 'Etsy receipt');
}

/**
 * Receipts paid, not shipped, not cancelled and changed since the cursor, oldest change first,
 * 100 a page. Offset paging over a moving `updated` sort skips rows: each page starts again at
 * the newest change read (TimeWindowCursor), and each run POLL_OVERLAP_MS before it.
 */
export const receiptsCursor = new TimeWindowCursor({ lookBackMs: FIRST_POLL_LOOKBACK_MS, overlapMs: POLL_OVERLAP_MS });

export async function pollReceipts(client: EtsyClient, shopId: string, cursor: string | null, now: Date): Promise<{ orders: StoreOrder[]; nextCursor: string }> {
  const at = receiptsCursor.read(cursor, now);
  // Whole seconds, inclusive: `since` rounded down keeps the row at the boundary (read again, harmless).
  const minLastModified = Math.max(946684800, Math.floor(at.since.getTime() / 1000));
  const page = parsePayload(
    receiptsPage,
    await client.call({
      method: 'GET',
      path: `/shops/${shopId}/receipts`,
      query: { was_paid: true, was_shipped: false, was_canceled: false, min_last_modified: minLastModified, sort_on: 'updated', sort_order: 'asc', limit: PAGE_SIZE, offset: at.offset },
      operation: 'getShopReceipts',
    }),
    'Etsy receipts',
  );
  // Once a run: the receipts cancelled in the window, which the query above leaves out (Etsy
  // documents no cancellation webhook): ours is cancelled while that is possible.
  const cancelled = at.firstPage && at.offset === 0 ? await cancelledSince(client, shopId, minLastModified) : [];
  return {
    orders: [...page.results.map(toStoreOrder), ...cancelled],
    nextCursor: receiptsCursor.next(at, { updatedAt: page.results.map((r) => time(r, 'update')), more: page.results.length === PAGE_SIZE }),
  };
}

async function cancelledSince(client: EtsyClient, shopId: string, minLastModified: number): Promise<StoreOrder[]> {
  const page = parsePayload(
    receiptsPage,
    await client.call({
      method: 'GET',
      path: `/shops/${shopId}/receipts`,
      query: { was_canceled: true, min_last_modified: minLastModified, sort_on: 'updated', sort_order: 'desc', limit: PAGE_SIZE },
      operation: 'getShopReceipts',
    }),
    'Etsy receipts',
  );
  return page.results.map(toStoreOrder).filter((o) => o.cancelled);
}

/** A page of receipts read for a few of them: only the ids are checked before one is wanted. */
const receiptIdsPage = z.object({ results: z.array(z.looseObject({ receipt_id: id })) });

/** The most pages one fetch reads before it reads the receipts still missing one by one. */
const MAX_PAGES = 6;

/** A jump down the pages lands this share short of where the page density says, so that it lands above the receipts asked for rather than past them. */
const JUMP_SHORT = 0.1;

/**
 * Receipts by id (a thin webhook names one), in the order asked: a receipt the shop no longer
 * has is left out. Etsy has no call that reads receipts by ids; it lists a shop's receipts
 * sorted by `receipt_id`, 100 a page (any state: a receipt cancelled or shipped since is read
 * as it is now), and receipt ids grow as receipts are made. So several asked receipts are
 * looked for among the shop's receipts by id, newest first, between the highest and the lowest
 * id asked for: a page above them tells how densely the shop's ids run, and the next read
 * jumps down to where the highest should be (a backlog of thousands costs a jump, not a page
 * per hundred). Reading stops once a page reaches below the lowest asked id, when at most one
 * is missing, or after MAX_PAGES; the ones still missing are read one by one.
 */
export async function fetchReceipts(client: EtsyClient, shopId: string, receiptIds: string[]): Promise<StoreOrder[]> {
  const wanted = [...new Set(receiptIds.filter((r) => /^\d+$/.test(r)))];
  const found = new Map<string, StoreOrder>();
  if (wanted.length > 1) await findInPages(client, shopId, wanted, found);
  const orders: StoreOrder[] = [];
  for (const receiptId of wanted) {
    const order = found.get(receiptId) ?? (await fetchReceipt(client, shopId, receiptId));
    if (order) orders.push(order);
  }
  return orders;
}

async function findInPages(client: EtsyClient, shopId: string, wanted: string[], found: Map<string, StoreOrder>): Promise<void> {
  const asked = new Set(wanted);
  const ids = wanted.map(BigInt);
  const highest = ids.reduce((a, b) => (b > a ? b : a));
  const lowest = ids.reduce((a, b) => (b < a ? b : a));
  let offset = 0;
  for (let read = 0; read < MAX_PAGES && wanted.length - found.size > 1; read++) {
    const results = parsePayload(
      receiptIdsPage,
      await client.call({ method: 'GET', path: `/shops/${shopId}/receipts`, query: { sort_on: 'receipt_id', sort_order: 'desc', limit: PAGE_SIZE, offset }, operation: 'getShopReceipts' }),
      'Etsy receipts',
    ).results;
    for (const r of results) if (asked.has(r.receipt_id) && !found.has(r.receipt_id)) found.set(r.receipt_id, toStoreOrder(parseReceipt(r)));
    if (results.length < PAGE_SIZE) return;
    const first = BigInt(results[0]!.receipt_id);
    const last = BigInt(results.at(-1)!.receipt_id);
    if (last <= lowest) return;
    offset += results.length;
    // Still above every asked id: jump down by the page's density of the shop's ids.
    if (last > highest && first > last) offset += Math.floor((Number(last - highest) * (results.length - 1)) / Number(first - last) * (1 - JUMP_SHORT));
  }
}

async function fetchReceipt(client: EtsyClient, shopId: string, receiptId: string): Promise<StoreOrder | null> {
  try {
    return toStoreOrder(parseReceipt(await client.call({ method: 'GET', path: `/shops/${shopId}/receipts/${receiptId}`, operation: 'getShopReceipt' })));
  } catch (err) {
    if (err instanceof ConnectorError && err.status === 404) return null;
    throw err;
  }
}
