import {
  eventually,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { type AmazonOrderJson, FakeAmazon, type FakeSeller } from './fake-amazon.ts';
import { errors } from './fake-amazon-operations.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };

// The tests' side of the fake Amazon: the orders a seller has, the seller's browser through the consent flow, and the
// kit's conformance suite's view of it all.

let nextOrder = 1;
/** An order id in Amazon's 3-7-7 form, unique in this run. */
export const amazonOrderId = () =>
  `302-${String(4_000_000 + (process.pid % 1000) * 1000 + nextOrder).padStart(7, '0')}-${String(nextOrder++).padStart(7, '0')}`;

/** The documented order with the spec's facts (status, update time, lines: one order item each). */
export function amazonOrderOf(
  seller: FakeSeller,
  spec: OrderSpec & { id: string },
  over: { fulfilledBy?: 'MERCHANT' | 'AMAZON'; status?: string } = {},
): AmazonOrderJson {
  const base = structuredClone(orderFixture) as AmazonOrderJson;
  const item = base.orderItems[0]!;
  const updated = seller.stamp(spec.updatedAt);
  const existing = seller.orders.get(spec.id);
  return {
    ...base,
    orderId: spec.id,
    createdTime: existing?.createdTime ?? updated,
    lastUpdatedTime: updated,
    fulfillment: {
      ...base.fulfillment,
      fulfillmentStatus: over.status ?? (spec.cancelled ? 'CANCELLED' : spec.paid ? 'UNSHIPPED' : 'PENDING'),
      fulfilledBy: over.fulfilledBy ?? 'MERCHANT',
    },
    orderItems: spec.lines.map((l, i) => ({
      ...item,
      orderItemId: `${spec.id.replace(/-/g, '').slice(-10)}${String(i).padStart(4, '0')}`,
      quantityOrdered: l.quantity,
      product: { ...item.product, sellerSku: l.sku as string, asin: `B0${String(i).padStart(8, '0')}` },
      fulfillment: { quantityFulfilled: 0, quantityUnfulfilled: l.quantity },
    })),
    packages: existing?.packages ?? [],
  };
}

/**
 * The install as the seller's browser goes through it: install link, consent in Seller Central, our callback. Answers
 * the callback's response.
 */
export async function consentInstall(
  service: Pick<ConformanceService, 'api' | 'toService'>,
  key: string,
  amazon: FakeAmazon,
  seller: FakeSeller,
  opts: { marketplaceIds?: string; issuedAt?: number; state?: string; code?: string } = {},
): Promise<Response> {
  const link = await service.api(key, 'POST', '/stores/install-links', {
    platform: 'AMAZON',
    ...(opts.marketplaceIds ? { marketplaceIds: opts.marketplaceIds } : {}),
    returnUrl: 'https://app.reseller.example/stores',
  });
  if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
  const begin = await fetch(service.toService(link.body.data.installUrl), { redirect: 'manual' });
  await begin.arrayBuffer();
  const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
  let back = amazon.approve(begin.headers.get('location')!, seller, opts);
  if (opts.code !== undefined) {
    const u = new URL(back);
    u.searchParams.set('spapi_oauth_code', opts.code);
    back = u.toString();
  }
  return fetch(service.toService(back), { redirect: 'manual', headers: { cookie: cookies.join('; ') } });
}

/** The kit's conformance suite's view of Amazon: sellers installed through the consent flow, polled through sync. */
export class FakeAmazonPlatform implements FakePlatform {
  readonly platform = 'AMAZON';
  readonly expiringTokens = true;
  readonly shipsTo = {
    name: 'Ada Weber',
    address1: 'Kastanienallee 12',
    address2: 'Hinterhaus, 3. OG',
    postalCode: '10435',
    city: 'Berlin',
    country: 'DE',
    phone: '+49 30 1234567',
    email: 'x7k2q9w1mzt4d8h@marketplace.amazon.de',
  };
  readonly amazon = new FakeAmazon();

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.amazon.serve(server);
    return this.amazon.settings();
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const seller = this.amazon.seller();
    const done = await consentInstall(service, key, this.amazon, seller);
    await done.arrayBuffer();
    if (done.status !== 303) throw new Error(`install callback answered ${done.status}`);
    const storeId = new URL(done.headers.get('location')!).searchParams.get('store')!;
    await eventually(
      async () => (await service.api(key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
      'the first poll',
    );
    return amazonStore(seller, storeId);
  }
}

function amazonStore(seller: FakeSeller, storeId: string): FakeStore {
  return {
    storeId,
    nextOrderId: amazonOrderId,
    saveOrder(spec) {
      const id = spec.id ?? amazonOrderId();
      seller.save(amazonOrderOf(seller, { ...spec, id }));
      return id;
    },
    async deliver() {
      throw new Error('Amazon sends no HTTP webhooks');
    },
    pushedTracking: (orderId) =>
      (seller.orders.get(orderId)?.packages ?? []).map((p) => ({ trackingNumber: String(p.trackingNumber) })),
    rateLimitNextPush(retryAfterSeconds) {
      seller.faultNext('confirmShipment', [
        429,
        errors('QuotaExceeded', 'You exceeded your quota for the requested resource.'),
        { 'Retry-After': String(retryAfterSeconds), 'x-amzn-RateLimit-Limit': '2.0' },
      ]);
      return () => seller.seen('confirmShipment').map((c) => c.at);
    },
    expireTokens: () => seller.expireTokens(),
    tokenRefreshes: () => seller.refreshes,
    async uninstall() {
      seller.revoke();
      return 200;
    },
  };
}
