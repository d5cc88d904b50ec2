import {
  eventually,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { type FakeShop, FakeTikTokShopPlatform, type OrderJson } from './fake-tiktok-shop.ts';
import { tiktokId } from './fake-tiktok-shop-operations.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };
import germanAddress from './fixtures/recipient-address-de.json' with { type: 'json' };

// The tests' side of the fake TikTok Shop: the orders a shop has, and the kit's conformance suite's view of a shop.

/** The documented order JSON with a spec's facts: one line item per unit (TikTok has no quantity). */
export function tiktokOrderOf(
  spec: OrderSpec & { id: string },
  over: { shippingType?: 'SELLER' | 'TIKTOK'; status?: string } = {},
): OrderJson {
  const base = structuredClone(orderFixture) as unknown as OrderJson;
  const template = base.line_items[0]!;
  const updated = Math.floor(Date.parse(spec.updatedAt ?? new Date().toISOString()) / 1000);
  const status = over.status ?? (spec.cancelled ? 'CANCELLED' : spec.paid ? 'AWAITING_SHIPMENT' : 'UNPAID');
  let unit = 0;
  const lineItems = spec.lines.flatMap((line, l) =>
    Array.from({ length: line.quantity }, () => ({
      ...template,
      id: `${spec.id.slice(0, 12)}${String(++unit).padStart(7, '0')}`,
      sku_id: `17290000000000${String(l).padStart(5, '0')}`,
      seller_sku: line.sku,
      product_name: line.sku ? `Design ${line.sku}` : 'Gift card',
      display_status: status,
    })),
  );
  // A shop in Germany (TikTok Shop sells there since 2025): we print for EU addresses.
  const order: OrderJson = {
    ...base,
    recipient_address: germanAddress,
    payment: { ...base.payment, currency: 'EUR' },
    id: spec.id,
    status,
    create_time: updated - 60,
    update_time: updated,
    shipping_type: over.shippingType ?? 'SELLER',
    line_items: lineItems,
  };
  if (status === 'UNPAID' || status === 'ON_HOLD') delete (order as Partial<OrderJson>).recipient_address;
  if (status === 'UNPAID') delete (order as Partial<OrderJson>).paid_time;
  return order;
}

/** TikTok Shop for the kit's conformance suite: each store a shop authorised through the install link. */
export class FakeTikTokShop implements FakePlatform {
  readonly platform = 'TIKTOK_SHOP';
  readonly expiringTokens = true;
  readonly shipsTo = {
    name: 'Lena Schmidt',
    address1: 'Torstraße 12',
    address2: 'Hinterhaus',
    postalCode: '10119',
    city: 'Berlin',
    country: 'DE',
    phone: '+49 30 1234567',
  };
  readonly tiktok = new FakeTikTokShopPlatform();

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    return this.tiktok.serve(server);
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const shop = this.tiktok.addShop();
    const done = await this.tiktok.install(service, key, [shop]);
    if (done.status !== 303) throw new Error(`callback answered ${done.status} ${JSON.stringify(done.body)}`);
    const storeId = new URL(done.location!).searchParams.get('store')!;
    await eventually(
      async () =>
        this.tiktok.seen(/\/orders\/search$/).some((c) => c.query.shop_cipher === shop.cipher && c.code === 0),
      'the first poll',
    );
    return tiktokStore(this.tiktok, service, shop, storeId);
  }
}

export function tiktokStore(
  tiktok: FakeTikTokShopPlatform,
  service: ConformanceService,
  shop: FakeShop,
  storeId: string,
): FakeStore {
  const notificationIds = new Map<string, string>();
  return {
    storeId,
    nextOrderId: () => tiktokId(),
    saveOrder(spec) {
      const id = spec.id ?? tiktokId();
      tiktok.save(shop, tiktokOrderOf({ ...spec, id }));
      return id;
    },
    deliver(spec, _event, opts = {}) {
      const order = tiktokOrderOf(spec);
      let notificationId = tiktokId();
      if (opts.deliveryId) {
        notificationId = notificationIds.get(opts.deliveryId) ?? notificationId;
        notificationIds.set(opts.deliveryId, notificationId);
      }
      // TikTok retries for hours, not days: a notification sent two days ago is a replay.
      const timestamp = Math.floor(Date.now() / 1000) - (opts.tamper === 'stale' ? 2 * 24 * 3600 : 0);
      const payload = {
        type: 1,
        tts_notification_id: notificationId,
        shop_id: shop.id,
        timestamp,
        data: {
          is_on_hold_order: false,
          order_id: order.id,
          order_status: order.status,
          update_time: order.update_time,
        },
      };
      return tiktok.deliver(service, shop, payload, opts.tamper === 'forged' ? { secret: 'not-the-app-secret' } : {});
    },
    pushedTracking: (orderId) =>
      shop.packages.filter((p) => p.orderId === orderId).map((p) => ({ trackingNumber: p.tracking_number })),
    rateLimitNextPush(retryAfterSeconds) {
      shop.rateLimits.push(retryAfterSeconds);
      return () => shop.pushAttempts;
    },
    expireTokens: () => tiktok.expireTokens(),
    tokenRefreshes: () => tiktok.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length,
    uninstall: () => {
      tiktok.revoke(shop.id);
      return tiktok.deliver(service, shop, {
        type: 6,
        tts_notification_id: tiktokId(),
        shop_id: shop.id,
        timestamp: Math.floor(Date.now() / 1000),
        data: { message: 'The seller has deauthorized the application.' },
      });
    },
  };
}
