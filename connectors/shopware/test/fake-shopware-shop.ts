import { randomBytes } from 'node:crypto';
import type { FakeReply } from '@print-api/connector-kit/testing';
import { checkRequest, recordViolation } from './shopware-contract.ts';

type Json = Record<string, any>;
export const hexId = (): string => randomBytes(16).toString('hex');
/** Shopware's JSON times: ISO 8601 with milliseconds and an offset (`2026-11-28T18:00:00.123+00:00`). */
export const wireTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');
const error = (status: number, code: string, detail: string): FakeReply => [
  status,
  { errors: [{ code, status: String(status), title: code, detail }] },
];

/** The delivery transitions of Shopware's `order_delivery.state` machine that the fake knows. */
const DELIVERY_TRANSITIONS: Record<string, Record<string, string>> = {
  open: { ship: 'shipped', ship_partially: 'shipped_partially', cancel: 'cancelled' },
  shipped_partially: { ship: 'shipped', retour_partially: 'returned_partially', cancel: 'cancelled' },
  shipped: { retour: 'returned', retour_partially: 'returned_partially' },
};

export const SYSTEM_CURRENCY_ID = 'b7d2554b0ce847cd82f3ac9bd1c0dfca';
export const STOREFRONT_TYPE_ID = '8a243080f92e4c719546314b577cf82b';
export const state = (technicalName: string): Json => ({
  id: hexId(),
  technicalName,
  name: technicalName,
  stateMachineId: hexId(),
});

interface Fault {
  method: string;
  path: RegExp;
  status: number;
  headers: Record<string, string>;
}

/**
 * One Shopware 6 shop's Admin API (`<url>/api/...`), from memory: an integration's keys, the 10-minute tokens its
 * `/oauth/token` issues (checked and expired on every call), orders with their deliveries and transactions,
 * products, one storefront sales channel, taxes. Every request is held to the vendored contract (a violation
 * answers 400 as Shopware would and fails the test); answers are `application/json` as Shopware gives them to an
 * `Accept: application/json` client, each entity with only the associations the Criteria asked for.
 */
export class FakeShopwareShop {
  readonly url: string;
  readonly accessKeyId = `SWIA${randomBytes(12).toString('hex').toUpperCase()}`;
  readonly secretAccessKey = randomBytes(30).toString('base64url');
  readonly orders = new Map<string, Json>();
  readonly products = new Map<string, Json>();
  readonly requests: Array<{ method: string; path: string; body: any; at: number }> = [];
  readonly currency = { id: SYSTEM_CURRENCY_ID, isoCode: 'EUR', factor: 1, isSystemDefault: true, symbol: '€' };
  readonly salesChannel: Json;
  readonly taxes = [
    { id: hexId(), taxRate: 22, name: 'Standard rate', position: 1 },
    { id: hexId(), taxRate: 10, name: 'Reduced rate', position: 2 },
  ];
  integrationDeleted = false;
  /** Privileges the integration's role lacks (`sales_channel:read`…): calls needing one answer 403. */
  readonly missingPrivileges = new Set<string>();
  tokenGrants = 0;
  readonly #tokens = new Map<string, number>();
  readonly #faults: Fault[] = [];

  constructor(url: string, name = 'Tulip Prints') {
    this.url = url;
    this.salesChannel = {
      id: hexId(),
      typeId: STOREFRONT_TYPE_ID,
      name,
      currencyId: this.currency.id,
      createdAt: wireTime(Date.now() - 86_400_000),
      currency: { ...this.currency, id: this.currency.id },
      country: { id: hexId(), iso: 'IT', name: 'Italy' },
    };
  }

