import {
  connectStore,
  serveShopsByPath,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { FakeShopwareShop, hexId, state, SYSTEM_CURRENCY_ID, wireTime } from './fake-shopware-shop.ts';

type Json = Record<string, any>;

/** Where the fake's orders ship to: a studio in Milan (a company, a second address line, the province `IT-MI`). */
export const SHIPPING_ADDRESS = {
  firstName: 'Giulia',
  lastName: 'Bianchi',
  company: 'Studio Bianchi',
  street: 'Via Torino 21',
  additionalAddressLine1: 'Scala B',
  zipcode: '20123',
  city: 'Milano',
  phoneNumber: '+39 02 1234 5678',
  email: 'giulia.bianchi@example.it',
};

/**
 * Shopware 6 for the kit's conformance suite: shops served by one local HTTPS server, each under its own path
 * (`https://localhost:PORT/shop-N`, its Admin API at `/shop-N/api`), each a `FakeShopwareShop`. Integrations send no
 * webhooks: orders are polled. Tokens live 10 minutes; `uninstall` is the merchant deleting the integration.
 */
export class FakeShopware implements FakePlatform {
  readonly platform = 'SHOPWARE';
  readonly expiringTokens = true;
  readonly holdsProducts = true;
  readonly shipsTo = {
    name: 'Giulia Bianchi',
    company: 'Studio Bianchi',
    address1: 'Via Torino 21',
    address2: 'Scala B',
    postalCode: '20123',
    city: 'Milano',
    state: 'MI',
    country: 'IT',
    phone: '+39 02 1234 5678',
    email: 'giulia.bianchi@example.it',
  };
  readonly shops = new Map<string, FakeShopwareShop>();
  #server: FakeHttpsServer | undefined;

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#server = server;
    serveShopsByPath(server, this.shops, (shop, r) => shop.answer(r, new URL(r.url).pathname));
    return {};
  }

  /** A new shop on the fake (not connected). */
  newShop(): FakeShopwareShop {
    const name = `shop-${this.shops.size + 1}`;
    const shop = new FakeShopwareShop(`${this.#server!.url}/${name}`);
    this.shops.set(name, shop);
    return shop;
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const shop = this.newShop();
    const storeId = await connectStore(
      service,
      key,
      {
        platform: 'SHOPWARE',
        shopUrl: shop.url,
        accessKeyId: shop.accessKeyId,
        secretAccessKey: shop.secretAccessKey,
      },
      () => shop.seen('POST', /^\/api\/search\/order$/).length > 0,
    );
    return shopwareStore(shop, storeId);
  }
}

