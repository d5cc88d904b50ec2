import type { HttpClient, HttpRequest, HttpResponse } from '@print-api/connector-kit';
import { z } from 'zod';
import { Refusal } from '../../kernel/refusal.ts';
import { orderWire, productWire, SANDBOX_ORIGIN, type SandboxPlatform, type ShopRow } from './sandbox-platform.ts';

const PRODUCTS_PAGE = 100;
const MAX_ORDERS_PAGE = 100;

const shopBody = z.strictObject({ name: z.string().trim().min(1).max(80) });
const webhookBody = z.strictObject({ url: z.url(), secret: z.string().min(16).max(200) });
const fulfillmentBody = z.strictObject({
  carrier: z.string().min(1).max(100),
  tracking_number: z.string().min(1).max(100),
  tracking_url: z.string().max(2000),
  lines: z
    .array(
      z.strictObject({
        line_id: z.string().nullable(),
        sku: z.string().nullable(),
        quantity: z.number().int().positive(),
      }),
    )
    .max(500),
});
const productBody = z.strictObject({
  sku: z.string().min(1).max(100).nullable(),
  title: z.string().min(1).max(255),
  description: z.string().max(10_000).nullable(),
  price_cents: z.number().int().min(0).nullable(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .nullable(),
  status: z.enum(['active', 'draft']),
});
const productChanges = productBody.pick({ title: true, price_cents: true, currency: true, status: true }).partial();
const after = z
  .string()
  .regex(/^[^|]+\|.+$/)
  .transform((s) => ({ at: new Date(s.slice(0, s.indexOf('|'))), id: s.slice(s.indexOf('|') + 1) }))
  .refine((a) => !Number.isNaN(a.at.getTime()));

/**
 * The sandbox platform's API, as its connector calls it (JSON in and out, `Authorization:
 * Bearer <shop token>` but to open a shop): a shop opened, its webhook registered, its orders
 * listed and read, fulfilments pushed, its products listed, created, changed and archived.
 */
export class SandboxPlatformApi {
  readonly #platform: SandboxPlatform;

  constructor(platform: SandboxPlatform) {
    this.#platform = platform;
  }

  /**
   * The connector's HttpClient, with the sandbox platform's origin answered in-process here and
   * every other URL passed to `inner` (core's guarded client): the sandbox connector reaches its
   * platform as any connector does, through `ctx.http`.
   */
  over(inner: HttpClient): HttpClient {
    return {
      request: (req) => (originOf(req.url) === SANDBOX_ORIGIN ? this.handle(req) : inner.request(req)),
      download: (req) => inner.download(req),
    };
  }

  async handle(req: HttpRequest): Promise<HttpResponse> {
    try {
      const url = new URL(req.url);
      const [status, body] = await this.#route(req.method, url, req);
      return answer(status, body);
    } catch (err) {
      if (err instanceof SyntaxError) return answer(400, { error: 'the body is not JSON' });
      if (err instanceof z.ZodError)
        return answer(400, { error: err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      if (err instanceof Refusal && err.code === 'not_found') return answer(404, { error: err.message });
      throw err;
    }
  }

  async #route(method: string, url: URL, req: HttpRequest): Promise<[number, unknown]> {
    const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const body = (): unknown => JSON.parse(req.body ?? 'null');
    if (method === 'POST' && path.join('/') === 'shops') {
      const { shop, token } = await this.#platform.openShop(shopBody.parse(body()).name);
      return [201, { shop: { id: shop.id, name: shop.name }, token }];
    }
    const shop = await this.#shop(req);
    if (!shop) return [401, { error: 'unknown or missing shop token' }];
    const [resource, id, sub] = path;
    if (resource === 'shop' && method === 'GET') return [200, { shop: { id: shop.id, name: shop.name } }];
    if (resource === 'webhook' && method === 'PUT') {
      const { url: hookUrl, secret } = webhookBody.parse(body());
      await this.#platform.registerWebhook(shop.id, hookUrl, secret);
      return [200, {}];
    }
    if (resource === 'orders') {
      if (!id && method === 'GET') {
        const limit = Math.min(
          Number(url.searchParams.get('limit') ?? MAX_ORDERS_PAGE) || MAX_ORDERS_PAGE,
          MAX_ORDERS_PAGE,
        );
        const from = url.searchParams.get('after');
        return [
          200,
          {
            orders: (await this.#platform.changedOrders(shop.id, from ? after.parse(from) : null, limit)).map(
              orderWire,
            ),
          },
        ];
      }
      if (id && !sub && method === 'GET') return [200, { order: orderWire(await this.#platform.order(shop.id, id)) }];
      if (id && sub === 'fulfillments' && method === 'POST') {
        await this.#platform.addFulfillment(shop.id, id, fulfillmentBody.parse(body()));
        return [201, {}];
      }
    }
    if (resource === 'products') return this.#products(shop, method, id, url, body);
    return [404, { error: `no route ${method} ${url.pathname}` }];
  }

  async #products(
    shop: ShopRow,
    method: string,
    id: string | undefined,
    url: URL,
    body: () => unknown,
  ): Promise<[number, unknown]> {
    if (!id && method === 'GET') {
      const page = Math.max(1, Math.floor(Number(url.searchParams.get('page') ?? '1')) || 1);
      const rows = await this.#platform.products(shop.id, (page - 1) * PRODUCTS_PAGE, PRODUCTS_PAGE + 1);
      return [
        200,
        {
          products: rows.slice(0, PRODUCTS_PAGE).map(productWire),
          next_page: rows.length > PRODUCTS_PAGE ? page + 1 : null,
        },
      ];
    }
    if (!id && method === 'POST')
      return [201, { product: productWire(await this.#platform.createProduct(shop.id, productBody.parse(body()))) }];
    if (id && method === 'GET') return [200, { product: productWire(await this.#platform.product(shop.id, id)) }];
    if (id && method === 'PATCH')
      return [
        200,
        { product: productWire(await this.#platform.updateProduct(shop.id, id, productChanges.parse(body()))) },
      ];
    if (id && method === 'DELETE')
      return [200, { product: productWire(await this.#platform.updateProduct(shop.id, id, { status: 'archived' })) }];
    return [404, { error: `no route ${method} ${url.pathname}` }];
  }

  async #shop(req: HttpRequest): Promise<ShopRow | undefined> {
    const auth = Object.entries(req.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
    const token = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    return token ? this.#platform.shopByToken(token) : undefined;
  }
}

function answer(status: number, body: unknown): HttpResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
