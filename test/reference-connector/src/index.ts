import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ConnectorError, defineConnector, type StoreOrder } from '@print-api/connector-kit';

/**
 * A tiny connector for an imaginary platform, REFERENCE, used only by the tests. It lives in its
 * own package folder and core loads it by configuration (`CONNECTORS=./test/reference-connector`):
 * it proves that a new platform needs nothing outside its folder, not even a name in a list.
 * It is not an npm workspace, so `CONNECTORS=all` never finds it.
 *
 * The imaginary platform: `GET /api/shop`, `GET /api/orders?updated_since=&limit=`,
 * `GET /api/order?id=`, `GET /api/products?page=` (its catalogue, `next_page` until the last),
 * `POST /api/webhooks`, `POST /api/orders/{id}/shipments`; webhooks signed with
 * `X-Ref-Signature: hex HMAC-SHA256(body)`. Its origin is the merchant's shop URL (as with
 * WooCommerce), so it has no `apiUrl` setting.
 */
const settingsSchema = z.object({
  pageSize: z.coerce.number().int().min(1).max(100).default(50).meta({ description: 'Orders per polling page' }),
});
type Settings = z.output<typeof settingsSchema>;

const credentials = z.object({ shopUrl: z.string(), token: z.string() });
type Credentials = z.infer<typeof credentials>;

const refOrder = z.object({
  id: z.string(),
  number: z.string(),
  paid: z.boolean(),
  cancelled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  items: z.array(
    z.object({
      id: z.string(),
      sku: z.string().nullable(),
      qty: z.number().int(),
      product_id: z.string().optional(),
      variant_id: z.string().optional(),
    }),
  ),
  ship_to: z
    .object({
      name: z.string(),
      company: z.string().optional(),
      email: z.string().optional(),
      phone: z.string().optional(),
      street: z.string(),
      zip: z.string(),
      city: z.string(),
      province: z.string().optional(),
      country: z.string(),
    })
    .nullable(),
});

const refProductsPage = z.object({
  products: z.array(
    z.object({
      id: z.string(),
      variant_id: z.string().optional(),
      sku: z.string().nullable(),
      title: z.string(),
      active: z.boolean(),
    }),
  ),
  next_page: z.number().int().nullable(),
});

export function mapReferenceOrder(raw: unknown): StoreOrder {
  const parsed = refOrder.safeParse(raw);
  if (!parsed.success)
    throw new ConnectorError('invalid_payload', `Not a reference order: ${parsed.error.issues[0]?.message}`);
  const o = parsed.data;
  return {
    externalId: o.id,
    name: o.number,
    paid: o.paid,
    cancelled: o.cancelled,
    createdAt: o.created_at,
    updatedAt: o.updated_at,
    lines: o.items.map((i) => ({
      externalLineId: i.id,
      sku: i.sku,
      quantity: i.qty,
      externalProductId: i.product_id,
      externalVariantId: i.variant_id,
    })),
    recipient: o.ship_to
      ? {
          name: o.ship_to.name,
          company: o.ship_to.company,
          email: o.ship_to.email,
          phone: o.ship_to.phone,
          address1: o.ship_to.street,
          postalCode: o.ship_to.zip,
          city: o.ship_to.city,
          state: o.ship_to.province,
          country: o.ship_to.country,
        }
      : null,
  };
}

