import { parsePayload, type StoreOrder, type StoreOrderLine, type StoreRecipient } from '@print-api/connector-kit';
import { z } from 'zod';
import { stateFromDistricts } from './subdivisions.ts';

/** A 64-bit id: always kept as the digits TikTok sent (see parseTikTokJson), never a JS number. */
const id = z
  .union([z.string(), z.number().int().safe().transform(String)])
  .pipe(z.string().regex(/^\d+$/, 'must be a numeric id'));
const unix = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]);

const lineItemSchema = z.looseObject({
  id,
  sku_id: id.nullish(),
  product_id: id.nullish(),
  seller_sku: z.string().nullish(),
  product_name: z.string().nullish(),
  sku_name: z.string().nullish(),
  display_status: z.string().nullish(),
  package_id: id.nullish(),
  tracking_number: z.string().nullish(),
  shipping_provider_name: z.string().nullish(),
  is_gift: z.boolean().nullish(),
});
export type TikTokLineItem = z.infer<typeof lineItemSchema>;

const addressSchema = z.looseObject({
  name: z.string().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  phone_number: z.string().nullish(),
  address_line1: z.string().nullish(),
  address_line2: z.string().nullish(),
  address_line3: z.string().nullish(),
  address_line4: z.string().nullish(),
  postal_code: z.string().nullish(),
  region_code: z.string().nullish(),
  district_info: z
    .array(
      z.looseObject({
        address_level: z.string().nullish(),
        address_level_name: z.string().nullish(),
        address_name: z.string().nullish(),
      }),
    )
    .nullish(),
});

export const tiktokOrderSchema = z.looseObject({
  id,
  status: z.string(),
  create_time: unix,
  update_time: unix.nullish(),
  shipping_type: z.string().nullish(),
  delivery_option_id: id.nullish(),
  is_on_hold_order: z.boolean().nullish(),
  recipient_address: addressSchema.nullish(),
  line_items: z.array(lineItemSchema),
});
export type TikTokOrder = z.infer<typeof tiktokOrderSchema>;

/**
 * The statuses in which the seller ships: the only ones an order is placed in (PARTIALLY_SHIPPING: the units still
 * awaiting shipment).
 */
export const SHIPPABLE_STATUSES = new Set(['AWAITING_SHIPMENT', 'PARTIALLY_SHIPPING']);
/** Not yet fulfillable: unpaid, or paid but on hold (the buyer may still cancel; the address is hidden). These wait. */
export const WAITING_STATUSES = new Set(['UNPAID', 'ON_HOLD']);
/** Statuses past shipping: an order first seen in one of them was shipped without us. */
const SHIPPED_STATUSES = new Set(['AWAITING_COLLECTION', 'IN_TRANSIT', 'DELIVERED', 'COMPLETED']);

/** A unit still to ship (lines of a cancelled unit, or one shipped already, are not). */
export function awaitsShipment(line: TikTokLineItem): boolean {
  const status = line.display_status ?? 'AWAITING_SHIPMENT';
  return (status === 'AWAITING_SHIPMENT' || WAITING_STATUSES.has(status)) && !line.tracking_number;
}

/** Parses one order as TikTok sent it (after parseTikTokJson). */
export function parseTikTokOrder(value: unknown): TikTokOrder {
  return parsePayload(tiktokOrderSchema, value, 'TikTok Shop order');
}

/**
 * A TikTok Shop order (202309) as a store order:
 * - placed only in AWAITING_SHIPMENT (or PARTIALLY_SHIPPING, for the units still to ship):
 *   UNPAID and ON_HOLD wait (`paid: false`; TikTok hides the address until then);
 * - CANCELLED cancels ours;
 * - orders TikTok's own logistics ship (`shipping_type: TIKTOK`), and orders first seen already
 *   shipped, are recorded and never placed (`notForPrint`);
 * - line items carry no quantity, one line per unit: units of one SKU are grouped into one
 *   line whose quantity is their count and whose `externalLineId` lists every unit's line id
 *   (comma-separated), which the tracking push names;
 * - the buyer e-mail is an anonymised relay address and is not used; a masked phone is dropped.
 */
export function toStoreOrder(order: TikTokOrder): StoreOrder {
  const created = Number(order.create_time) * 1000;
  const updated = order.update_time ? Number(order.update_time) * 1000 : created;
  const status = order.status.toUpperCase();
  const mapped: StoreOrder = {
    externalId: order.id,
    name: order.id,
    paid: SHIPPABLE_STATUSES.has(status),
    cancelled: status === 'CANCELLED',
    createdAt: new Date(created).toISOString(),
    updatedAt: new Date(updated).toISOString(),
    lines: groupUnits(order.line_items.filter(awaitsShipment)),
    recipient: WAITING_STATUSES.has(status) ? null : toRecipient(order.recipient_address),
  };
  const notForPrint = notOurs(order, status);
  return notForPrint ? { ...mapped, notForPrint } : mapped;
}

function notOurs(order: TikTokOrder, status: string): string | undefined {
  if ((order.shipping_type ?? '').toUpperCase() === 'TIKTOK')
    return "shipped by TikTok Shop's own logistics (shipping_type TIKTOK): not ours to print";
  if (SHIPPED_STATUSES.has(status)) return `already shipped on TikTok Shop (status ${status}) before it reached us`;
  return undefined;
}

/** One line per SKU, its quantity the number of units, every unit's line id kept. */
export function groupUnits(units: TikTokLineItem[]): StoreOrderLine[] {
  const groups = new Map<string, { units: TikTokLineItem[] }>();
  for (const unit of units) {
    const key = `${unit.sku_id ?? ''}\u0000${unit.seller_sku?.trim() ?? ''}`;
    const group = groups.get(key) ?? { units: [] };
    group.units.push(unit);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ units: [first, ...rest] }) => {
    const all = [first!, ...rest];
    return {
      externalLineId: all.map((u) => u.id).join(','),
      sku: first!.seller_sku?.trim() || null,
      quantity: all.length,
      title: [first!.product_name, first!.sku_name].filter(Boolean).join(' - ') || undefined,
      externalProductId: first!.product_id ?? null,
      externalVariantId: first!.sku_id ?? null,
    };
  });
}

/**
 * City lives in `district_info` by level: L3 (city / post town), else L2, else L4; the state or province above it
 * (subdivisions.ts).
 */
function toRecipient(address: z.infer<typeof addressSchema> | null | undefined): StoreRecipient | null {
  if (!address?.address_line1?.trim() || !address.region_code) return null;
  const level = (l: string) =>
    address.district_info?.find((d) => d.address_level === l)?.address_name?.trim() || undefined;
  const name = address.name?.trim() || [address.first_name, address.last_name].filter(Boolean).join(' ').trim();
  const phone = address.phone_number?.trim();
  const address2 = [address.address_line2, address.address_line3, address.address_line4]
    .map((l) => l?.trim())
    .filter(Boolean)
    .join(', ');
  const country = address.region_code.toUpperCase() === 'UK' ? 'GB' : address.region_code.toUpperCase();
  const state = stateFromDistricts(address.district_info, country);
  return {
    name,
    ...(phone && !phone.includes('*') ? { phone } : {}),
    address1: address.address_line1.trim(),
    ...(address2 ? { address2 } : {}),
    postalCode: address.postal_code?.trim() ?? '',
    city: level('L3') ?? level('L2') ?? level('L4') ?? '',
    ...(state ? { state } : {}),
    country,
  };
}
