import wooRestApi, { type WooCommerceRestApiVersion } from '@woocommerce/woocommerce-rest-api';
import { ConnectorError, type HttpClient } from '@print-api/connector-kit';
import { WC_API_VERSION, type WooCredentials } from './config.ts';
import { httpClientAdapter, type LibraryResponse } from './http-adapter.ts';

// The package is CommonJS with `exports.default`: under Node's ESM interop the class is `.default`.
const WooCommerceRestApi = wooRestApi.default;
type RestApi = InstanceType<typeof WooCommerceRestApi>;

/** A webhook as `wc/v3/webhooks` describes it. */
export interface WooWebhook {
  id: number;
  name: string;
  status: 'active' | 'paused' | 'disabled';
  topic: string;
  delivery_url: string;
}

/** A Shipment Tracking extension item. */
export interface WooTrackingItem {
  tracking_id: string;
  tracking_number: string;
}

/** The parts of an order the shipment push looks at. */
export interface WooOrderSummary {
  id: number;
  status: string;
  line_items?: Array<{ sku?: string | null; quantity: number }>;
}

/** A store order note. */
export interface WooOrderNote {
  id: number;
  note: string;
  customer_note: boolean;
}

/**
 * WooCommerce's REST API for one store, through `@woocommerce/woocommerce-rest-api` (Basic
 * `ck:cs` over HTTPS) with its transport swapped for core's HttpClient. Nothing else: no
 * mapping, no decisions. Failures become ConnectorErrors (401/403 auth, 429 rate_limited
 * with Retry-After, 5xx upstream_unavailable, other 4xx invalid_payload).
 */
export class WooCommerceClient {
  readonly #wc: RestApi;
  readonly #tracking: RestApi;
  readonly #http: HttpClient;
  readonly #storeUrl: string;

