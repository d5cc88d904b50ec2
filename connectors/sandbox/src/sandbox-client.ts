import {
  ConnectorError,
  parseJsonPayload,
  type HttpClient,
  type HttpRequest,
  type ListingChanges,
  type ListingDraft,
  type PublishedListing,
} from '@print-api/connector-kit';
import { z } from 'zod';
import type { SandboxCredentials } from './config.ts';
import { sandboxOrderSchema, sandboxProductSchema, type SandboxOrder } from './order-mapper.ts';

const shopSchema = z.object({ shop: z.object({ id: z.string(), name: z.string() }), token: z.string() });
const ordersPageSchema = z.object({ orders: z.array(sandboxOrderSchema) });
const orderSchema = z.object({ order: sandboxOrderSchema });
const productsPageSchema = z.object({
  products: z.array(sandboxProductSchema),
  next_page: z.number().int().nullable(),
});
const productSchema = z.object({ product: sandboxProductSchema.extend({ url: z.string() }) });

/**
 * The sandbox platform's API (`<apiUrl>/…`, bearer token of the shop), through the connector's
 * HttpClient only. Core answers its default origin in-process; its shapes are those of
 * `core/src/modules/sandbox/sandbox-platform-api.ts`.
 */
export class SandboxClient {
  readonly #http: HttpClient;
  readonly #apiUrl: string;
  readonly #token: string | undefined;

  constructor(deps: { http: HttpClient; apiUrl: string; credentials?: SandboxCredentials }) {
    this.#http = deps.http;
    this.#apiUrl = deps.apiUrl;
    this.#token = deps.credentials?.token;
  }

  /** Opens a sandbox shop: its id, name and API token. */
  async openShop(name: string): Promise<z.infer<typeof shopSchema>> {
    return this.#json(
      shopSchema,
      { method: 'POST', path: '/shops', body: { name }, operation: 'openShop' },
      'Sandbox shop',
    );
  }

  async registerWebhook(url: string, secret: string): Promise<void> {
    await this.#call({ method: 'PUT', path: '/webhook', body: { url, secret }, operation: 'registerWebhook' });
  }

  /** Orders changed after `after` (`<updated_at>|<id>`, exclusive), oldest change first. */
  async listOrders(after: string | null, limit: number): Promise<SandboxOrder[]> {
    const query = new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) });
    return (
      await this.#json(
        ordersPageSchema,
        { method: 'GET', path: `/orders?${query}`, operation: 'listOrders' },
        'Sandbox orders page',
      )
    ).orders;
  }

  async getOrder(id: string): Promise<SandboxOrder> {
    return (
      await this.#json(
        orderSchema,
        { method: 'GET', path: `/orders/${encodeURIComponent(id)}`, operation: 'getOrder' },
        'Sandbox order',
      )
    ).order;
  }

  async createFulfillment(
    orderId: string,
    fulfillment: {
      carrier: string;
      tracking_number: string;
      tracking_url: string;
      lines: Array<{ line_id: string | null; sku: string | null; quantity: number }>;
    },
  ): Promise<void> {
    await this.#call({
      method: 'POST',
      path: `/orders/${encodeURIComponent(orderId)}/fulfillments`,
      body: fulfillment,
      operation: 'createFulfillment',
    });
  }

  async listProducts(page: number): Promise<z.infer<typeof productsPageSchema>> {
    return this.#json(
      productsPageSchema,
      { method: 'GET', path: `/products?page=${page}`, operation: 'listProducts' },
      'Sandbox products page',
    );
  }

  async createProduct(draft: ListingDraft): Promise<PublishedListing> {
    const body = {
      sku: draft.sku,
      title: draft.title,
      description: draft.description ?? null,
      price_cents: draft.priceCents,
      currency: draft.currency,
      status: draft.published ? 'active' : 'draft',
    };
    return published(
      await this.#json(
        productSchema,
        { method: 'POST', path: '/products', body, operation: 'createProduct' },
        'Sandbox product',
      ),
    );
  }

  async updateProduct(id: string, changes: ListingChanges): Promise<PublishedListing> {
    const body = {
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.priceCents !== undefined ? { price_cents: changes.priceCents } : {}),
      ...(changes.currency !== undefined ? { currency: changes.currency } : {}),
      ...(changes.published !== undefined ? { status: changes.published ? 'active' : 'draft' } : {}),
    };
    return published(
      await this.#json(
        productSchema,
        { method: 'PATCH', path: `/products/${encodeURIComponent(id)}`, body, operation: 'updateProduct' },
        'Sandbox product',
      ),
    );
  }

  async getProduct(id: string): Promise<PublishedListing> {
    return published(
      await this.#json(
        productSchema,
        { method: 'GET', path: `/products/${encodeURIComponent(id)}`, operation: 'getProduct' },
        'Sandbox product',
      ),
    );
  }

  /** Archives the product; one already gone is not an error. */
  async archiveProduct(id: string): Promise<void> {
    await this.#call(
      { method: 'DELETE', path: `/products/${encodeURIComponent(id)}`, operation: 'archiveProduct' },
      [404],
    );
  }

  async #json<T>(schema: z.ZodType<T>, req: Call, what: string): Promise<T> {
    return parseJsonPayload(schema, (await this.#call(req)).body, what);
  }

  async #call(req: Call, alsoFine: number[] = []): Promise<{ status: number; body: string }> {
    const request: HttpRequest = {
      method: req.method,
      url: `${this.#apiUrl}${req.path}`,
      headers: {
        'content-type': 'application/json',
        ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}),
      },
      operation: req.operation,
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
    };
    const res = await this.#http.request(request);
    if (res.status >= 300 && !alsoFine.includes(res.status))
      throw ConnectorError.fromStatus('The sandbox', res.status, res.body, res.headers['retry-after']);
    return res;
  }
}

interface Call {
  method: HttpRequest['method'];
  path: string;
  body?: unknown;
  operation: string;
}

function published({ product }: z.infer<typeof productSchema>): PublishedListing {
  return {
    externalProductId: product.id,
    externalVariantId: null,
    status: product.status === 'active' ? 'active' : 'draft',
    url: product.url,
  };
}
