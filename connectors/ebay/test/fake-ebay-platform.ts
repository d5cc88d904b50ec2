import {
  eventually,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { ebayErrors, FakeEbay, type FakeSeller, type Json } from './fake-ebay.ts';

let nextOrder = 1;
/** An order id in eBay's form (12-34567-89012), unique in this run. */
export const ebayOrderId = () =>
  `${String(10 + (process.pid % 89))}-${String(10_000 + nextOrder).padStart(5, '0')}-${String(nextOrder++).padStart(5, '0')}`;

export const SHIP_TO = {
  fullName: 'Anna de Vries',
  companyName: 'Bloemen & Zo B.V.',
  email: 'a3f9c2e1b7d4@members.ebay.com',
  primaryPhone: { phoneNumber: '+31 20 123 4567' },
  contactAddress: {
    addressLine1: 'Prinsengracht 263',
    addressLine2: '2e verdieping',
    city: 'Amsterdam',
    stateOrProvince: 'NH',
    postalCode: '1016 GV',
    countryCode: 'NL',
  },
};

/** An order of the Fulfillment API with the spec's facts (payment, cancellation, lines by SKU). */
export function ebayOrderOf(
  seller: FakeSeller,
  spec: OrderSpec & { id: string },
  over: { paymentStatus?: string; cancelState?: string } = {},
): Json {
  const updated = seller.stamp(spec.updatedAt);
  const existing = seller.orders.get(spec.id);
  return {
    orderId: spec.id,
    legacyOrderId: spec.id,
    creationDate: existing?.creationDate ?? updated,
    lastModifiedDate: updated,
    orderFulfillmentStatus: existing?.orderFulfillmentStatus ?? 'NOT_STARTED',
    orderPaymentStatus: over.paymentStatus ?? (spec.paid ? 'PAID' : 'PENDING'),
    sellerId: seller.username,
    buyer: { username: 'buyer_anna_nl' },
    cancelStatus: {
      cancelState: over.cancelState ?? (spec.cancelled ? 'CANCELED' : 'NONE_REQUESTED'),
      cancelRequests: [],
    },
    pricingSummary: { total: { value: '24.95', currency: 'EUR' } },
    fulfillmentStartInstructions: [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        ebaySupportedFulfillment: false,
        shippingStep: { shippingCarrierCode: 'DHL', shipTo: structuredClone(SHIP_TO) },
      },
    ],
    lineItems: spec.lines.map((l, i) => ({
      lineItemId: `${spec.id.replace(/-/g, '').slice(-8)}${String(i).padStart(3, '0')}`,
      legacyItemId: String(110_000_000_100 + i),
      ...(l.sku ? { sku: l.sku } : {}),
      title: `Poster ${i + 1}`,
      quantity: l.quantity,
      lineItemCost: { value: '24.95', currency: 'EUR' },
      soldFormat: 'FIXED_PRICE',
      lineItemFulfillmentStatus: 'NOT_STARTED',
    })),
  };
}

/** The install as the seller's browser goes through it: install link, eBay's consent, our callback. */
export async function consentInstall(
  service: Pick<ConformanceService, 'api' | 'toService'>,
  key: string,
  ebay: FakeEbay,
  seller: FakeSeller,
): Promise<Response> {
  const link = await service.api(key, 'POST', '/stores/install-links', {
    platform: 'EBAY',
    returnUrl: 'https://app.reseller.example/stores',
  });
  if (link.status !== 201) throw new Error(`install link: ${link.status} ${JSON.stringify(link.body)}`);
  const begin = await fetch(service.toService(link.body.data.installUrl), { redirect: 'manual' });
  await begin.arrayBuffer();
  const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const back = ebay.approve(begin.headers.get('location')!, seller);
  return fetch(service.toService(back), { redirect: 'manual', headers: { cookie: cookies.join('; ') } });
}

/**
 * The kit's conformance suite's view of eBay: sellers installed through the consent page, orders polled through sync.
 */
export class FakeEbayPlatform implements FakePlatform {
  readonly platform = 'EBAY';
  readonly expiringTokens = true;
  readonly holdsProducts = true;
  readonly publishYields = 'draft' as const;
  readonly shipsTo = {
    name: SHIP_TO.fullName,
    company: SHIP_TO.companyName,
    address1: SHIP_TO.contactAddress.addressLine1,
    address2: SHIP_TO.contactAddress.addressLine2,
    postalCode: SHIP_TO.contactAddress.postalCode,
    city: SHIP_TO.contactAddress.city,
    state: SHIP_TO.contactAddress.stateOrProvince,
    country: 'NL',
  };
  readonly ebay = new FakeEbay();

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.ebay.serve(server, 'https://print-api.example.com');
    return this.ebay.settings();
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    this.ebay.acceptUrl = `${service.publicUrl}/connectors/ebay/callback`;
    const seller = this.ebay.seller();
    const done = await consentInstall(service, key, this.ebay, seller);
    if (done.status !== 303) throw new Error(`install callback answered ${done.status}: ${await done.text()}`);
    await done.arrayBuffer();
    const storeId = new URL(done.headers.get('location')!).searchParams.get('store')!;
    await eventually(
      async () => (await service.api(key, 'GET', `/stores/${storeId}`)).body.data.lastPolledAt,
      'the first poll',
    );
    return ebayStore(this.ebay, seller, storeId);
  }
}

export function ebayStore(ebay: FakeEbay, seller: FakeSeller, storeId: string): FakeStore {
  return {
    storeId,
    nextOrderId: ebayOrderId,
    saveOrder(spec) {
      const id = spec.id ?? ebayOrderId();
      seller.orders.set(id, ebayOrderOf(seller, { ...spec, id }));
      return id;
    },
    async deliver() {
      throw new Error('eBay orders are polled');
    },
    pushedTracking: (orderId) =>
      (seller.fulfillments.get(orderId) ?? []).map((f) => ({ trackingNumber: f.shipmentTrackingNumber })),
    rateLimitNextPush(retryAfterSeconds) {
      seller.faultNext('createShippingFulfillment', [
        429,
        ebayErrors(
          2001,
          'Too many requests. The request limit has been reached for the resource.',
          'REQUEST',
          'ACCESS',
        ),
        { 'Retry-After': String(retryAfterSeconds) },
      ]);
      return () => seller.seen('createShippingFulfillment').map((c) => c.at);
    },
    expireTokens: () => ebay.expireTokens(seller),
    tokenRefreshes: () => seller.refreshes,
    async uninstall() {
      ebay.revoke(seller);
      return 200;
    },
    product(sku) {
      const item = seller.items.get(sku);
      const offer = [...seller.offers.values()].find((o) => o.sku === sku);
      if (!item || !offer) return undefined;
      return {
        sku,
        title: item.product.title,
        price: offer.pricingSummary.price.value,
        active: offer.status === 'PUBLISHED',
      };
    },
    publishOptions: { categoryId: '140' },
    completeListing(sku) {
      const item = seller.items.get(sku);
      if (item) item.product.imageUrls = ['https://i.ebayimg.com/images/g/tulip/s-l1600.jpg'];
    },
  };
}
