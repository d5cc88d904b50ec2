import type { FakeReply } from '@print-api/connector-kit/testing';
import { CONTRACT, DEFINITIONS, readCriteria, schemaQuery, search } from './magento-contract.ts';
import orderFixture from './fixtures/order.json' with { type: 'json' };

type Json = Record<string, any>;
export type MagentoOrderJson = typeof orderFixture & Json;

/**
 * What Magento's REST contract refused since the last `takeContractViolations`, in every fake shop (each test checks
 * it is nothing).
 */
const violations: string[] = [];
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

/** Magento's error body: `{message, parameters}` (its `%name` placeholders filled from `parameters`). */
const error = (message: string, parameters: Json | unknown[] = []): Json => ({ message, parameters });

/** The ACL resource each operation needs, named in Magento's 401. */
const RESOURCES: Record<string, string> = {
  GetV1Orders: 'Magento_Sales::actions_view',
  GetV1OrdersId: 'Magento_Sales::actions_view',
  PostV1OrderOrderIdShip: 'Magento_Sales::ship',
  GetV1Shipments: 'Magento_Sales::shipment',
  GetV1Products: 'Magento_Catalog::products',
  PostV1Products: 'Magento_Catalog::products',
  GetV1ProductsSku: 'Magento_Catalog::products',
  PutV1ProductsSku: 'Magento_Catalog::products',
  GetV1StoreStoreConfigs: 'Magento_Backend::store',
};

/** The top-level attributes a `searchCriteria` may filter and sort on, per search. */
const fieldsOf = (definition: string, more: string[] = []) =>
  new Set([...Object.keys(DEFINITIONS[definition].properties), ...more]);
const SEARCHABLE: Record<string, Set<string>> = {
  GetV1Orders: fieldsOf('sales-data-order-interface'),
  GetV1Shipments: fieldsOf('sales-data-shipment-interface'),
  // Products are EAV: `entity_id` (Adobe's search guide filters on it) besides the interface's fields.
  GetV1Products: fieldsOf('catalog-data-product-interface', ['entity_id']),
};

export interface Seen {
  /** The store code of the URL (`/rest/<code>/V1`), null for the default store view. */
  store: string | null;
  method: string;
  path: string;
  query: URLSearchParams;
  body: Json | undefined;
  at: number;
}

/** Magento's `2026-11-28 09:14:02` (UTC, whole seconds) of a time. */
export const magentoTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * One Magento 2.4 installation: its REST API under `<url>/rest[/<store_code>]/V1`, an integration's access token (the
 * bearer setting of 2.4.4+ on or off), orders, shipments and products held in memory. Every request is checked
 * against the vendored admin schema and Adobe's search rules (a violation is Magento's 400, and recorded).
 */
export class FakeMagentoShop {
  readonly url: string;
  readonly accessToken: string;
  readonly storeCodes = ['default', 'it'];
  currency = 'EUR';
  /** Stores > Configuration > Services > OAuth > "Allow OAuth Access Tokens to be used as standalone Bearer tokens". */
  bearerTokensAllowed = true;
  /** The integration was deleted (or its token re-issued) in the admin. */
  revoked = false;
  /** ACL resources the integration was not given (System > Integrations > API > Resource Access). */
  readonly deniedResources = new Set<string>();
  readonly orders = new Map<number, MagentoOrderJson>();
  readonly products = new Map<number, Json>();
  readonly shipments: Json[] = [];
  readonly requests: Seen[] = [];
  readonly #faults: Array<{ method: string; path: RegExp; reply: FakeReply }> = [];
  #nextProductId = 2040;
  #lastStamp = 0;

  constructor(url: string, accessToken: string) {
    this.url = url;
    this.accessToken = accessToken;
  }

  /** Now, as Magento's `updated_at` writes it: whole seconds. */
  stamp(): string {
    return magentoTime(new Date());
  }

  save(order: MagentoOrderJson): void {
    this.orders.set(order.entity_id, order);
  }

  failNext(method: string, path: RegExp, reply: FakeReply): void {
    this.#faults.push({ method, path, reply });
  }

