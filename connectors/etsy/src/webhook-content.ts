import type { InboundWebhook, WebhookContent } from '@print-api/connector-kit';
import { z } from 'zod';

/** Etsy's events that change a receipt (normalised: lower case, dotted): each one has it fetched again. */
const RECEIPT_EVENTS = new Set(['order.paid', 'order.canceled', 'order.cancelled', 'order.shipped', 'order.delivered']);

const id = z.union([z.number().int(), z.string()]);
const fields = {
  event_type: z.string().optional(),
  resource_url: z.string().optional(),
  shop_id: id.optional(),
  receipt_id: id.optional(),
};
/**
 * Etsy's payload in either of its published forms. The flat, thin one Etsy sends (confirmed by
 * Etsy staff in discussion #1564): `{event_type: "order.paid", resource_url, shop_id}`. The
 * nested one its docs page showed: `{event_type: "ORDER_PAID", event_id, created_at, data: {...}}`,
 * the event's fields under `data`. `shop_id` is an integer in practice, a string in a
 * third-party schema; `resource_url` is on `openapi.etsy.com` in practice, `api.etsy.com` in
 * the docs. A change on Etsy's side between the two must not silently drop to polling.
 */
const payloadSchema = z
  .object({ ...fields, event_id: z.string().optional(), data: z.object(fields).loose().optional() })
  .loose();

/** What we read from a delivery, whichever form it came in. */
export interface Payload {
  /** `order.paid`: lower case, dotted (ORDER_PAID -> order.paid). */
  eventType: string | undefined;
  /** As Etsy wrote it, for messages. */
  rawEventType: string | undefined;
  resourceUrl: string | undefined;
  shopId: string | undefined;
  receiptId: string | undefined;
}

const RESOURCE_PATH = /^\/v3\/application\/shops\/(\d+)\/receipts\/(\d+)\/?$/;
const ETSY_HOSTS = new Set(['openapi.etsy.com', 'api.etsy.com']);

/** The shop and receipt a `resource_url` names (on either of Etsy's hosts), or null. */
export function parseResourceUrl(url: string | undefined): { shopId: string; receiptId: string } | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' || !ETSY_HOSTS.has(parsed.hostname.toLowerCase())) return null;
  const m = RESOURCE_PATH.exec(parsed.pathname);
  return m ? { shopId: String(BigInt(m[1]!)), receiptId: String(BigInt(m[2]!)) } : null;
}

/** A positive integer id, a number or a string, as a canonical decimal string (64-bit safe for strings). */
const idOf = (v: number | string | undefined): string | undefined => {
  const raw = v === undefined ? undefined : String(v).trim();
  return raw && /^\d+$/.test(raw) && BigInt(raw) > 0n ? String(BigInt(raw)) : undefined;
};

/** `ORDER_PAID`, `Order.Paid`, `order.paid` -> `order.paid`. */
export const normaliseEventType = (t: string | undefined): string | undefined =>
  t?.trim().toLowerCase().replace(/_/g, '.') || undefined;

/** The delivery's event, shop and receipt, whichever form it came in; null when it is not an Etsy event. */
export function payloadOf(req: InboundWebhook): Payload | null {
  let json: unknown;
  try {
    json = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) return null;
  const p = parsed.data;
  const d = p.data ?? {};
  const resourceUrl = p.resource_url ?? d.resource_url;
  const rawEventType = p.event_type ?? d.event_type;
  return {
    eventType: normaliseEventType(rawEventType),
    rawEventType,
    resourceUrl,
    shopId: idOf(p.shop_id) ?? idOf(d.shop_id) ?? parseResourceUrl(resourceUrl)?.shopId,
    receiptId: parseResourceUrl(resourceUrl)?.receiptId ?? idOf(d.receipt_id) ?? idOf(p.receipt_id),
  };
}

/**
 * The shop a delivery to `POST /connectors/etsy/webhooks` is for: its `shop_id` (integer or string, top level or under
 * `data`), else the one in `resource_url`.
 */
export function identifyShop(req: InboundWebhook): string | undefined {
  return payloadOf(req)?.shopId;
}

/**
 * What a verified delivery means: the receipt it names, fetched from the shop it was routed
 * to (with that shop's token: a receipt of another shop is not found there). A `resource_url`
 * naming another shop than `shop_id` (Etsy's own example payload does) is reported to `warn`.
 */
export function webhookContent(
  req: InboundWebhook,
  shopId: string,
  warn: (message: string, meta: Record<string, unknown>) => void = () => undefined,
): WebhookContent {
  const p = payloadOf(req);
  if (!p) return { kind: 'ignored', reason: 'the body is not an Etsy event' };
  if (!p.eventType || !RECEIPT_EVENTS.has(p.eventType))
    return { kind: 'ignored', reason: `event ${p.rawEventType ?? '(none)'} is not one we act on` };
  if (!p.receiptId)
    return {
      kind: 'ignored',
      reason: `the event names no Etsy receipt (resource_url: ${String(p.resourceUrl).slice(0, 200)})`,
    };
  const resourceShop = parseResourceUrl(p.resourceUrl)?.shopId;
  if (resourceShop && resourceShop !== shopId)
    warn(
      'Etsy webhook: resource_url names another shop than shop_id; the receipt is looked up in the shop it was routed to',
      { shopId, resourceShopId: resourceShop },
    );
  return { kind: 'fetch', externalOrderIds: [p.receiptId] };
}
