import {
  countedOrders,
  eventually,
  serveShopsByPath,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { PUBLICATIONS } from './fake-shopify-catalogue.ts';
import { FakeShopifyStore, type ShopifyOrderJson } from './fake-shopify-store.ts';
import appUninstalled from './fixtures/app-uninstalled.json' with { type: 'json' };
import { shopifyOrder } from './shopify-fixtures.ts';

const APP = { apiKey: '4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90', secret: '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' };
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
const ONLINE_STORE = PUBLICATIONS.find((p) => p.name === 'Online Store')!.id;
const TOPICS = {
  created: 'orders/create',
  updated: 'orders/updated',
  paid: 'orders/paid',
  cancelled: 'orders/cancelled',
} as const;

/**
 * Shopify for the kit's conformance suite: shops served by one local HTTPS server, each under
 * its domain (`CONNECTOR_SHOPIFY_API_URL=https://localhost:PORT/{shop}`), each a
 * `FakeShopifyStore` (OAuth token endpoint, GraphQL Admin API, signed webhooks). Stores are
 * installed through OAuth, as a merchant would, with expiring offline tokens. Their access
 * tokens live five minutes here (Shopify: an hour), so they are always due for renewal: the
 * connector renews before each call, which the token scenario proves against the fake's check.
 */
export class FakeShopify implements FakePlatform {
  readonly platform = 'SHOPIFY';
  readonly expiringTokens = true;
  readonly holdsProducts = true;
  readonly shipsTo = {
    name: 'Sanne Bakker',
    address1: 'Oudegracht 140',
    address2: '2e verdieping',
    postalCode: '3511 AZ',
    city: 'Utrecht',
    country: 'NL',
    phone: '+31 30 123 4567',
    email: 'sanne.bakker@example.nl',
  };
  readonly shops = new Map<string, FakeShopifyStore>();
  #apiUrl = '';

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#apiUrl = `${server.url}/{shop}`;
    serveShopsByPath(server, this.shops, (shop, r) => shop.answer(r));
    return {
      CONNECTOR_SHOPIFY_API_KEY: APP.apiKey,
      CONNECTOR_SHOPIFY_API_SECRET: APP.secret,
      CONNECTOR_SHOPIFY_API_URL: this.#apiUrl,
    };
  }

  /**
   * A new shop served by this fake, not connected to anything (`ours`: where the service listens, the URL it
   * registers).
   */
  newShop(ours: { baseUrl: string; publicUrl: string }): FakeShopifyStore {
    const shop = new FakeShopifyStore({
      name: `tulip-prints-${this.shops.size + 1}`,
      app: APP,
      ourBaseUrl: ours.baseUrl,
      publicUrl: ours.publicUrl,
      apiUrl: this.#apiUrl,
      served: true,
      tokenLifetimeSeconds: 300,
    });
    this.shops.set(shop.domain, shop);
    return shop;
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const shop = this.newShop(service);
    const storeId = await oauthInstall(service, key, shop);
    await eventually(async () => shop.seen('OrdersChangedSince').length > 0, 'the first poll');
    return shopifyStore(shop, storeId);
  }
}

/**
 * The OAuth install as a merchant's browser goes through it: install link, consent, callback. Answers the store's id.
 */
async function oauthInstall(service: ConformanceService, key: string, shop: FakeShopifyStore): Promise<string> {
  const link = await service.api(key, 'POST', '/stores/install-links', {
    platform: 'SHOPIFY',
    shop: shop.domain,
    returnUrl: 'https://app.reseller.example/stores',
  });
  if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
  const begin = await fetch(service.toService(link.body.data.installUrl), {
    redirect: 'manual',
    headers: { 'user-agent': BROWSER },
  });
  await begin.arrayBuffer();
  const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const done = await fetch(shop.approve(begin.headers.get('location')!), {
    redirect: 'manual',
    headers: { cookie: cookies.join('; '), 'user-agent': BROWSER },
  });
  await done.arrayBuffer();
  if (done.status !== 303) throw new Error(`OAuth callback answered ${done.status}`);
  return new URL(done.headers.get('location')!).searchParams.get('store')!;
}

function shopifyStore(shop: FakeShopifyStore, storeId: string): FakeStore {
  return {
    storeId,
    ...countedOrders(6512345678901, (spec) => shop.save(shopifyOrderOf(spec))),
    deliver(spec, event, opts = {}) {
      const order = shopifyOrderOf(spec);
      if (opts.tamper === 'forged') return shop.deliver(order, TOPICS[event], { secret: 'shpss_forged' });
      // Shopify retries for 4 hours: a delivery triggered 6 hours ago is a replay.
      if (opts.tamper === 'stale')
        return shop.deliver(order, TOPICS[event], { triggeredAt: new Date(Date.now() - 6 * 3600_000).toISOString() });
      return shop.deliver(order, TOPICS[event], opts.deliveryId ? { eventId: opts.deliveryId } : {});
    },
    pushedTracking(orderId) {
      const fulfillmentOrders = new Set((shop.fulfillmentOrders.get(orderId) ?? []).map((f) => f.id));
      return shop.fulfillments
        .filter((f) => fulfillmentOrders.has(f.fulfillmentOrderId))
        .map((f) => {
          const info = f.trackingInfo as { number: string; url: string };
          return { trackingNumber: info.number, trackingUrl: info.url };
        });
    },
    product(externalProductId) {
      const p = shop.products.get(Number(externalProductId));
      const variant = p?.variants[0];
      // On sale: active, and published to the Online Store (a product on no channel is seen by no buyer).
      return (
        p &&
        variant && {
          sku: variant.sku,
          title: p.title,
          price: variant.price ?? '',
          active: p.status === 'ACTIVE' && (p.publications ?? []).includes(ONLINE_STORE),
        }
      );
    },
    rateLimitNextPush(retryAfterSeconds) {
      shop.faultNext('OpenFulfillmentOrders', [
        429,
        { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' },
        { 'Retry-After': String(retryAfterSeconds) },
      ]);
      return () => shop.seen('OpenFulfillmentOrders').map((c) => c.at);
    },
    expireTokens: () => shop.expireTokens(),
    tokenRefreshes: () => shop.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length,
    uninstall: () => shop.deliver({ ...appUninstalled, myshopify_domain: shop.domain }, 'app/uninstalled'),
  };
}

/** The documented order webhook with the spec's facts: id, payment, cancellation, update time, lines. */
function shopifyOrderOf(spec: OrderSpec & { id: string }): ShopifyOrderJson {
  const base = shopifyOrder();
  const line = base.line_items[0]!;
  const id = Number(spec.id);
  const updated = spec.updatedAt ?? new Date().toISOString();
  return {
    ...base,
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${id % 10_000}`,
    financial_status: spec.cancelled ? 'refunded' : spec.paid ? 'paid' : 'pending',
    cancelled_at: spec.cancelled ? updated : null,
    cancel_reason: spec.cancelled ? 'customer' : null,
    updated_at: updated,
    line_items: spec.lines.map((l, i) => {
      const lineId = id * 100 + i;
      return {
        ...line,
        id: lineId,
        admin_graphql_api_id: `gid://shopify/LineItem/${lineId}`,
        sku: l.sku,
        quantity: l.quantity,
        current_quantity: l.quantity,
      };
    }) as ShopifyOrderJson['line_items'],
  };
}
