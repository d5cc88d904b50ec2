import { ConnectorError, parsePayload, type StoreOrder, type StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';

/** A receipt, transaction or listing id: Etsy answers numbers, read as strings. */
export const etsyId = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const text = z.string().nullish();
const seconds = z.number().nullish();

const transaction = z.object({
  transaction_id: etsyId,
  listing_id: etsyId.nullish(),
  product_id: etsyId.nullish(),
  sku: z.string().nullish(),
  quantity: z.number().int().nonnegative(),
  title: text,
  is_digital: z.boolean().nullish(),
});

/** The fields of a ShopReceipt a print order needs (names exact, as Open API v3 answers them). */
export const receiptSchema = z.object({
  receipt_id: etsyId,
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

/** A page of receipts as `getShopReceipts` answers it. */
export const receiptsPage = z.object({
  count: z.number().int().nonnegative().optional(),
  results: z.array(receiptSchema),
});

/** Statuses of a receipt the buyer no longer pays for: our order is cancelled while that is possible. */
const CANCELLED = new Set(['canceled', 'cancelled', 'fully refunded']);

/** Why a paid receipt without its address waits: it is never placed with an empty address. */
export const ADDRESS_WITHHELD =
  'Etsy did not share the shipping address of this order (address fields are given only to apps Etsy approves for them): it waits until the address can be read, then is placed; ask Etsy for address access, or place the order yourself';

/** When the receipt was made or last changed, in ms. */
export const receiptTime = (r: EtsyReceipt, a: 'create' | 'update'): number => {
  const s =
    a === 'create'
      ? (r.created_timestamp ?? r.create_timestamp)
      : (r.updated_timestamp ?? r.update_timestamp ?? r.created_timestamp ?? r.create_timestamp);
  if (s === null || s === undefined)
    throw new ConnectorError('invalid_payload', `Etsy receipt ${r.receipt_id} has no ${a}d_timestamp`);
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
  return {
    name,
    address1,
    ...(address2 ? { address2 } : {}),
    postalCode: r.zip?.trim() ?? '',
    city,
    ...(state ? { state } : {}),
    country: country.toUpperCase(),
    ...(email ? { email } : {}),
  };
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
    createdAt: new Date(receiptTime(r, 'create')).toISOString(),
    updatedAt: new Date(receiptTime(r, 'update')).toISOString(),
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
