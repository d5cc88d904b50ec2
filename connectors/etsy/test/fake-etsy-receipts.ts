import { randomBytes } from 'node:crypto';
import { signStandardWebhook } from '@print-api/connector-kit';
import type { FakeReply } from '@print-api/connector-kit/testing';
import type { FakeEtsyShop, SeenCall } from './fake-etsy.ts';
import receiptFixture from './fixtures/receipt.json' with { type: 'json' };

// A shop's receipts (Etsy's orders) on the fake: the receipts API (list with Etsy's filters and sort, get, add tracking)
// and the webhook Etsy sends for a receipt.

export type ReceiptJson = typeof receiptFixture & Record<string, unknown>;

export interface DeliveryOptions {
  eventType?: string;
  id?: string;
  secret?: string;
  timestamp?: number;
  shopIdAs?: 'number' | 'string' | 'absent';
  host?: string;
  extraSignatures?: string[];
  /**
   * `flat` (default): what Etsy sends, per its staff (discussion #1564). `nested`: the form its
   * docs page showed, `{event_type: "ORDER_PAID", event_id, created_at, data: {...}}`, with
   * `resource_url` under `data` (`withResourceUrl: false`: only `shop_id` and `receipt_id` there).
   */
  form?: 'flat' | 'nested';
  withResourceUrl?: boolean;
}

/** The receipts API's answer for `rest` under the shop's path, or null when it is not the receipts API. */
export function receiptRoute(shop: FakeEtsyShop, c: SeenCall, rest: string): FakeReply | null {
  if (c.method === 'GET' && rest === '/receipts') return receiptsPage(shop, c.query);
  const r = /^\/receipts\/(\d+)(\/tracking)?$/.exec(rest);
  if (!r) return null;
  const receipt = shop.receipts.get(r[1]!);
  if (!receipt) return [404, { error: `Receipt ${r[1]} not found` }];
  if (c.method === 'GET' && !r[2]) return [200, receipt];
  if (c.method === 'POST' && r[2]) return addTracking(shop, receipt, c);
  return null;
}

function receiptsPage(shop: FakeEtsyShop, q: URLSearchParams): FakeReply {
  const bool = (name: string) => (q.has(name) ? q.get(name) === 'true' : undefined);
  const [paid, shipped, canceled] = [bool('was_paid'), bool('was_shipped'), bool('was_canceled')];
  const minModified = Number(q.get('min_last_modified') ?? 0);
  if (q.has('min_last_modified') && !(minModified >= 946684800))
    return [400, { error: 'min_last_modified must be >= 946684800' }];
  const limit = Number(q.get('limit') ?? 25);
  const offset = Number(q.get('offset') ?? 0);
  if (!(limit >= 1 && limit <= 100)) return [400, { error: 'limit must be between 1 and 100' }];
  let rows = [...shop.receipts.values()].filter(
    (r) =>
      (paid === undefined || r.is_paid === paid) &&
      (shipped === undefined || r.is_shipped === shipped) &&
      (canceled === undefined || (r.status === 'canceled') === canceled) &&
      r.updated_timestamp >= minModified,
  );
  const sortOn = q.get('sort_on') ?? 'created';
  const field =
    sortOn === 'updated' ? 'updated_timestamp' : sortOn === 'receipt_id' ? 'receipt_id' : 'created_timestamp';
  const asc = ['asc', 'ascending', 'up'].includes(q.get('sort_order') ?? 'desc');
  rows = rows.sort((a, b) => (a[field] - b[field] || a.receipt_id - b.receipt_id) * (asc ? 1 : -1));
  return [200, { count: rows.length, results: rows.slice(offset, offset + limit) }];
}