  seen(method: string, path: RegExp): Seen[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  /** Answers a request for `<url>` + `path` (the shop's own part of the URL, with its query). */
  async answer(req: Request, pathAndQuery: string): Promise<FakeReply> {
    const url = new URL(pathAndQuery, 'https://shop.invalid');
    const m = /^\/rest(?:\/([a-z][a-z0-9_]*))?(\/V1\/.*)$/.exec(url.pathname);
    if (!m) return [404, '<html><body>404 Not Found</body></html>', { 'content-type': 'text/html' }];
    const [, code, path] = m as unknown as [string, string | undefined, string];
    const raw = req.method === 'GET' ? '' : await req.text();
    let body: Json | undefined;
    try {
      body = raw ? (JSON.parse(raw) as Json) : undefined;
    } catch {
      return [400, error('Decoding error: %1', ['Syntax error'])];
    }
    this.requests.push({
      store: code ?? null,
      method: req.method,
      path,
      query: url.searchParams,
      body,
      at: Date.now(),
    });
    const fault = this.#faults.findIndex((f) => f.method === req.method && f.path.test(path));
    if (fault >= 0) return this.#faults.splice(fault, 1)[0]!.reply;
    if (!CONTRACT.has(req.method, path)) return [404, { message: 'Request does not match any route.', trace: null }];
    const ruled: string[] = [];
    const { operationId } = CONTRACT.check({ method: req.method, path, query: new URLSearchParams() });
    const op = operationId!;
    const auth = req.headers.get('authorization');
    const denied = this.deniedResources.has(RESOURCES[op]!);
    if (auth !== `Bearer ${this.accessToken}` || this.revoked || !this.bearerTokensAllowed || denied)
      return [401, error("The consumer isn't authorized to access %resources.", { resources: RESOURCES[op] })];
    if (code && code !== 'all' && !this.storeCodes.includes(code))
      return [400, error("The store that was requested wasn't found. Verify the store and try again.")];
    for (const q of schemaQuery(url.searchParams))
      ruled.push(...CONTRACT.check({ method: req.method, path, query: q }).violations);
    ruled.push(
      ...CONTRACT.check({
        method: req.method,
        path,
        query: new URLSearchParams(),
        body: raw || undefined,
        contentType: req.headers.get('content-type') ?? undefined,
      }).violations,
    );
    const searchable = SEARCHABLE[op];
    let criteria;
    if (searchable) {
      if (![...url.searchParams.keys()].some((k) => k.startsWith('searchCriteria')))
        return [400, error('"%fieldName" is required. Enter and try again.', { fieldName: 'searchCriteria' })];
      const read = readCriteria(url.searchParams, searchable);
      ruled.push(...read.violations);
      criteria = read.criteria;
      if ((criteria.pageSize ?? 0) > 300)
        ruled.push('Magento 2.4.7+ refuses a pageSize over 300 (its default input limit)');
    }
    if (ruled.length > 0) {
      violations.push(...ruled.map((v) => `${req.method} ${path}: ${v}`));
      return [400, error(ruled[0]!)];
    }
    const id = Number(path.split('/')[3]);
    switch (op) {
      case 'GetV1Orders':
        return this.#page(search([...this.orders.values()], criteria!), criteria);
      case 'GetV1OrdersId':
        return this.orders.has(id) ? [200, this.orders.get(id)] : [404, NOT_FOUND];
      case 'PostV1OrderOrderIdShip':
        return this.#ship(id, body!);
      case 'GetV1Shipments':
        return this.#page(search(this.shipments, criteria!), criteria);
      case 'GetV1Products':
        return this.#page(
          search(
            [...this.products.values()].map((p) => ({ ...p, entity_id: p.id })),
            criteria!,
          ),
          criteria,
          (p) => {
            const { entity_id: _, ...product } = p;
            return product;
          },
        );
      case 'PostV1Products':
        return this.#saveProduct(body!.product);
      case 'GetV1ProductsSku':
      case 'PutV1ProductsSku': {
        const sku = decodeURIComponent(path.slice('/V1/products/'.length));
        const found = [...this.products.values()].find((p) => p.sku === sku);
        if (!found)
          return [404, error("The product that was requested doesn't exist. Verify the product and try again.")];
        return op === 'GetV1ProductsSku' ? [200, found] : this.#saveProduct({ ...body!.product, sku });
      }
      case 'GetV1StoreStoreConfigs':
        return [200, this.storeCodes.map((c, i) => storeConfig(this.url, c, i + 1, this.currency))];
    }
    return [404, { message: 'Request does not match any route.', trace: null }];
  }

