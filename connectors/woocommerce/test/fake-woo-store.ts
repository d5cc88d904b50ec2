import nock from 'nock';
import { wooCommerceWebhook } from './webhook-signer.ts';
import errors from './fixtures/errors.json' with { type: 'json' };
import webhookFixture from './fixtures/webhook.json' with { type: 'json' };
import wpIndex from './fixtures/wp-index.json' with { type: 'json' };
import type { WooOrderJson } from './woo-fixtures.ts';
import { requestViolations, resourceViolations } from './woo-contract.ts';
import { type CatalogueStore, catalogueRoute, type FakeWooProduct } from './fake-woo-catalogue.ts';

export type { FakeWooProduct } from './fake-woo-catalogue.ts';

interface StoredWebhook {
  id: number;
  name: string;
  status: 'active' | 'paused' | 'disabled';
  topic: string;
  delivery_url: string;
  secret: string;
  /** Failed deliveries in a row (`WC_Webhook::failed_delivery`). */
  failure_count: number;
}

/**
 * What WooCommerce's REST contract refused since the last `takeContractViolations`, in every fake store (each test
 * checks it is nothing).
 */
const violations: string[] = [];
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

/**
 * `woocommerce_max_webhook_delivery_failures`' default: a webhook is disabled at the failure after this many in a row.
 */
const MAX_DELIVERY_FAILURES = 5;

interface Fault {
  method: string;
  path: RegExp;
  status: number;
  headers: Record<string, string>;
  remaining: number;
}

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  at: number;
}

export type Reply = [number, unknown, Record<string, string>?];

/**
 * A WooCommerce store behind nock, answering the documented REST routes from memory: keys
 * (read_write or read), webhooks (with the creation ping to the delivery URL), orders with
 * `modified_after` + `X-WP-TotalPages`, notes, status updates and, when installed, the
 * Shipment Tracking extension. It delivers signed webhooks to our service as WooCommerce
 * would (`deliver`), and can be told to fail a route (`failNext`, e.g. a 429).
 */
export class FakeWooStore implements CatalogueStore {
  readonly url: string;
  readonly consumerKey: string;
  readonly consumerSecret: string;
  permissions: 'read' | 'read_write' = 'read_write';
  shipmentTracking = true;
  /** The store's currency (WooCommerce > Settings > General). */
  currency = 'EUR';
  /**
   * The store's address country and state (WooCommerce > Settings > General > Store Address), as WooCommerce keeps it.
   */
  defaultCountry = 'NL:NH';
  /** WordPress on plain permalinks: no /wp-json/ (its 404 page), the REST index only at /?rest_route=/. */
  plainPermalinks = false;
  readonly webhooks: StoredWebhook[] = [];
  readonly orders = new Map<number, WooOrderJson>();
  readonly products = new Map<number, FakeWooProduct>();
  readonly notes = new Map<number, Array<{ id: number; note: string; customer_note: boolean }>>();
  readonly trackings = new Map<number, Array<Record<string, unknown>>>();
  readonly requests: SeenRequest[] = [];
  readonly pings: number[] = [];
  readonly #faults: Fault[] = [];
  readonly #ourBaseUrl: string;
  readonly #publicUrl: string;
  #nextId = 500;
  /** The next id of something the store creates (webhook, product, note, tracking item). */
  nextId(): number {
    return this.#nextId++;
  }