  constructor(deps: { http: HttpClient; credentials: WooCredentials }) {
    const { storeUrl, consumerKey, consumerSecret } = deps.credentials;
    const axiosConfig = { adapter: httpClientAdapter(deps.http) };
    this.#http = deps.http;
    this.#storeUrl = storeUrl;
    this.#wc = new WooCommerceRestApi({
      url: storeUrl,
      consumerKey,
      consumerSecret,
      version: WC_API_VERSION,
      axiosConfig,
    });
    // The Shipment Tracking extension's namespace; the library's typings list only WooCommerce's own.
    const trackingNamespace: string = 'wc-shipment-tracking/v3';
    this.#tracking = new WooCommerceRestApi({
      url: storeUrl,
      consumerKey,
      consumerSecret,
      version: trackingNamespace as WooCommerceRestApiVersion,
      axiosConfig,
    });
  }

  /** The site's title from WordPress's public REST index (`GET /wp-json/`), or null when the index is hidden. */
  async siteName(): Promise<string | null> {
    const index = await this.#publicJson('/wp-json/');
    const name = index?.name;
    return typeof name === 'string' && name.trim() ? name.trim() : null;
  }

  /**
   * Whether WordPress answers its REST index as `/?rest_route=/` with WooCommerce's namespace: a
   * site on plain permalinks serves its REST API only there, never under `/wp-json/`.
   */
  async restApiOnlyAtQueryRoute(): Promise<boolean> {
    const namespaces = (await this.#publicJson('/?rest_route=/'))?.namespaces;
    return Array.isArray(namespaces) && namespaces.includes(WC_API_VERSION);
  }

  /** A public (unauthenticated) JSON page of the site, or null when it is not a 200 with a JSON object. */
  async #publicJson(path: string): Promise<Record<string, unknown> | null> {
    try {
      const res = await this.#http.request({
        method: 'GET',
        url: `${this.#storeUrl}${path}`,
        headers: { accept: 'application/json' },
      });
      if (res.status !== 200) return null;
      const json: unknown = JSON.parse(res.body);
      return typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /** Proves the keys read, and belong to a user who may manage WooCommerce (webhooks need it). */
  async checkReadAccess(): Promise<void> {
    await this.#call(this.#wc.get('webhooks', { per_page: 1 }));
  }

  /**
   * Proves the keys may write. WooCommerce refuses a write with a read-only key before any
   * route runs (401), and an empty batch changes nothing.
   */
  async checkWriteAccess(): Promise<void> {
    await this.#call(this.#wc.post('webhooks/batch', {}), [404]);
  }

  /** Up to `perPage` orders modified after `modifiedAfterGmt` (oldest change first), skipping the first `offset`. */
  async listOrders(modifiedAfterGmt: string, offset: number, perPage: number): Promise<unknown[]> {
    const res = await this.#call(
      this.#wc.get('orders', {
        modified_after: modifiedAfterGmt,
        dates_are_gmt: true,
        orderby: 'modified',
        order: 'asc',
        per_page: perPage,
        offset,
      }),
    );
    return Array.isArray(res.data) ? res.data : [];
  }

  /**
   * A page of the store's products (every status), oldest id first, and how many pages there are (`X-WP-TotalPages`).
   */
  async listProducts(page: number, perPage: number): Promise<{ items: unknown[]; totalPages: number }> {
    const res = await this.#call(
      this.#wc.get('products', { per_page: perPage, page, orderby: 'id', order: 'asc', status: 'any' }),
    );
    return {
      items: Array.isArray(res.data) ? res.data : [],
      totalPages: Number(res.headers['x-wp-totalpages'] ?? '1') || 1,
    };
  }

  /** A page of a variable product's variations, and how many pages there are. */
  async listVariations(
    productId: string,
    page: number,
    perPage: number,
  ): Promise<{ items: unknown[]; totalPages: number }> {
    const res = await this.#call(
      this.#wc.get(`products/${encodeURIComponent(productId)}/variations`, {
        per_page: perPage,
        page,
        orderby: 'id',
        order: 'asc',
      }),
    );
    return {
      items: Array.isArray(res.data) ? res.data : [],
      totalPages: Number(res.headers['x-wp-totalpages'] ?? '1') || 1,
    };
  }

  /** Creates a product (`POST /products`); answers it as WooCommerce saved it. */
  async createProduct(product: Record<string, unknown>): Promise<unknown> {
    return (await this.#productWrite(this.#wc.post('products', product))).data;
  }

  /** Changes a product (`PUT /products/<id>`); answers it as WooCommerce saved it. */
  async updateProduct(productId: string, changes: Record<string, unknown>): Promise<unknown> {
    return (await this.#productWrite(this.#wc.put(`products/${encodeURIComponent(productId)}`, changes))).data;
  }

  /** A product, or null when the store has none with this id (deleted for good). */
  async getProduct(productId: string): Promise<unknown> {
    const res = await this.#call(this.#wc.get(`products/${encodeURIComponent(productId)}`), [404]);
    return res.status === 404 ? null : res.data;
  }

  /** The store's currency (`GET /data/currencies/current`: its ISO 4217 code). */
  async currentCurrency(): Promise<unknown> {
    return (await this.#call(this.#wc.get('data/currencies/current'))).data;
  }

  /**
   * The store's address country and state (`GET /settings/general/woocommerce_default_country`: its `value`, "NL" or
   * "US:CA").
   */
  async defaultCountry(): Promise<unknown> {
    return (await this.#call(this.#wc.get('settings/general/woocommerce_default_country'))).data;
  }

  async getOrder(orderId: string): Promise<WooOrderSummary> {
    return (await this.#call(this.#wc.get(`orders/${encodeURIComponent(orderId)}`))).data as WooOrderSummary;
  }

  async setOrderStatus(orderId: string, status: string): Promise<void> {
    await this.#call(this.#wc.put(`orders/${encodeURIComponent(orderId)}`, { status }));
  }

  async listCustomerNotes(orderId: string): Promise<WooOrderNote[]> {
    return (await this.#call(this.#wc.get(`orders/${encodeURIComponent(orderId)}/notes`, { type: 'customer' })))
      .data as WooOrderNote[];
  }

  /** A note the customer sees (and is emailed) in their account. */
  async addCustomerNote(orderId: string, note: string): Promise<void> {
    await this.#call(this.#wc.post(`orders/${encodeURIComponent(orderId)}/notes`, { note, customer_note: true }));
  }

  /** Every webhook of the store (all statuses). */
  async listWebhooks(): Promise<WooWebhook[]> {
    const all: WooWebhook[] = [];
    for (let page = 1; page <= 10; page++) {
      const res = await this.#call(this.#wc.get('webhooks', { per_page: 100, page }));
      all.push(...(res.data as WooWebhook[]));
      if (page >= Number(res.headers['x-wp-totalpages'] ?? '1')) break;
    }
    return all;
  }

  async createWebhook(webhook: {
    name: string;
    topic: string;
    delivery_url: string;
    secret: string;
  }): Promise<WooWebhook> {
    return (await this.#call(this.#wc.post('webhooks', { ...webhook, status: 'active' }))).data as WooWebhook;
  }

  async updateWebhook(id: number, patch: { secret?: string; status?: 'active'; name?: string }): Promise<void> {
    await this.#call(this.#wc.put(`webhooks/${id}`, patch));
  }

  async deleteWebhook(id: number): Promise<void> {
    await this.#call(this.#wc.delete(`webhooks/${id}`, { force: true }), [404]);
  }

  /** The order's Shipment Tracking items, or null when the store does not have the extension. */
  async listTrackingItems(orderId: string): Promise<WooTrackingItem[] | null> {
    const res = await this.#call(this.#tracking.get(`orders/${encodeURIComponent(orderId)}/shipment-trackings`), [404]);
    if (res.status === 404) {
      if (errorCode(res.data) === 'rest_no_route') return null;
      throw ConnectorError.fromStatus('WooCommerce', 404, bodyText(res.data));
    }
    return Array.isArray(res.data) ? (res.data as WooTrackingItem[]) : [];
  }

  /** Adds a tracking item with our carrier as a custom provider (its link is the full tracking URL). */
  async addTrackingItem(
    orderId: string,
    item: { carrier: string; trackingNumber: string; trackingUrl: string; dateShipped: string },
  ): Promise<void> {
    await this.#call(
      this.#tracking.post(`orders/${encodeURIComponent(orderId)}/shipment-trackings`, {
        custom_tracking_provider: item.carrier,
        custom_tracking_link: item.trackingUrl,
        tracking_number: item.trackingNumber,
        date_shipped: item.dateShipped,
      }),
    );
  }

  /**
   * A product write: WooCommerce's refusal of the product itself (400 `product_invalid_sku`,
   * `woocommerce_product_image_upload_error`…) says why in its `message`, which is the reason
   * the merchant is given.
   */
  async #productWrite(request: Promise<unknown>): Promise<LibraryResponse> {
    const res = (await request) as LibraryResponse;
    const reason = errorMessage(res.data);
    if (res.status === 400 && reason)
      throw new ConnectorError(
        'invalid_payload',
        `WooCommerce refused the product: ${reason}${errorCode(res.data) ? ` (${errorCode(res.data)})` : ''}`,
        { status: 400 },
      );
    return this.#call(Promise.resolve(res));
  }

  /** Awaits a library call; statuses other than 2xx (and the `allowed` ones) become ConnectorErrors. */
  async #call(request: Promise<unknown>, allowed: number[] = []): Promise<LibraryResponse> {
    const res = (await request) as LibraryResponse;
    if ((res.status >= 200 && res.status < 300) || allowed.includes(res.status)) return res;
    throw ConnectorError.fromStatus('WooCommerce', res.status, bodyText(res.data), res.headers['retry-after']);
  }
}

function bodyText(data: unknown): string {
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function errorMessage(data: unknown): string | undefined {
  return typeof data === 'object' && data !== null && 'message' in data && typeof data.message === 'string'
    ? data.message
    : undefined;
}

function errorCode(data: unknown): string | undefined {
  return typeof data === 'object' && data !== null && 'code' in data && typeof data.code === 'string'
    ? data.code
    : undefined;
}
