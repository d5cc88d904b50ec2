import {
  connectStore,
  countedOrders,
  serveShopsByPath,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { wooCommerceWebhook } from './webhook-signer.ts';
import { FakeWooStore } from './fake-woo-store.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };

type WooOrderJson = typeof orderFixture;

/**
 * WooCommerce for the kit's conformance suite: stores served by one local HTTPS server, each
 * under its own path (`https://localhost:PORT/shop-N`, a WordPress site in a subfolder), each a
 * `FakeWooStore` answering the REST API (Basic auth with the store's keys) and delivering
 * signed webhooks. WooCommerce's tokens never expire and it tells nobody when keys are revoked.
 */
export class FakeWooCommerce implements FakePlatform {
  readonly platform = 'WOOCOMMERCE';
  readonly expiringTokens = false;
  readonly holdsProducts = true;
  readonly shipsTo = {
    name: 'Sanne Bakker',
    address1: 'Oudegracht 140',
    postalCode: '3511 AZ',
    city: 'Utrecht',
    country: 'NL',
    phone: '+31 30 123 4567',
    email: 'sanne.bakker@example.nl',
  };
  readonly stores = new Map<string, FakeWooStore>();
  #server: FakeHttpsServer | undefined;

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#server = server;
    serveShopsByPath(server, this.stores, (shop, r) => shop.answer(r));
    return {};
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const name = `shop-${this.stores.size + 1}`;
    const shop = new FakeWooStore({
      host: name,
      ourBaseUrl: service.baseUrl,
      publicUrl: service.publicUrl,
      url: `${this.#server!.url}/${name}`,
    });
    this.stores.set(name, shop);
    const storeId = await connectStore(
      service,
      key,
      {
        platform: 'WOOCOMMERCE',
        storeUrl: shop.url,
        consumerKey: shop.consumerKey,
        consumerSecret: shop.consumerSecret,
      },
      () => shop.seen('GET', /\/wc\/v3\/orders$/).length > 0,
    );
    return wooStore(shop, storeId);
  }
}

function wooStore(shop: FakeWooStore, storeId: string): FakeStore {
  return {
    storeId,
    ...countedOrders(1842, (spec) => shop.save(wooOrderOf(spec))),
    async deliver(spec, event, opts = {}) {
      const topic = event === 'created' ? 'order.created' : 'order.updated';
      const hook = shop.hook(topic);
      const order = wooOrderOf(spec);
      if (opts.tamper === 'forged')
        return shop.send(
          hook,
          wooCommerceWebhook({ payload: order, secret: 'f'.repeat(64), topic, source: shop.url, webhookId: hook.id }),
        );
      if (opts.tamper === 'stale') {
        // WooCommerce signs no timestamp: a replay is a captured signature sent with another body.
        const captured = wooCommerceWebhook({
          payload: wooOrderOf({ ...spec, cancelled: true }),
          secret: hook.secret,
          topic,
          source: shop.url,
          webhookId: hook.id,
        });
        return shop.send(hook, { headers: captured.headers, body: JSON.stringify(order) });
      }
      const deliveryId = opts.deliveryId
        ? String(1000 + [...opts.deliveryId].reduce((n, c) => n + c.charCodeAt(0), 0))
        : undefined;
      return shop.send(
        hook,
        wooCommerceWebhook({
          payload: order,
          secret: hook.secret,
          topic,
          source: shop.url,
          webhookId: hook.id,
          ...(deliveryId ? { deliveryId } : {}),
        }),
      );
    },
    pushedTracking(orderId) {
      return (shop.trackings.get(Number(orderId)) ?? []).map((t) => ({
        trackingNumber: String(t.tracking_number),
        trackingUrl: String(t.tracking_link),
      }));
    },
    product(externalProductId) {
      const p = shop.products.get(Number(externalProductId));
      return p && { sku: p.sku || null, title: p.name, price: p.regular_price ?? '', active: p.status === 'publish' };
    },
    rateLimitNextPush(retryAfterSeconds) {
      // The push reads the order's customer notes first (it adds one with the tracking).
      shop.failNext('GET', /\/orders\/\d+\/notes$/, 429, { 'Retry-After': String(retryAfterSeconds) });
      return () => shop.seen('GET', /\/orders\/\d+\/notes$/).map((r) => r.at);
    },
  };
}

/** The documented order JSON with the spec's facts: id, payment, cancellation, modification time, lines. */
function wooOrderOf(spec: OrderSpec & { id: string }): WooOrderJson {
  const o = structuredClone(orderFixture);
  const line = o.line_items[0]!;
  const gmt = (spec.updatedAt ?? new Date().toISOString()).slice(0, 19);
  const local = new Date(new Date(`${gmt}Z`).getTime() + 2 * 3600_000).toISOString().slice(0, 19);
  return {
    ...o,
    id: Number(spec.id),
    number: spec.id,
    status: spec.cancelled ? 'cancelled' : spec.paid ? 'processing' : 'pending',
    ...(spec.paid ? {} : { date_paid: null, date_paid_gmt: null, needs_payment: true }),
    date_modified_gmt: gmt,
    date_modified: local,
    line_items: spec.lines.map((l, i) => ({
      ...line,
      id: line.id + i,
      sku: l.sku,
      quantity: l.quantity,
      name: `${line.name} ${i + 1}`,
    })),
  } as WooOrderJson;
}