  #page(found: { items: Json[]; total: number }, criteria: any, map: (row: Json) => Json = (r) => r): FakeReply {
    return [
      200,
      {
        items: found.items.map(map),
        search_criteria: {
          filter_groups: criteria.groups.map((g: any[]) => ({
            filters: g.map((f) => ({ field: f.field, value: f.value, condition_type: f.conditionType })),
          })),
          ...(criteria.sortOrders.length ? { sort_orders: criteria.sortOrders } : {}),
          ...(criteria.pageSize ? { page_size: criteria.pageSize } : {}),
          ...(criteria.currentPage ? { current_page: criteria.currentPage } : {}),
        },
        total_count: found.total,
      },
    ];
  }

  /**
   * `ShipOrder`: the order must allow a shipment (not canceled, closed, complete, on hold or in payment review), every
   * item be the order's, shippable (a configurable's child ships through its parent) and within what is left.
   */
  #ship(orderId: number, body: Json): FakeReply {
    const order = this.orders.get(orderId);
    if (!order) return [404, NOT_FOUND];
    const refuse = (why: string) => [400, error(`Shipment Document Validation Error(s):\n${why}\n`)] as FakeReply;
    if (['canceled', 'closed', 'complete', 'holded', 'payment_review'].includes(order.state))
      return refuse('The order does not allow a shipment to be created.');
    const items = order.items as Json[];
    for (const { order_item_id, qty } of body.items ?? []) {
      const item = items.find((i) => i.item_id === order_item_id);
      const parent = item && items.find((i) => i.item_id === item.parent_item_id);
      if (!item || parent?.product_type === 'configurable')
        return refuse("You can't create a shipment without products.");
      if (qty > item.qty_ordered - item.qty_shipped - item.qty_canceled - item.qty_refunded)
        return refuse(
          `The quantity to ship must not be greater than the unshipped quantity for the product "${item.name}".`,
        );
    }
    if (!body.items?.length) return refuse("You can't create a shipment without products.");
    for (const { order_item_id, qty } of body.items) {
      for (const i of items)
        if (i.item_id === order_item_id || i.parent_item_id === order_item_id) i.qty_shipped += qty;
    }
    const done = items.every((i) => i.qty_shipped + i.qty_canceled + i.qty_refunded >= i.qty_ordered);
    if (done) Object.assign(order, { state: 'complete', status: 'complete' });
    order.updated_at = this.stamp();
    const entity_id = this.shipments.length + 1;
    this.shipments.push({
      entity_id,
      order_id: orderId,
      items: body.items,
      tracks: (body.tracks ?? []).map((t: Json) => ({ ...t, order_id: orderId, parent_id: entity_id })),
      comments: body.comment ? [body.comment] : [],
    });
    return [200, entity_id];
  }

  /**
   * `ProductRepository::save`: a new SKU is a new product, a known one is changed (`POST` with a taken SKU updates it,
   * as Magento does). What the schema leaves optional but Magento needs of a new product: a name, a price, an
   * attribute set; its URL key must be free.
   */
  #saveProduct(input: Json): FakeReply {
    const existing = [...this.products.values()].find((p) => p.sku === input.sku);
    for (const field of existing ? [] : ['name', 'price', 'attribute_set_id'])
      if (input[field] === undefined)
        return [400, error('The "%1" attribute value is empty. Set the attribute and try again.', [field])];
    const urlKey = input.custom_attributes?.find((a: Json) => a.attribute_code === 'url_key')?.value;
    const clash = [...this.products.values()].some(
      (p) =>
        p.sku !== input.sku &&
        p.custom_attributes?.some((a: Json) => a.attribute_code === 'url_key' && a.value === urlKey),
    );
    if (urlKey && clash) return [400, error('URL key for specified store already exists.')];
    const now = this.stamp();
    const product = existing
      ? Object.assign(existing, input, { updated_at: now })
      : {
          id: this.#nextProductId++,
          status: 1,
          visibility: 4,
          type_id: 'simple',
          created_at: now,
          ...input,
          updated_at: now,
        };
    this.products.set(product.id, product);
    return [200, product];
  }
}

const NOT_FOUND = error("The entity that was requested doesn't exist. Verify the entity and try again.");

function storeConfig(url: string, code: string, id: number, currency: string): Json {
  const base = `${url}/`;
  return {
    id,
    code,
    website_id: 1,
    locale: code === 'it' ? 'it_IT' : 'en_US',
    base_currency_code: currency,
    default_display_currency_code: currency,
    timezone: 'Europe/Rome',
    weight_unit: 'kgs',
    base_url: base,
    base_link_url: base,
    base_static_url: `${base}static/`,
    base_media_url: `${base}media/`,
    secure_base_url: base,
    secure_base_link_url: base,
    secure_base_static_url: `${base}static/`,
    secure_base_media_url: `${base}media/`,
  };
}
