import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  connectStore,
  serveShopsByPath,
  type ConformanceService,
  type FakeHttpsServer,
  type FakePlatform,
  type FakeReply,
  type FakeStore,
  type OrderSpec,
} from '@print-api/connector-kit/testing';

interface RefShop {
  id: string;
  token: string;
  orders: Map<string, unknown>;
  webhook: { url: string; secret: string } | undefined;
  shipments: Map<string, Array<{ carrier: string; tracking_number: string; tracking_url: string }>>;
  shipmentTries: number[];
  rateLimits: number[];
  orderLists: number;
}

/**
 * The imaginary REFERENCE platform, as a third-party author would fake theirs for the kit's
 * conformance suite (it imports nothing but the kit): shops under `https://localhost:PORT/<shop>`,
 * Bearer tokens checked, `GET /api/shop`, `GET /api/orders?updated_since=`, `POST /api/webhooks`,
 * `POST /api/orders/{id}/shipments` (429 with Retry-After on demand), deliveries signed with
 * `X-Ref-Signature` (hex HMAC-SHA256 of the body).
 */
export class FakeReferencePlatform implements FakePlatform {
  readonly platform = 'REFERENCE';
  readonly expiringTokens = false;
  readonly shipsTo = {
    name: 'Eva Jansen',
    email: 'eva@example.nl',
    address1: 'Dam 1',
    postalCode: '1012 JS',
    city: 'Amsterdam',
    country: 'NL',
  };
  readonly #shops = new Map<string, RefShop>();
  #url = '';

  async start(server: FakeHttpsServer): Promise<Record<string, string>> {
    this.#url = server.url;
    serveShopsByPath(server, this.#shops, (shop, r) => this.#answer(shop, r));
    return {};
  }

  async connect(service: ConformanceService, key: string): Promise<FakeStore> {
    const name = `ref-${this.#shops.size + 1}`;
    const shop: RefShop = {
      id: `ref-shop-${randomUUID().slice(0, 8)}`,
      token: `ref_${randomBytes(12).toString('hex')}`,
      orders: new Map(),
      webhook: undefined,
      shipments: new Map(),
      shipmentTries: [],
      rateLimits: [],
      orderLists: 0,
    };
    this.#shops.set(name, shop);
    // The connect-time catch-up poll has run before the scenario starts.
    const storeId = await connectStore(
      service,
      key,
      { platform: 'REFERENCE', shopUrl: `${this.#url}/${name}`, token: shop.token },
      () => shop.orderLists > 0,
    );
    const deliver = async (order: unknown, secret: string, eventId: string, body?: string) => {
      const signedBody = JSON.stringify({ order });
      const signature = createHmac('sha256', secret).update(signedBody).digest('hex');
      const answer = await fetch(service.toService(shop.webhook!.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-ref-signature': signature,
          'x-ref-event-id': eventId,
          'x-ref-topic': 'order.updated',
        },
        body: body ?? signedBody,
      });
      await answer.arrayBuffer();
      return answer.status;
    };
    return {
      storeId,
      nextOrderId: () => `ord-${randomUUID().slice(0, 8)}`,
      saveOrder(spec) {
        const id = spec.id ?? `ord-${randomUUID().slice(0, 8)}`;
        shop.orders.set(id, refOrderOf({ ...spec, id }));
        return id;
      },
      deliver(spec, _event, opts = {}) {
        const order = refOrderOf(spec);
        const eventId = opts.deliveryId ?? randomUUID();
        if (opts.tamper === 'forged') return deliver(order, 'not-the-secret', eventId);
        // Signed without a timestamp: a replay is a captured signature sent with another body.
        if (opts.tamper === 'stale')
          return deliver(
            refOrderOf({ ...spec, cancelled: true }),
            shop.webhook!.secret,
            eventId,
            JSON.stringify({ order }),
          );
        return deliver(order, shop.webhook!.secret, eventId);
      },
      pushedTracking: (orderId) =>
        (shop.shipments.get(orderId) ?? []).map((s) => ({
          trackingNumber: s.tracking_number,
          trackingUrl: s.tracking_url,
        })),
      rateLimitNextPush(retryAfterSeconds) {
        shop.rateLimits.push(retryAfterSeconds);
        return () => shop.shipmentTries;
      },
    };
  }

  #answer(shop: RefShop, req: Request): Promise<FakeReply> | FakeReply {
    if (req.headers.get('authorization') !== `Bearer ${shop.token}`) return [401, { error: 'invalid token' }];
    const url = new URL(req.url);
    if (req.method === 'GET' && url.pathname === '/api/shop') return [200, { id: shop.id, name: 'Reference Shop' }];
    if (req.method === 'POST' && url.pathname === '/api/webhooks') {
      return req.json().then((json): FakeReply => {
        const body = json as { url: string; secret: string };
        shop.webhook = { url: body.url, secret: body.secret };
        return [201, { id: 'wh-1' }];
      });
    }
    if (req.method === 'GET' && url.pathname === '/api/orders') {
      shop.orderLists++;
      const since = Date.parse(url.searchParams.get('updated_since') ?? '1970-01-01T00:00:00Z');
      const limit = Number(url.searchParams.get('limit') ?? '50');
      const orders = [...shop.orders.values()]
        .filter((o) => Date.parse((o as { updated_at: string }).updated_at) > since)
        .slice(0, limit);
      return [200, { orders }];
    }
    // The catalogue the listing sync reads on connect: this shop sells nothing listed.
    if (req.method === 'GET' && url.pathname === '/api/products') return [200, { products: [], next_page: null }];
    const shipment = /^\/api\/orders\/([^/]+)\/shipments$/.exec(url.pathname);
    if (req.method === 'POST' && shipment) {
      shop.shipmentTries.push(Date.now());
      const wait = shop.rateLimits.shift();
      if (wait !== undefined) return [429, { error: 'slow down' }, { 'Retry-After': String(wait) }];
      return req.json().then((json): FakeReply => {
        const body = json as { carrier: string; tracking_number: string; tracking_url: string };
        const list = shop.shipments.get(shipment[1]!) ?? [];
        list.push(body);
        shop.shipments.set(shipment[1]!, list);
        return [201, { id: `shp-${list.length}` }];
      });
    }
    return [404, { error: 'not found' }];
  }
}

function refOrderOf(spec: OrderSpec & { id: string }) {
  const updated = spec.updatedAt ?? new Date().toISOString();
  return {
    id: spec.id,
    number: `#${spec.id}`,
    paid: spec.paid,
    cancelled: spec.cancelled ?? false,
    created_at: updated,
    updated_at: updated,
    items: spec.lines.map((l, i) => ({ id: `${spec.id}-${i + 1}`, sku: l.sku, qty: l.quantity })),
    ship_to: {
      name: 'Eva Jansen',
      email: 'eva@example.nl',
      street: 'Dam 1',
      zip: '1012 JS',
      city: 'Amsterdam',
      country: 'nl',
    },
  };
}
