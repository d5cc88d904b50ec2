import { createHmac, randomUUID } from 'node:crypto';
import { startHttpsServer, type TestHttpsServer } from './https-server.ts';

/** An order as the reference platform sends it (test/reference-connector). */
export interface RefOrderJson {
  id: string;
  number: string;
  paid: boolean;
  cancelled: boolean;
  created_at: string;
  updated_at: string;
  items: Array<{ id: string; sku: string | null; qty: number; product_id?: string; variant_id?: string }>;
  ship_to: { name: string; email?: string; street: string; zip: string; city: string; country: string } | null;
}

/** A product of the reference platform's catalogue (one listing). */
export interface RefProductJson {
  id: string;
  variant_id?: string;
  sku: string | null;
  title: string;
  active: boolean;
}

export function refOrder(id: string, over: Partial<RefOrderJson> = {}): RefOrderJson {
  return {
    id,
    number: `#${id}`,
    paid: true,
    cancelled: false,
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:05:00Z',
    items: [{ id: `${id}-1`, sku: 'CARD-01', qty: 250 }],
    ship_to: {
      name: 'Eva Jansen',
      email: 'eva@example.nl',
      street: 'Dam 1',
      zip: '1012 JS',
      city: 'Amsterdam',
      country: 'nl',
    },
    ...over,
  };
}

/**
 * The reference connector's platform as a real local HTTPS server: `GET /api/shop`,
 * `POST /api/webhooks` (keeps the secret it is given), `GET /api/orders?updated_since=` (the
 * orders it holds changed since then) and the shipments endpoint. `holdOrders()` keeps order lists unanswered
 * until released (a poll that is under way), and every request is recorded.
 */
export class ReferenceShop {
  readonly server: TestHttpsServer;
  readonly orders = new Map<string, RefOrderJson>();
  /** The catalogue, listed `productsPageSize` at a time by `GET /api/products?page=`. */
  readonly products = new Map<string, RefProductJson>();
  productsPageSize = 2;
  webhookSecret: string | undefined;
  #held: Array<() => void> | undefined;

  private constructor(server: TestHttpsServer, shop: { id: string; name: string }) {
    this.server = server;
    server.route(
      '/api/shop',
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(shop)),
    );
    server.route('/api/webhooks', (_req, res, body) => {
      this.webhookSecret = (JSON.parse(body.toString('utf8')) as { secret?: string }).secret;
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"wh-1"}');
    });
    server.route('/api/products', (req, res) => {
      const page = Number(new URL(req.url ?? '/', this.server.url).searchParams.get('page') ?? '1');
      const all = [...this.products.values()];
      const products = all.slice((page - 1) * this.productsPageSize, page * this.productsPageSize);
      const nextPage = page * this.productsPageSize < all.length ? page + 1 : null;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ products, next_page: nextPage }));
    });
    server.route('/api/order', (req, res) => {
      const id = new URL(req.url ?? '/', this.server.url).searchParams.get('id') ?? '';
      const order = this.orders.get(id);
      if (!order)
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such order"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order }));
    });
    server.route('/api/orders', (req, res) => {
      const since = Date.parse(
        new URL(req.url ?? '/', this.server.url).searchParams.get('updated_since') ?? '1970-01-01T00:00:00Z',
      );
      const orders = () => [...this.orders.values()].filter((o) => Date.parse(o.updated_at) > since);
      const answer = () =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ orders: orders() }));
      if (this.#held) this.#held.push(answer);
      else answer();
    });
  }

  static async start(
    shop = { id: `ref-shop-${randomUUID().slice(0, 8)}`, name: 'Reference Shop' },
  ): Promise<ReferenceShop> {
    return new ReferenceShop(await startHttpsServer(), shop);
  }

  get url(): string {
    return this.server.url;
  }

  /** How many order lists were asked for. */
  orderLists(): number {
    return this.server.hits('/api/orders');
  }

  /** Order lists asked for from now on wait for `release()`. */
  holdOrders(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const answer of held) answer();
  }

  /** A delivery of `order` signed as the platform signs per-store webhooks. */
  signed(order: unknown, eventId = randomUUID()): { headers: Record<string, string>; body: string } {
    const body = JSON.stringify({ order });
    const signature = createHmac('sha256', this.webhookSecret ?? '')
      .update(body)
      .digest('hex');
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-ref-signature': signature,
        'x-ref-event-id': eventId,
        'x-ref-topic': 'order.updated',
        'user-agent': 'RefShop-Hookshot/1.0',
      },
    };
  }

  /** A product webhook (`product.updated`), signed as the platform signs per-store webhooks. */
  productChanged(productId: string, eventId = randomUUID()): { headers: Record<string, string>; body: string } {
    const body = JSON.stringify({ product: { id: productId } });
    const signature = createHmac('sha256', this.webhookSecret ?? '')
      .update(body)
      .digest('hex');
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-ref-signature': signature,
        'x-ref-event-id': eventId,
        'x-ref-topic': 'product.updated',
        'user-agent': 'RefShop-Hookshot/1.0',
      },
    };
  }

  close(): Promise<void> {
    this.release();
    return this.server.close();
  }
}
