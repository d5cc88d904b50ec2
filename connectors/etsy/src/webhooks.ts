import { settingVariable, verifyStandardWebhook, type InboundWebhook, type WebhookContent, type WebhookVerdict } from '@print-api/connector-kit';
import { z } from 'zod';
import type { EtsySettings } from './config.ts';

/** Etsy's events that change a receipt: each one has it fetched again (the payload carries none of it). */
const RECEIPT_EVENTS = new Set(['order.paid', 'order.canceled', 'order.cancelled', 'order.shipped', 'order.delivered']);

/**
 * The flat, thin payload Etsy sends (confirmed by Etsy staff; its doc page's nested `data`
 * form is outdated): `shop_id` an integer in practice, a string in a third-party schema;
 * `resource_url` on `openapi.etsy.com` in practice, `api.etsy.com` in the docs.
 */
const payloadSchema = z.object({
  event_type: z.string().optional(),
  resource_url: z.string().optional(),
  shop_id: z.union([z.number().int(), z.string()]).optional(),
});
type Payload = z.infer<typeof payloadSchema>;

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

function payloadOf(req: InboundWebhook): Payload | null {
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(req.rawBody.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const shopIdOf = (p: Payload): string | undefined => {
  const raw = p.shop_id === undefined ? undefined : String(p.shop_id).trim();
  if (raw && /^\d+$/.test(raw)) return String(BigInt(raw));
  return parseResourceUrl(p.resource_url)?.shopId;
};

/** The shop a delivery to `POST /connectors/etsy/webhooks` is for: its `shop_id` (integer or string), else the one in `resource_url`. */
export function identifyShop(req: InboundWebhook): string | undefined {
  const p = payloadOf(req);
  return p ? shopIdOf(p) : undefined;
}

/** Standard Webhooks: `webhook-id`, `webhook-timestamp` (5-minute tolerance), `webhook-signature` (`v1,<base64>`, several possible). */
export function verifyEtsyWebhook(req: InboundWebhook, settings: EtsySettings, now: Date): WebhookVerdict {
  if (!settings.webhookSecret?.length) return { ok: false, reason: `Etsy webhooks are not accepted: ${settingVariable('ETSY', 'webhookSecret')} is not set` };
  const verdict = verifyStandardWebhook({ headers: req.headers, rawBody: req.rawBody, secret: settings.webhookSecret, now });
  if (!verdict.ok) return verdict;
  const p = payloadOf(req);
  return { ok: true, topic: p?.event_type ?? 'unknown', eventId: verdict.id, occurredAt: verdict.timestamp.toISOString() };
}

/**
 * What a verified delivery means: the receipt it names, fetched from the shop it was routed
 * to (with that shop's token: a receipt of another shop is not found there). A `resource_url`
 * naming another shop than `shop_id` (Etsy's own example payload does) is reported to `warn`.
 */
export function webhookContent(req: InboundWebhook, shopId: string, warn: (message: string, meta: Record<string, unknown>) => void = () => undefined): WebhookContent {
  const p = payloadOf(req);
  if (!p) return { kind: 'ignored', reason: 'the body is not an Etsy event' };
  const type = p.event_type?.toLowerCase() ?? '';
  if (!RECEIPT_EVENTS.has(type)) return { kind: 'ignored', reason: `event ${p.event_type ?? '(none)'} is not one we act on` };
  const resource = parseResourceUrl(p.resource_url);
  if (!resource) return { kind: 'ignored', reason: `resource_url is not an Etsy receipt: ${String(p.resource_url).slice(0, 200)}` };
  if (resource.shopId !== shopId) warn('Etsy webhook: resource_url names another shop than shop_id; the receipt is looked up in the shop it was routed to', { shopId, resourceShopId: resource.shopId });
  return { kind: 'fetch', externalOrderIds: [resource.receiptId] };
}
