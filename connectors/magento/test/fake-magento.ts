import { randomBytes } from 'node:crypto';
import {
  connectStore,
  countedOrders,
  firstPollOf,
  serveShopsByPath,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';
import { FakeMagentoShop, magentoTime, type MagentoOrderJson } from './fake-magento-shop.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };

export { FakeMagentoShop, takeContractViolations } from './fake-magento-shop.ts';

/** A line of a fake order: a simple product, or (with `parentSku`) a configurable product's chosen child. */
export interface MagentoLine {
  sku: string | null;
  quantity: number;
  parentSku?: string;
}

/** Magento's order states for the suite's facts; `state` overrides (`pending_payment`, `holded`…). */
export type MagentoSpec = Omit<OrderSpec, 'lines'> & { id: string; lines: MagentoLine[]; state?: string };

/**
 * The fixture order (after Adobe's order example) with the spec's facts: its id, state (`processing` when paid,
 * `canceled`, else `new`/`pending`), update time (whole seconds) and items: a configurable line is its parent item
 * (type `configurable`, carrying the child's SKU, as Magento stores it) followed by the child (`parent_item_id`).
 */
export function magentoOrderOf(spec: MagentoSpec, updatedAt: string): MagentoOrderJson {
  const o = structuredClone(orderFixture) as MagentoOrderJson;
  const base = o.items[0]!;
  const id = Number(spec.id);
  const state = spec.state ?? (spec.cancelled ? 'canceled' : spec.paid ? 'processing' : 'new');
  let itemId = id * 10;
  const items = spec.lines.flatMap((l, i) => {
    const item = {
      ...base,
      item_id: ++itemId,
      order_id: id,
      sku: l.sku ?? '',
      name: `${base.name} ${i + 1}`,
      product_id: 1553 + i,
      qty_ordered: l.quantity,
      qty_invoiced: spec.paid ? l.quantity : 0,
    };
    if (!l.parentSku) return [item];
    const parent = { ...item, product_type: 'configurable', name: `Poster ${i + 1}`, product_id: 1700 + i };
    return [parent, { ...item, item_id: ++itemId, parent_item_id: parent.item_id, price: 0, row_total: 0 }];
  });
  o.extension_attributes.shipping_assignments[0]!.items = [];
  return {
    ...o,
    entity_id: id,
    increment_id: String(id).padStart(9, '0'),
    state,
    status: state === 'new' ? 'pending' : state,
    updated_at: updatedAt,
    items,
    total_item_count: items.length,
    ...(spec.paid ? {} : { total_invoiced: 0, total_paid: 0, total_due: o.grand_total }),
  } as MagentoOrderJson;
}

/**
 * Magento for the kit's conformance suite: installations served by one local HTTPS server, each under its own path
 * (`https://localhost:PORT/shop-N`, Magento in a subfolder), each a `FakeMagentoShop`. Magento sends no webhooks (the
 * connector polls); a merchant who deletes the integration makes the token fail (401) at the next call.
 */
export class FakeMagento implements FakePlatform {
  readonly platform = 'MAGENTO';
  readonly expiringTokens = false;
  readonly holdsProducts = true;
  readonly shipsTo = {
    name: 'Giulia Bianchi',
    company: 'Studio Bianchi S.r.l.',
    address1: 'Via Brera 12',
    address2: 'Scala B, interno 4',
    postalCode: '20121',
    city: 'Milano',
    state: 'MI',
    country: 'IT',
    phone: '+39 02 1234 5678',
    email: 'giulia.bianchi@example.it',
  };
  readonly shops = new Map<string, FakeMagentoShop>();
  #server: Pick<FakeHttpsServer, 'url'> | undefined;

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#server = server;
    serveShopsByPath(server, this.shops, (shop, r) => {
      const url = new URL(r.url);
      return shop.answer(r, url.pathname + url.search);
    });
    return {};
  }

  /** A new installation with an active integration (its access token, 32 letters and digits). */
  newShop(): FakeMagentoShop {
    const name = `shop-${this.shops.size + 1}`;
    const shop = new FakeMagentoShop(
      `${this.#server!.url}/${name}`,
      randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32),
    );
    this.shops.set(name, shop);
    return shop;
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const shop = this.newShop();
    const storeId = await connectStore(service, key, {
      platform: 'MAGENTO',
      baseUrl: shop.url,
      accessToken: shop.accessToken,
    });
    await firstPollOf(service, key, storeId);
    return magentoStore(shop, storeId);
  }
}

/** The suite's view of one shop connected as `storeId`. */
export function magentoStore(
  shop: FakeMagentoShop,
  storeId: string,
): FakeStore & { saveOrder(spec: Omit<MagentoSpec, 'id'> & { id?: string }): string } {
  return {
    storeId,
    ...countedOrders<Omit<MagentoSpec, 'id'> & { id?: string }>(100, (spec) =>
      shop.save(magentoOrderOf(spec, spec.updatedAt ? magentoTime(new Date(spec.updatedAt)) : shop.stamp())),
    ),
    async deliver() {
      throw new Error('Magento sends no webhooks: its orders are polled');
    },
    pushedTracking: (orderId) =>
      shop.shipments
        .filter((s) => s.order_id === Number(orderId))
        .flatMap((s) =>
          s.tracks.map((t: { track_number: string }) => ({
            trackingNumber: t.track_number,
            trackingUrl: /Track your parcel: (\S+)/.exec(s.comments[0]?.comment ?? '')?.[1] ?? '',
          })),
        ),
    rateLimitNextPush(retryAfterSeconds) {
      shop.failNext('POST', /\/ship$/, [
        429,
        { message: 'Too Many Requests', parameters: [] },
        { 'Retry-After': String(retryAfterSeconds) },
      ]);
      return () => shop.seen('POST', /\/ship$/).map((r) => r.at);
    },
    async uninstall() {
      shop.revoked = true;
      return 200;
    },
    product(externalProductId) {
      const p = shop.products.get(Number(externalProductId));
      return p && { sku: p.sku ?? null, title: p.name, price: Number(p.price).toFixed(2), active: p.status === 1 };
    },
  };
}