export const referenceConnector = defineConnector<Credentials, Settings>({
  manifest: {
    platform: 'REFERENCE',
    displayName: 'Reference shop',
    settingsSchema,
    connectSchema: z.strictObject({ shopUrl: z.url({ protocol: /^https$/ }), token: z.string().min(1) }),
    examples: { connect: { shopUrl: 'https://ref-shop.example', token: 'ref_0123456789' } },
    credentialsSchema: credentials,
    capabilities: { webhooks: true, polling: true, fulfilment: true, oauth: false },
    rateLimit: { max: 50, durationMs: 1000 },
    pollIntervalMs: 60_000,
  },

  async connect(ctx, input) {
    const { shopUrl, token } = credentials.parse(input);
    const res = await ctx.http.request({
      method: 'GET',
      url: `${shopUrl}/api/shop`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200)
      throw ConnectorError.fromStatus('Reference shop', res.status, res.body, res.headers['retry-after']);
    const shop = JSON.parse(res.body) as { id: string; name: string };
    return { externalId: shop.id, name: shop.name, credentials: { shopUrl, token } };
  },

  async registerWebhooks(ctx, store, callbackUrl) {
    const secret = randomBytes(24).toString('hex');
    const res = await ctx.http.request({
      method: 'POST',
      url: `${store.credentials.shopUrl}/api/webhooks`,
      headers: { authorization: `Bearer ${store.credentials.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: callbackUrl, secret, topics: ['order.updated'] }),
    });
    if (res.status >= 300) throw ConnectorError.fromStatus('Reference shop', res.status, res.body);
    return { webhookSecret: secret };
  },

  verifyWebhook(req, secrets) {
    const signature = req.headers['x-ref-signature'];
    if (!signature || !secrets.storeSecret) return { ok: false, reason: 'missing X-Ref-Signature' };
    const expected = createHmac('sha256', secrets.storeSecret).update(req.rawBody).digest('hex');
    const a = Buffer.from(signature);
    const b = Buffer.from(expected);
    if (a.length !== b.length || !timingSafeEqual(a, b))
      return { ok: false, reason: 'the signature does not match the body' };
    return {
      ok: true,
      topic: req.headers['x-ref-topic'] ?? 'order.updated',
      eventId: req.headers['x-ref-event-id'] ?? null,
      occurredAt: null,
    };
  },

  async parseWebhook(_ctx, _store, req) {
    if (req.headers['x-ref-topic']?.startsWith('product.')) return { kind: 'listings_changed' };
    const body = JSON.parse(req.rawBody.toString('utf8')) as { order?: unknown };
    if (!body.order) return { kind: 'ignored', reason: 'no order in the payload' };
    return { kind: 'orders', orders: [mapReferenceOrder(body.order)] };
  },

  async listOrders(ctx, store, cursor) {
    const since = cursor ?? '1970-01-01T00:00:00Z';
    const res = await ctx.http.request({
      method: 'GET',
      url: `${store.credentials.shopUrl}/api/orders?updated_since=${encodeURIComponent(since)}&limit=${ctx.settings.pageSize}`,
      headers: { authorization: `Bearer ${store.credentials.token}` },
    });
    if (res.status !== 200)
      throw ConnectorError.fromStatus('Reference shop', res.status, res.body, res.headers['retry-after']);
    const orders = (JSON.parse(res.body) as { orders: unknown[] }).orders.map(mapReferenceOrder);
    const latest = orders.reduce((max, o) => (o.updatedAt > max ? o.updatedAt : max), since);
    return { orders, nextCursor: orders.length > 0 ? latest : null };
  },

  async fetchOrders(ctx, store, externalOrderIds) {
    const orders: StoreOrder[] = [];
    for (const id of externalOrderIds) {
      const res = await ctx.http.request({
        method: 'GET',
        url: `${store.credentials.shopUrl}/api/order?id=${encodeURIComponent(id)}`,
        headers: { authorization: `Bearer ${store.credentials.token}` },
      });
      if (res.status !== 200)
        throw ConnectorError.fromStatus('Reference shop', res.status, res.body, res.headers['retry-after']);
      orders.push(mapReferenceOrder((JSON.parse(res.body) as { order: unknown }).order));
    }
    return orders;
  },

  async listListings(ctx, store, cursor) {
    const res = await ctx.http.request({
      method: 'GET',
      url: `${store.credentials.shopUrl}/api/products?page=${encodeURIComponent(cursor ?? '1')}`,
      headers: { authorization: `Bearer ${store.credentials.token}` },
      operation: 'listProducts',
    });
    if (res.status !== 200)
      throw ConnectorError.fromStatus('Reference shop', res.status, res.body, res.headers['retry-after']);
    const page = refProductsPage.parse(JSON.parse(res.body));
    return {
      listings: page.products.map((p) => ({
        externalProductId: p.id,
        externalVariantId: p.variant_id ?? null,
        sku: p.sku,
        title: p.title,
        active: p.active,
      })),
      nextCursor: page.next_page === null ? null : String(page.next_page),
    };
  },

  async pushShipment(ctx, store, shipment) {
    const res = await ctx.http.request({
      method: 'POST',
      url: `${store.credentials.shopUrl}/api/orders/${shipment.externalOrderId}/shipments`,
      headers: { authorization: `Bearer ${store.credentials.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        carrier: shipment.carrier,
        tracking_number: shipment.trackingNumber,
        tracking_url: shipment.trackingUrl,
      }),
    });
    if (res.status >= 300)
      throw ConnectorError.fromStatus('Reference shop', res.status, res.body, res.headers['retry-after']);
  },
});