  seen(method: string, path: RegExp) {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  /** The next request matching method + path answers `status` (with headers, e.g. Retry-After). */
  failNext(method: string, path: RegExp, status: number, headers: Record<string, string> = {}): void {
    this.#faults.push({ method, path, status, headers });
  }

  expireTokens(): void {
    for (const token of this.#tokens.keys()) this.#tokens.set(token, 0);
  }

  /** The merchant deletes the integration: its keys and tokens stop working. */
  deleteIntegration(): void {
    this.integrationDeleted = true;
    this.#tokens.clear();
  }

  delivery(id: string): Json | undefined {
    for (const o of this.orders.values()) for (const d of o.deliveries) if (d.id === id) return d;
    return undefined;
  }

  async answer(req: Request, path: string): Promise<FakeReply> {
    const text = req.method === 'GET' ? '' : await req.text();
    const body = text ? JSON.parse(text) : undefined;
    this.requests.push({ method: req.method, path, body, at: Date.now() });
    if (!path.startsWith('/api/')) return error(404, 'FRAMEWORK__ROUTE_NOT_FOUND', `No route found for ${path}`);
    const apiPath = path.slice(4);
    const query = new URL(req.url).searchParams;
    const contentType = req.headers.get('content-type')?.split(';')[0];
    const found = checkRequest({ method: req.method, path: apiPath, query, body: text || undefined, contentType });
    if (found.length > 0) return error(400, 'FRAMEWORK__INVALID_CRITERIA_PARAMETERS', found.join('; '));
    if (apiPath === '/oauth/token') return this.#token(body);
    const auth = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
    if (!auth || !((this.#tokens.get(auth) ?? 0) > Date.now()))
      return error(401, 'FRAMEWORK__UNAUTHORIZED', 'The resource owner or authorization server denied the request.');
    if (req.headers.get('accept') !== 'application/json')
      recordViolation(`Shopware ${req.method} ${apiPath}: Accept is not application/json (Shopware answers JSON:API)`);
    const fault = this.#faults.findIndex((f) => f.method === req.method && f.path.test(apiPath));
    if (fault >= 0) {
      const [f] = this.#faults.splice(fault, 1);
      return [f!.status, { errors: [{ status: String(f!.status), title: 'Too Many Requests' }] }, f!.headers];
    }
    const privilege = privilegeOf(req.method, apiPath);
    if (privilege && this.missingPrivileges.has(privilege))
      return error(
        403,
        'FRAMEWORK__MISSING_PRIVILEGE_ERROR',
        JSON.stringify({ message: 'Missing privilege', missingPrivileges: [privilege] }),
      );
    return this.#route(req.method, apiPath, body ?? {});
  }

  #token(body: Json): FakeReply {
    if (
      this.integrationDeleted ||
      body.grant_type !== 'client_credentials' ||
      body.client_id !== this.accessKeyId ||
      body.client_secret !== this.secretAccessKey
    )
      return [
        401,
        { errors: [{ code: '0', status: '401', title: 'Unauthorized', detail: 'Client authentication failed' }] },
      ];
    const token = randomBytes(24).toString('hex');
    this.#tokens.set(token, Date.now() + 600_000);
    this.tokenGrants++;
    return [200, { token_type: 'Bearer', expires_in: 600, access_token: token }];
  }

  #route(method: string, path: string, body: Json): FakeReply {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/search/order') return this.#search([...this.orders.values()], body);
    if (method === 'POST' && path === '/search/order-transaction')
      return this.#search(
        [...this.orders.values()].flatMap((o) => o.transactions.map((t: Json) => ({ ...t, order: o }))),
        body,
      );
    if (method === 'POST' && path === '/search/product')
      return this.#search(
        [...this.products.values()].map((p) => ({ ...p, parent: p.parentId ? this.products.get(p.parentId) : null })),
        body,
      );
    if (method === 'POST' && path === '/search/sales-channel') return this.#search([this.salesChannel], body);
    if (method === 'POST' && path === '/search/tax') return this.#search(this.taxes, body);
    if (method === 'PATCH' && (m = /^\/order-delivery\/([0-9a-f]{32})$/.exec(path))) {
      const delivery = this.delivery(m[1]!);
      if (!delivery) return error(404, 'FRAMEWORK__ENTITY_NOT_FOUND', `order_delivery ${m[1]} not found`);
      Object.assign(delivery, body, { updatedAt: wireTime(Date.now()) });
      return [204, ''];
    }
    if (method === 'POST' && (m = /^\/_action\/order_delivery\/([0-9a-f]{32})\/state\/([a-z_]+)$/.exec(path))) {
      const delivery = this.delivery(m[1]!);
      if (!delivery) return error(404, 'FRAMEWORK__ENTITY_NOT_FOUND', `order_delivery ${m[1]} not found`);
      const to = DELIVERY_TRANSITIONS[delivery.stateMachineState.technicalName]?.[m[2]!];
      if (!to)
        return error(
          400,
          'SYSTEM__ILLEGAL_STATE_TRANSITION',
          `Illegal transition "${m[2]}" from state "${delivery.stateMachineState.technicalName}".`,
        );
      delivery.stateMachineState = state(to);
      delivery.stateId = delivery.stateMachineState.id;
      return [200, delivery.stateMachineState];
    }
    if (method === 'POST' && path === '/product') return this.#createProduct(body);
    if ((m = /^\/product\/([0-9a-f]{32})$/.exec(path))) {
      const product = this.products.get(m[1]!);
      if (!product) return error(404, 'FRAMEWORK__ENTITY_NOT_FOUND', `product ${m[1]} not found`);
      if (method === 'GET') return [200, { data: product }];
      if (method === 'PATCH') {
        Object.assign(product, body, { updatedAt: wireTime(Date.now()) });
        return [204, ''];
      }
    }
    return error(404, 'FRAMEWORK__ROUTE_NOT_FOUND', `No route found for ${method} ${path}`);
  }

  #createProduct(body: Json): FakeReply {
    if ([...this.products.values()].some((p) => p.productNumber === body.productNumber))
      return error(
        400,
        'CONTENT__DUPLICATE_PRODUCT_NUMBER',
        `Product with number "${body.productNumber}" already exists.`,
      );
    if (!this.taxes.some((t) => t.id === body.taxId))
      return error(400, 'FRAMEWORK__WRITE_CONSTRAINT_VIOLATION', `taxId ${body.taxId} does not exist.`);
    if (!body.price?.some((p: Json) => p.currencyId === SYSTEM_CURRENCY_ID))
      return error(400, 'CONTENT__PRODUCT_PRICE_MISSING', 'The product has no price in the default currency.');
    this.products.set(body.id, { childCount: 0, parentId: null, createdAt: wireTime(Date.now()), ...body });
    return [204, '', { location: `${this.url}/api/product/${body.id}` }];
  }

