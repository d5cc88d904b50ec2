import { minorUnitsToDecimal } from '@print-api/connector-kit';
import {
  eventually,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
} from '@print-api/connector-kit/testing';
import { FakeEtsy, type FakeEtsyShop } from './fake-etsy.ts';
import { receiptOf } from './fake-etsy-receipts.ts';
import { uploadInShopManager } from './fake-etsy-listings.ts';

/** Etsy's seller taxonomy for prints (Art & Collectibles > Prints). */
const PRINTS_TAXONOMY = 2078;
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';

/**
 * The OAuth install as a merchant's browser goes through it: the reseller's install link, our
 * redirect to Etsy's consent screen (PKCE challenge), the merchant's approval, Etsy's redirect
 * back to our callback with the code and state. Answers the callback's response.
 */
export async function installThroughBrowser(
  service: ConformanceService,
  etsy: FakeEtsy,
  key: string,
  shop: FakeEtsyShop,
  tamper: (callbackUrl: string) => string = (u) => u,
  before: () => void = () => undefined,
): Promise<Response> {
  const link = await service.api(key, 'POST', '/stores/install-links', {
    platform: 'ETSY',
    returnUrl: 'https://app.reseller.example/stores',
  });
  if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
  const begin = await fetch(service.toService(link.body.data.installUrl), {
    redirect: 'manual',
    headers: { 'user-agent': BROWSER },
  });
  await begin.arrayBuffer();
  if (begin.status !== 302 && begin.status !== 303) throw new Error(`install answered ${begin.status}`);
  const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const callback = tamper(etsy.approve(begin.headers.get('location')!, shop));
  before();
  return fetch(callback, { redirect: 'manual', headers: { cookie: cookies.join('; '), 'user-agent': BROWSER } });
}

/** Installs the shop and answers our store id (the install's callback redirects to the return URL with it). */
export async function install(
  service: ConformanceService,
  etsy: FakeEtsy,
  key: string,
  shop: FakeEtsyShop,
): Promise<string> {
  const done = await installThroughBrowser(service, etsy, key, shop);
  const text = await done.text();
  if (done.status !== 303) throw new Error(`OAuth callback answered ${done.status}: ${text}`);
  return new URL(done.headers.get('location')!).searchParams.get('store')!;
}

/**
 * Etsy for the kit's conformance suite: one fake Etsy, a new seller and shop per connected
 * store, installed through OAuth as a merchant would. Access tokens live five minutes here
 * (Etsy: an hour), within the connector's renewal margin, so each call is preceded by a
 * refresh-token grant (rotating the refresh token) the fake checks. Etsy's webhook is thin:
 * every event is `order.paid` (or `order.canceled`) naming the receipt, which is fetched.
 */
export class EtsyPlatform implements FakePlatform {
  readonly platform = 'ETSY';
  readonly expiringTokens = true;
  readonly holdsProducts = true;
  /** Etsy activates no listing without an image, and the suite publishes none: a publish makes a draft. */
  readonly publishYields = 'draft';
  // Etsy gives no buyer phone (the reseller's contact applies) and no e-mail without approval.
  readonly shipsTo = {
    name: 'Ada Lovelace',
    address1: 'Oudegracht 140',
    address2: '2e verdieping',
    postalCode: '3511 AZ',
    city: 'Utrecht',
    country: 'NL',
  };
  readonly etsy = new FakeEtsy();
  #server: FakeHttpsServer | undefined;

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#server = server;
    this.etsy.tokenLifetimeSeconds = 300;
    return this.etsy.serve(server);
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    this.etsy.attach(service);
    const shop = this.etsy.addShop();
    const storeId = await install(service, this.etsy, key, shop);
    await eventually(
      async () => this.etsy.seen(new RegExp(`^GET /v3/application/shops/${shop.shopId}/receipts$`)).length > 0,
      'the first poll',
    );
    return etsyStore(this.etsy, shop, storeId);
  }
}

function etsyStore(etsy: FakeEtsy, shop: FakeEtsyShop, storeId: string): FakeStore {
  let pending: string | null = null;
  const nextOrderId = () => {
    const id = pending ?? etsy.nextReceiptId();
    pending = null;
    return id;
  };
  return {
    storeId,
    nextOrderId: () => (pending = etsy.nextReceiptId()),
    saveOrder(spec) {
      const id = spec.id ?? nextOrderId();
      etsy.saveReceipt(shop, receiptOf({ ...spec, id }));
      return id;
    },
    deliver(spec, event, opts = {}) {
      const eventType = event === 'cancelled' ? 'order.canceled' : 'order.paid';
      if (opts.tamper === 'forged')
        return etsy.deliver(shop, spec.id, { eventType, secret: 'whsec_Zm9yZ2VkLXNlY3JldC1mb3ItdGVzdHM=' });
      // Standard Webhooks: a timestamp more than five minutes old is a replay.
      if (opts.tamper === 'stale')
        return etsy.deliver(shop, spec.id, { eventType, timestamp: Math.floor(Date.now() / 1000) - 10 * 60 });
      return etsy.deliver(shop, spec.id, {
        eventType,
        ...(opts.deliveryId ? { id: `msg_${shop.shopId}_${opts.deliveryId}` } : {}),
      });
    },
    pushedTracking: (orderId) => (shop.tracking.get(orderId) ?? []).map((t) => ({ trackingNumber: t.tracking_code })),
    rateLimitNextPush(retryAfterSeconds) {
      const path = new RegExp(`^POST /v3/application/shops/${shop.shopId}/receipts/\\d+/tracking$`);
      etsy.faultNext(path, [
        429,
        { error: 'Too many requests' },
        { 'retry-after': String(retryAfterSeconds), 'x-remaining-this-second': '0' },
      ]);
      return () => etsy.seen(path).map((c) => c.at);
    },
    expireTokens: () => etsy.expireTokens(),
    tokenRefreshes: () => etsy.tokenRequests.filter((r) => r.grant_type === 'refresh_token').length,
    // A merchant's publish names the shop's own profiles and policies (Etsy needs them to list it) and a Prints
    // taxonomy.
    publishOptions: {
      taxonomyId: PRINTS_TAXONOMY,
      shippingProfileId: shop.setup.shippingProfiles[0],
      readinessStateId: shop.setup.readinessStates[0],
      returnPolicyId: shop.setup.returnPolicies[0],
    },
    product(externalProductId) {
      const l = shop.listings.find((x) => String(x.listing_id) === externalProductId);
      const product = l?.inventory.products.find((p) => !p.is_deleted);
      const price = product?.offerings[0]?.price;
      return (
        l && {
          sku: product?.sku || null,
          title: l.title,
          price: price ? minorUnitsToDecimal(price.amount, price.currency_code) : '',
          active: l.state === 'active',
        }
      );
    },
    // The merchant uploads an image to the draft in Shop Manager (Etsy activates no listing without one).
    completeListing: (externalProductId) => uploadInShopManager(shop, externalProductId),
  };
}