/** The kit's view of one fake shop. */
export function shopwareStore(shop: FakeShopwareShop, storeId: string): FakeStore {
  let next = hexId();
  return {
    storeId,
    nextOrderId: () => {
      const id = next;
      next = hexId();
      return id;
    },
    saveOrder(spec) {
      const id = spec.id ?? this.nextOrderId();
      saveOrder(shop, { ...spec, id });
      return id;
    },
    async deliver() {
      throw new Error('Shopware integrations send no webhooks');
    },
    pushedTracking(orderId) {
      const codes: string[] = shop.orders.get(orderId)?.deliveries[0]?.trackingCodes ?? [];
      return codes.map((trackingNumber) => ({ trackingNumber }));
    },
    rateLimitNextPush(retryAfterSeconds) {
      shop.failNext('PATCH', /^\/order-delivery\//, 429, { 'Retry-After': String(retryAfterSeconds) });
      return () => shop.seen('PATCH', /^\/api\/order-delivery\//).map((r) => r.at);
    },
    expireTokens: () => shop.expireTokens(),
    tokenRefreshes: () => shop.tokenGrants,
    async uninstall() {
      shop.deleteIntegration();
      return 200;
    },
    product(externalProductId) {
      const p = shop.products.get(externalProductId);
      if (!p) return undefined;
      const gross = p.price?.find((x: Json) => x.currencyId === SYSTEM_CURRENCY_ID)?.gross;
      return {
        sku: p.productNumber ?? null,
        title: p.name,
        price: typeof gross === 'number' ? gross.toFixed(2) : '',
        active: p.active === true,
      };
    },
  };
}

/**
 * Puts an order in the shop (a checkout) or changes it as Shopware would: a new order has `updatedAt` null; a payment
 * moves its transaction's state and `updatedAt` (not the order's); a cancellation or new lines move the order's.
 */
export function saveOrder(
  shop: FakeShopwareShop,
  spec: OrderSpec & { id: string; extraLines?: Json[]; address?: Partial<typeof SHIPPING_ADDRESS> | null },
): Json {
  const at = wireTime(spec.updatedAt ? Date.parse(spec.updatedAt) : Date.now());
  const existing = shop.orders.get(spec.id);
  const lines = [...spec.lines.map((l, i) => lineItem(spec.id, l.sku, l.quantity, i)), ...(spec.extraLines ?? [])];
  const payment = spec.paid ? 'paid' : 'open';
  const orderState = spec.cancelled ? 'cancelled' : 'open';
  if (existing) {
    const t = existing.transactions[0];
    if (t.stateMachineState.technicalName !== payment) {
      t.stateMachineState = state(payment);
      t.stateId = t.stateMachineState.id;
      t.updatedAt = at;
    }
    const linesChanged =
      JSON.stringify(existing.lineItems.map((l: Json) => [l.payload?.productNumber, l.quantity])) !==
      JSON.stringify(lines.map((l) => [l.payload?.productNumber, l.quantity]));
    if (existing.stateMachineState.technicalName !== orderState || linesChanged) {
      existing.stateMachineState = state(orderState);
      existing.stateId = existing.stateMachineState.id;
      existing.lineItems = lines;
      existing.updatedAt = at;
    }
    return existing;
  }
  const address = spec.address === null ? null : { ...SHIPPING_ADDRESS, ...spec.address };
  const addressId = hexId();
  const orderState_ = state(orderState);
  const paymentState = state(payment);
  const deliveryState = state('open');
  const order: Json = {
    id: spec.id,
    versionId: hexId(),
    orderNumber: String(10000 + shop.orders.size),
    billingAddressId: addressId,
    currencyId: SYSTEM_CURRENCY_ID,
    languageId: hexId(),
    salesChannelId: shop.salesChannel.id,
    orderDateTime: at,
    currencyFactor: 1,
    stateId: orderState_.id,
    itemRounding: { decimals: 2, interval: 0.01, roundForNet: true },
    totalRounding: { decimals: 2, interval: 0.01, roundForNet: true },
    amountTotal: 49.9,
    createdAt: at,
    updatedAt: null,
    stateMachineState: orderState_,
    orderCustomer: address && {
      id: hexId(),
      orderId: spec.id,
      email: address.email,
      firstName: address.firstName,
      lastName: address.lastName,
    },
    lineItems: lines,
    deliveries: [
      {
        id: hexId(),
        orderId: spec.id,
        shippingOrderAddressId: addressId,
        shippingMethodId: hexId(),
        stateId: deliveryState.id,
        trackingCodes: [],
        shippingDateEarliest: at,
        shippingDateLatest: at,
        createdAt: at,
        updatedAt: null,
        stateMachineState: deliveryState,
        shippingOrderAddress: address && {
          id: addressId,
          orderId: spec.id,
          countryId: shop.salesChannel.country.id,
          firstName: address.firstName,
          lastName: address.lastName,
          company: address.company,
          street: address.street,
          additionalAddressLine1: address.additionalAddressLine1,
          zipcode: address.zipcode,
          city: address.city,
          phoneNumber: address.phoneNumber,
          country: { id: shop.salesChannel.country.id, iso: 'IT', name: 'Italy', addressFormat: [] },
          countryState: { id: hexId(), countryId: shop.salesChannel.country.id, shortCode: 'IT-MI', name: 'Milano' },
        },
      },
    ],
    transactions: [
      {
        id: hexId(),
        orderId: spec.id,
        paymentMethodId: hexId(),
        amount: { unitPrice: 49.9, totalPrice: 49.9, quantity: 1 },
        stateId: paymentState.id,
        createdAt: at,
        updatedAt: null,
        stateMachineState: paymentState,
      },
    ],
  };
  shop.orders.set(spec.id, order);
  return order;
}

/** A line as a checkout writes it: a `product` line with its product number, or a merchant's `custom` line. */
export function lineItem(orderId: string, sku: string | null, quantity: number, i: number): Json {
  const productId = hexId();
  const product = Boolean(sku);
  return {
    id: hexId(),
    orderId,
    identifier: product ? productId : hexId(),
    quantity,
    label: `Item ${i + 1}`,
    type: product ? 'product' : 'custom',
    good: true,
    position: i + 1,
    price: { unitPrice: 24.95, totalPrice: 24.95 * quantity, quantity, calculatedTaxes: [], taxRules: [] },
    children: [],
    states: [],
    ...(product
      ? { productId, referencedId: productId, payload: { productNumber: sku, options: [], isCloseout: false } }
      : { payload: {} }),
  };
}