  /** A Criteria applied as Shopware's DAL does, for what the connector asks: ids, filters, sort, page, associations. */
  #search(rows: Json[], criteria: Json): FakeReply {
    let found = rows;
    if (criteria.ids) found = found.filter((r) => criteria.ids.includes(r.id));
    for (const f of criteria.filter ?? []) found = found.filter((r) => matches(r, f));
    const sort: Json[] = criteria.sort ?? [];
    found = [...found].sort((a, b) => {
      for (const s of sort) {
        const c = compare(a[s.field], b[s.field]) * (String(s.order).toUpperCase() === 'DESC' ? -1 : 1);
        if (c !== 0) return c;
      }
      return 0;
    });
    const limit = criteria.limit ?? found.length;
    const page = criteria.page ?? 1;
    const data = found.slice((page - 1) * limit, page * limit).map((r) => project(r, criteria.associations ?? {}));
    return [200, { total: data.length, data, aggregations: [] }];
  }
}

/** The ACL privilege a call needs (`<entity>:read` for a search, `:update`/`:create` for writes). */
function privilegeOf(method: string, path: string): string | null {
  const search = /^\/search\/([a-z-]+)$/.exec(path);
  if (search) return `${search[1]!.replace(/-/g, '_')}:read`;
  const entity = /^\/([a-z-]+)(\/|$)/.exec(path)?.[1];
  if (!entity || entity.startsWith('_')) return null;
  const verb = method === 'POST' ? 'create' : method === 'PATCH' ? 'update' : method === 'GET' ? 'read' : 'delete';
  return `${entity.replace(/-/g, '_')}:${verb}`;
}

/** A DAL filter on a field of the row (dotted paths not needed by the connector are refused). */
function matches(row: Json, f: Json): boolean {
  if (f.type === 'equals') return row[f.field] === f.value;
  if (f.type === 'range') {
    const v = row[f.field];
    if (v === null || v === undefined) return false;
    const p = f.parameters;
    const t = (x: string | number) =>
      typeof x === 'number' ? x : Date.parse(/[TZ+]/.test(x) ? x : `${x.replace(' ', 'T')}Z`);
    return (
      (p.gte === undefined || t(v) >= t(p.gte)) &&
      (p.gt === undefined || t(v) > t(p.gt)) &&
      (p.lte === undefined || t(v) <= t(p.lte)) &&
      (p.lt === undefined || t(v) < t(p.lt))
    );
  }
  throw new Error(`the fake does not filter by ${JSON.stringify(f)}`);
}

/** MySQL's order: null first, times by instant, the rest as text. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  const [x, y] = [Date.parse(String(a)), Date.parse(String(b))];
  if (/^\d{4}-/.test(String(a)) && !Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return String(a) < String(b) ? -1 : 1;
}

const isEntity = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && /^[0-9a-f]{32}$/.test(String((v as Json).id));

/** The entity with only the associations asked for (Shopware loads no association it is not asked to). */
function project(entity: Json, associations: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(entity)) {
    const isAssociation = isEntity(value) || (Array.isArray(value) && value.length > 0 && value.every(isEntity));
    if (!isAssociation) out[key] = value;
    else if (associations[key]) {
      const nested = associations[key].associations ?? {};
      out[key] = Array.isArray(value) ? value.map((v) => project(v, nested)) : project(value, nested);
    }
  }
  return out;
}