function addTracking(shop: FakeEtsyShop, receipt: ReceiptJson, c: SeenCall): FakeReply {
  const contentType = c.headers.get('content-type') ?? '';
  // Etsy reads the form only: a JSON body marks the receipt shipped without its tracking (open-api#201).
  const form = contentType.startsWith('application/x-www-form-urlencoded')
    ? Object.fromEntries(new URLSearchParams(c.body))
    : {};
  const list = shop.tracking.get(String(receipt.receipt_id)) ?? [];
  list.push({
    tracking_code: form.tracking_code ?? '',
    carrier_name: form.carrier_name ?? '',
    ...(form.note_to_buyer ? { note_to_buyer: form.note_to_buyer } : {}),
    contentType,
  });
  shop.tracking.set(String(receipt.receipt_id), list);
  const shipments = [
    ...((receipt.shipments as unknown[]) ?? []),
    {
      receipt_shipping_id: Date.now(),
      shipment_notification_timestamp: Math.floor(Date.now() / 1000),
      carrier_name: form.carrier_name ?? null,
      tracking_code: form.tracking_code ?? null,
    },
  ];
  const updated = {
    ...receipt,
    shipments,
    is_shipped: true,
    status: 'completed',
    updated_timestamp: Math.floor(Date.now() / 1000),
    update_timestamp: Math.floor(Date.now() / 1000),
  } as ReceiptJson;
  shop.receipts.set(String(receipt.receipt_id), updated);
  return [200, updated];
}

/**
 * Etsy's thin webhook for a receipt, signed with the app's secret: its body and headers.
 * `shopIdAs`: Etsy sent an integer, a third-party schema a string; `host`:
 * `openapi.etsy.com` (seen) or `api.etsy.com` (the docs).
 */
export function receiptDelivery(
  shop: FakeEtsyShop,
  receiptId: string,
  opts: DeliveryOptions & { secret: string },
): { body: string; headers: Record<string, string> } {
  const payload: Record<string, unknown> = {
    event_type: opts.eventType ?? 'order.paid',
    resource_url: `https://${opts.host ?? 'openapi.etsy.com'}/v3/application/shops/${shop.shopId}/receipts/${receiptId}`,
  };
  if (opts.shopIdAs !== 'absent') payload.shop_id = opts.shopIdAs === 'string' ? shop.shopId : Number(shop.shopId);
  const nested = () => {
    const data: Record<string, unknown> = { ...payload, receipt_id: Number(receiptId) };
    delete data.event_type;
    if (opts.withResourceUrl === false) delete data.resource_url;
    return {
      event_type: opts.eventType ?? 'ORDER_PAID',
      event_id: randomBytes(8).toString('hex'),
      created_at: new Date().toISOString(),
      data,
    };
  };
  const body = JSON.stringify(opts.form === 'nested' ? nested() : payload);
  const headers = signStandardWebhook({
    id: opts.id ?? `msg_${randomBytes(12).toString('base64url')}`,
    timestamp: opts.timestamp ?? Math.floor(Date.now() / 1000),
    body,
    secret: opts.secret,
  });
  if (opts.extraSignatures)
    headers['webhook-signature'] = [...opts.extraSignatures, headers['webhook-signature']].join(' ');
  return { body, headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Svix-Webhooks/1.24.0' } };
}

/** The fixture receipt with these facts: id, payment, cancellation, update time, lines (SKU and quantity). */
export function receiptOf(
  spec: {
    id: string;
    paid: boolean;
    cancelled?: boolean;
    updatedAt?: string;
    lines: Array<{ sku: string | null; quantity: number }>;
  },
  over: Partial<ReceiptJson> = {},
): ReceiptJson {
  const base = structuredClone(receiptFixture) as ReceiptJson;
  const id = Number(spec.id);
  const updated = Math.floor(Date.parse(spec.updatedAt ?? new Date().toISOString()) / 1000);
  const created = Math.min(updated, base.created_timestamp > updated ? updated : updated - 60);
  const line = base.transactions[0]!;
  return {
    ...base,
    receipt_id: id,
    status: spec.cancelled ? 'canceled' : spec.paid ? 'paid' : 'payment processing',
    is_paid: spec.paid,
    create_timestamp: created,
    created_timestamp: created,
    update_timestamp: updated,
    updated_timestamp: updated,
    transactions: spec.lines.map((l, i) => ({
      ...line,
      transaction_id: id * 10 + i,
      receipt_id: id,
      sku: l.sku,
      quantity: l.quantity,
    })),
    ...over,
  } as ReceiptJson;
}