  /**
   * `url`: where the store is served from instead of `https://<host>` behind nock (a real local
   * HTTPS server, whose requests it answers through `answer`).
   */
  constructor(opts: { host: string; ourBaseUrl: string; publicUrl: string; url?: string }) {
    this.url = opts.url ?? `https://${opts.host}`;
    const hex = (n: number) => Array.from({ length: 40 }, (_, i) => ((n + i * 7) % 16).toString(16)).join('');
    this.consumerKey = `ck_${hex(opts.host.length)}`;
    this.consumerSecret = `cs_${hex(opts.host.length + 3)}`;
    this.#ourBaseUrl = opts.ourBaseUrl;
    this.#publicUrl = opts.publicUrl;
    if (opts.url) return;
    const scope = nock(this.url).persist();
    for (const method of ['get', 'post', 'put', 'delete'] as const) {
      scope[method](/.*/)
        .query(true)
        .reply(async (req: Request) => this.#handle(req));
    }
  }

  /** The next `times` requests matching method + path get `status` (with headers, e.g. Retry-After). */
  failNext(method: string, path: RegExp, status: number, headers: Record<string, string> = {}, times = 1): void {
    this.#faults.push({ method, path, status, headers, remaining: times });
  }

  seen(method: string, path: RegExp): SeenRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  /** Puts an order in the store (as a checkout would) without delivering anything. */
  save(order: WooOrderJson): WooOrderJson {
    this.orders.set(order.id, structuredClone(order));
    return order;
  }

  /** Puts a product in the catalogue (as the merchant's admin would) without delivering anything. */
  saveProduct(product: FakeWooProduct): FakeWooProduct {
    this.products.set(product.id, structuredClone(product));
    return product;
  }

  /** Delivers `order` to our service as the store's `topic` webhook would; answers our HTTP status. */
  async deliver(order: WooOrderJson, topic: 'order.created' | 'order.updated'): Promise<number> {
    const hook = this.webhooks.find((w) => w.topic === topic && w.status === 'active');
    if (!hook) throw new Error(`the store has no active ${topic} webhook`);
    return this.send(
      hook,
      wooCommerceWebhook({ payload: order, secret: hook.secret, topic, source: this.url, webhookId: hook.id }),
    );
  }

  /**
   * Sends a prepared request (forged, unsigned…) to a webhook's delivery URL, counting failures as
   * `WC_Webhook::log_delivery` does: 200-302 resets the count; any other answer adds one, and the
   * one after `woocommerce_max_webhook_delivery_failures` (5) in a row disables the webhook (a
   * REST update setting it active again leaves the count as it was).
   */
  async send(hook: StoredWebhook, req: { headers: Record<string, string>; body: string }): Promise<number> {
    const res = await fetch(this.#ours(hook.delivery_url), { method: 'POST', headers: req.headers, body: req.body });
    await res.arrayBuffer();
    if (res.status >= 200 && res.status < 303) hook.failure_count = 0;
    else if (hook.failure_count > MAX_DELIVERY_FAILURES) hook.status = 'disabled';
    else hook.failure_count++;
    return res.status;
  }

  /**
   * The merchant approves our app at `/wc-auth/v1/authorize` (`WC_Auth`): the store creates
   * keys for the requested scope, POSTs them as JSON to `callback_url` (HTTPS only), and only
   * when that answers 200 sends the merchant to `return_url?success=1&user_id=…`.
   */
  async approve(
    authorizeUrl: string,
    tamper: (keys: Record<string, unknown>) => Record<string, unknown> = (k) => k,
  ): Promise<{ callbackStatus: number; returnedTo: string | null }> {
    const url = new URL(authorizeUrl);
    if (`${url.origin}${url.pathname}` !== `${this.url}/wc-auth/v1/authorize`)
      throw new Error(`not this store's authorize endpoint: ${authorizeUrl}`);
    const p = url.searchParams;
    const callbackUrl = p.get('callback_url') ?? '';
    if (!callbackUrl.startsWith('https://')) throw new Error('The callback_url needs to be over SSL');
    const scope = p.get('scope') as 'read' | 'write' | 'read_write';
    this.permissions = scope === 'read_write' ? 'read_write' : 'read';
    const keys = tamper({
      key_id: 7,
      user_id: p.get('user_id'),
      consumer_key: this.consumerKey,
      consumer_secret: this.consumerSecret,
      key_permissions: scope,
    });
    const res = await fetch(this.#ours(callbackUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      body: JSON.stringify(keys),
    });
    await res.arrayBuffer();
    if (res.status !== 200) return { callbackStatus: res.status, returnedTo: null };
    const back = new URL(p.get('return_url') ?? '');
    back.searchParams.set('success', '1');
    back.searchParams.set('user_id', p.get('user_id') ?? '');
    const landing = await fetch(this.#ours(back.toString()), { redirect: 'manual' });
    await landing.arrayBuffer();
    return { callbackStatus: res.status, returnedTo: landing.headers.get('location') };
  }

  hook(topic: string): StoredWebhook {
    const hook = this.webhooks.find((w) => w.topic === topic);
    if (!hook) throw new Error(`no ${topic} webhook`);
    return hook;
  }

  #ours(deliveryUrl: string): string {
    return deliveryUrl.replace(this.#publicUrl, this.#ourBaseUrl);
  }

  /** Answers one request to the store (its URL relative to the store's root, as in `this.url`). */
  answer(req: Request): Promise<Reply> {
    return this.#handle(req);
  }

  async #handle(req: Request): Promise<Reply> {
    const url = new URL(req.url);
    const text = await req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    const method = req.method.toUpperCase();
    this.requests.push({ method, path: url.pathname, query: url.searchParams, body, at: Date.now() });
    const fault = this.#faults.find((f) => f.remaining > 0 && f.method === method && f.path.test(url.pathname));
    if (fault) {
      fault.remaining--;
      return [fault.status, { code: 'fault', message: `injected ${fault.status}` }, fault.headers];
    }
    if (this.plainPermalinks) {
      if (url.pathname === '/' && url.searchParams.get('rest_route') === '/')
        return [200, { ...wpIndex, url: this.url, home: this.url }];
      if (url.pathname.startsWith('/wp-json/'))
        return [
          404,
          '<!DOCTYPE html><html><head><title>Page not found</title></head><body>Nothing here.</body></html>',
          { 'content-type': 'text/html; charset=UTF-8' },
        ];
    }
    if (url.pathname === '/wp-json/') return [200, { ...wpIndex, url: this.url, home: this.url }];
    const basic = `Basic ${Buffer.from(`${this.consumerKey}:${this.consumerSecret}`).toString('base64')}`;
    if (req.headers.get('authorization') !== basic) return [401, errors.invalidKey];
    if (method !== 'GET' && this.permissions === 'read') return [401, errors.readOnlyKey];
    // Held to WooCommerce's declared parameters and schemas: WordPress's 400 for what it refuses (and, here, for what
    // it would silently ignore).
    const refused = requestViolations(method, url.pathname, url.searchParams, body);
    if (refused.length) {
      violations.push(...refused);
      return [
        400,
        { code: 'rest_invalid_param', message: `Invalid parameter(s): ${refused.join('; ')}`, data: { status: 400 } },
      ];
    }
    const reply = await this.#route(method, url, body as Record<string, unknown>);
    // The fake's own orders and webhooks must be what the schema types (a misread field or enum would pass unseen
    // otherwise).
    const schema = /\/wc\/v3\/orders(\/\d+)?$/.test(url.pathname)
      ? 'order'
      : /\/wc\/v3\/webhooks(\/\d+)?$/.test(url.pathname)
        ? 'webhook'
        : /\/wc\/v3\/products(\/\d+)?$/.test(url.pathname)
          ? 'product'
          : /\/wc\/v3\/settings\//.test(url.pathname)
            ? 'setting'
            : undefined;
    if (schema && reply[0] < 300)
      for (const item of [reply[1]].flat())
        violations.push(...resourceViolations(schema, item).map((v) => `answer to ${method} ${url.pathname}: ${v}`));
    return reply;
  }

  async #route(method: string, url: URL, body: Record<string, unknown>): Promise<Reply> {
    const path = url.pathname;
    const q = url.searchParams;
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/wp-json/wc/v3/webhooks/batch') return [200, {}];
    if (method === 'GET' && path === '/wp-json/wc/v3/webhooks') return this.#page(this.webhooks.map(publicWebhook), q);
    if (method === 'POST' && path === '/wp-json/wc/v3/webhooks') return [201, await this.#createWebhook(body)];
    if ((m = path.match(/^\/wp-json\/wc\/v3\/webhooks\/(\d+)$/))) {
      const i = this.webhooks.findIndex((w) => w.id === Number(m![1]));
      if (i < 0)
        return [404, { code: 'woocommerce_rest_webhook_invalid_id', message: 'Invalid ID.', data: { status: 404 } }];
      if (method === 'DELETE') return [200, publicWebhook(this.webhooks.splice(i, 1)[0]!)];
      if (method === 'PUT') Object.assign(this.webhooks[i]!, pick(body, ['status', 'secret', 'name']));
      return [200, publicWebhook(this.webhooks[i]!)];
    }
    if (method === 'GET' && path === '/wp-json/wc/v3/orders') {
      const after = q.get('modified_after') ?? '';
      const list = [...this.orders.values()]
        .filter((o) => o.date_modified_gmt > after)
        .sort((a, b) => a.date_modified_gmt.localeCompare(b.date_modified_gmt));
      return this.#page(list, q);
    }
    if (method === 'GET' && path === '/wp-json/wc/v3/settings/general/woocommerce_default_country')
      return [200, this.#countrySetting()];
    if (method === 'GET' && path === '/wp-json/wc/v3/data/currencies/current')
      return [200, { code: this.currency, name: this.currency, symbol: this.currency }];
    const catalogue = catalogueRoute(this, method, path, body, (items) => this.#page(items, q));
    if (catalogue) return catalogue;
    if ((m = path.match(/^\/wp-json\/wc\/v3\/orders\/(\d+)$/))) {
      const order = this.orders.get(Number(m[1]));
      if (!order)
        return [404, { code: 'woocommerce_rest_shop_order_invalid_id', message: 'Invalid ID.', data: { status: 404 } }];
      if (method === 'PUT' && typeof body.status === 'string') order.status = body.status;
      return [200, order];
    }
    if ((m = path.match(/^\/wp-json\/wc\/v3\/orders\/(\d+)\/notes$/))) {
      const notes = this.notes.get(Number(m[1])) ?? [];
      this.notes.set(Number(m[1]), notes);
      if (method === 'GET') return [200, q.get('type') === 'customer' ? notes.filter((n) => n.customer_note) : notes];
      const note = { id: this.nextId(), note: String(body.note), customer_note: body.customer_note === true };
      notes.push(note);
      return [201, note];
    }
    if ((m = path.match(/^\/wp-json\/wc-shipment-tracking\/v3\/orders\/(\d+)\/shipment-trackings$/))) {
      if (!this.shipmentTracking) return [404, errors.noRoute];
      const items = this.trackings.get(Number(m[1])) ?? [];
      this.trackings.set(Number(m[1]), items);
      if (method === 'GET') return [200, items];
      const item = {
        tracking_id: `t${this.nextId()}`,
        tracking_provider: body.custom_tracking_provider,
        tracking_link: body.custom_tracking_link,
        tracking_number: body.tracking_number,
        date_shipped: body.date_shipped,
      };
      items.push(item);
      return [201, item];
    }
    return [404, errors.noRoute];
  }

  /**
   * The setting as WooCommerce's setting options controller answers it (a `single_select_country` shown as a `select`;
   * its options, every country and state, left out here).
   */
  #countrySetting(): Record<string, unknown> {
    const value = this.defaultCountry;
    return {
      id: 'woocommerce_default_country',
      label: 'Country / State',
      description: 'The country and state or province, if any, in which your business is located.',
      type: 'select',
      default: 'US:CA',
      tip: 'The country and state or province, if any, in which your business is located.',
      value,
    };
  }

  /** `WC_REST_Webhooks_Controller::create_item` saves the webhook, then pings its delivery URL. */
  async #createWebhook(body: Record<string, unknown>) {
    const hook: StoredWebhook = {
      id: this.nextId(),
      name: String(body.name ?? ''),
      status: 'active',
      topic: String(body.topic),
      delivery_url: String(body.delivery_url),
      secret: String(body.secret ?? ''),
      failure_count: 0,
    };
    this.webhooks.push(hook);
    const ping = await fetch(this.#ours(hook.delivery_url), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)',
      },
      body: `webhook_id=${hook.id}`,
    });
    await ping.arrayBuffer();
    this.pings.push(ping.status);
    return publicWebhook(hook);
  }

  /** `per_page` + `page`, or `offset` (which, as in WP_Query, overrides `page`). */
  #page(items: unknown[], q: URLSearchParams): Reply {
    const perPage = Number(q.get('per_page') ?? '10');
    const page = Number(q.get('page') ?? '1');
    const start = q.has('offset') ? Number(q.get('offset')) : (page - 1) * perPage;
    const totalPages = Math.ceil(items.length / perPage);
    return [
      200,
      items.slice(start, start + perPage),
      { 'X-WP-Total': String(items.length), 'X-WP-TotalPages': String(totalPages) },
    ];
  }
}

/** A webhook as the REST API shows it: the secret is write-only. */
function publicWebhook(w: StoredWebhook) {
  const [resource, event] = w.topic.split('.');
  return {
    ...webhookFixture,
    id: w.id,
    name: w.name,
    status: w.status,
    topic: w.topic,
    resource,
    event,
    delivery_url: w.delivery_url,
  };
}

function pick(body: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
}
