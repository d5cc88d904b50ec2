import contract from './fixtures/woocommerce-rest-v3.contract.json' with { type: 'json' };

/**
 * WooCommerce's published contract for the wc/v3 routes the connector calls: the query
 * parameters (`get_collection_params`) and resource schemas (`get_item_schema`) its PHP
 * controllers declare, kept as JSON in fixtures/woocommerce-rest-v3.contract.json (see
 * fixtures/SOURCES.md). WordPress checks a declared parameter's type and enum (400
 * `rest_invalid_param`) but silently ignores an undeclared one; the fake refuses that too, since
 * an ignored filter (`modified_since` for `modified_after`) would read every order unnoticed.
 */
interface Param {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  readonly?: boolean;
  items?: Param;
  properties?: Record<string, Param>;
}
interface RouteSpec {
  query?: Record<string, Param>;
  body?: string;
  alsoWritable?: Record<string, Param>;
  required?: string[];
}

const SCHEMAS = contract.schemas as unknown as Record<string, Param>;
const ROUTES = Object.entries(contract.routes as Record<string, RouteSpec>).map(([key, spec]) => {
  const [method, path] = key.split(' ') as [string, string];
  return { key, method, pattern: new RegExp(`^/wp-json/wc/v3${path.replace(/\{\w+\}/g, '[^/]+')}$`), spec };
});
/** WordPress's own parameters, valid on every route. */
const GLOBAL = new Set(['_fields', '_embed', '_envelope', '_jsonp', '_method']);

/**
 * What of this request WooCommerce's controllers do not declare or would refuse (empty: it keeps to the contract).
 * Other namespaces (the REST index, Shipment Tracking) are not judged.
 */
export function requestViolations(method: string, path: string, query: URLSearchParams, body: unknown): string[] {
  if (!path.startsWith('/wp-json/wc/v3/')) return [];
  const route = ROUTES.find((r) => r.method === method && r.pattern.test(path));
  if (!route) return [`${method} ${path}: not a wc/v3 route of the contract`];
  const out: string[] = [];
  for (const [raw, value] of query) {
    const name = raw.replace(/\[\]$/, '');
    const param = route.spec.query?.[name];
    if (!param) {
      if (!GLOBAL.has(name)) out.push(`${route.key}: ${name} is not a parameter of this route`);
      continue;
    }
    out.push(...valueViolations(value, param, `${route.key} ?${name}`, true));
  }
  if (route.spec.body) out.push(...bodyViolations(route.key, route.spec, body));
  return out;
}

function bodyViolations(key: string, spec: RouteSpec, body: unknown): string[] {
  if (body === undefined || body === '') return [];
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return [`${key}: the body is not a JSON object`];
  const fields = body as Record<string, unknown>;
  if (spec.body === 'batch')
    return Object.keys(fields)
      .filter((k) => !['create', 'update', 'delete'].includes(k))
      .map((k) => `${key}: ${k} is not a batch field`);
  const schema = SCHEMAS[spec.body!]!;
  const out = (spec.required ?? []).filter((k) => fields[k] === undefined).map((k) => `${key}: ${k} is required`);
  for (const [k, v] of Object.entries(fields)) {
    const extra = spec.alsoWritable?.[k];
    const prop = extra ?? schema.properties?.[k];
    if (!prop) out.push(`${key}: ${k} is not a field of the resource`);
    else if (prop.readonly && !extra) out.push(`${key}: ${k} is read-only`);
    else out.push(...valueViolations(v, prop, `${key} .${k}`, false));
  }
  return out;
}

/**
 * Where a resource of `schema` (an answer of the fake) breaks the types and enums its schema declares; undeclared
 * fields are WooCommerce's to add.
 */
export function resourceViolations(
  schema: 'order' | 'orderNote' | 'webhook' | 'product' | 'setting',
  value: unknown,
): string[] {
  return valueViolations(value, SCHEMAS[schema]!, schema, false);
}

function valueViolations(value: unknown, param: Param, at: string, fromQuery: boolean): string[] {
  if (value === null || value === undefined) return [];
  const types = param.type === undefined ? [] : Array.isArray(param.type) ? param.type : [param.type];
  if (types.length && !types.some((t) => hasType(value, t, fromQuery)))
    return [`${at}: ${JSON.stringify(value)} is not ${types.join(' or ')}`];
  const out: string[] = [];
  if (param.enum && !Array.isArray(value) && !param.enum.includes(value))
    out.push(`${at}: ${JSON.stringify(value)} is not one of ${param.enum.join(', ')}`);
  const n = typeof value === 'number' ? value : fromQuery && /^-?\d+$/.test(String(value)) ? Number(value) : undefined;
  if (n !== undefined && param.minimum !== undefined && n < param.minimum)
    out.push(`${at}: ${n} is below ${param.minimum}`);
  if (n !== undefined && param.maximum !== undefined && n > param.maximum)
    out.push(`${at}: ${n} is above ${param.maximum}`);
  if (param.format === 'date-time' && typeof value === 'string' && Number.isNaN(Date.parse(value)))
    out.push(`${at}: ${value} is not a date-time`);
  const list = Array.isArray(value)
    ? value
    : fromQuery && types.includes('array')
      ? String(value).split(',')
      : undefined;
  if (list && param.items)
    list.forEach((v, i) => out.push(...valueViolations(v, param.items!, `${at}[${i}]`, fromQuery)));
  if (param.properties && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      if (param.properties[k]) out.push(...valueViolations(v, param.properties[k]!, `${at}.${k}`, fromQuery));
  }
  return out;
}

function hasType(value: unknown, type: string, fromQuery: boolean): boolean {
  const text = typeof value === 'string' && fromQuery;
  switch (type) {
    case 'integer':
      return Number.isInteger(value) || (text && /^-?\d+$/.test(value));
    case 'number':
      return typeof value === 'number' || (text && value !== '' && !Number.isNaN(Number(value)));
    case 'boolean':
      return typeof value === 'boolean' || (text && ['true', 'false', '1', '0'].includes(value));
    case 'string':
      return typeof value === 'string';
    case 'date-time':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'array':
      return Array.isArray(value) || text;
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return true; // `mixed`
  }
}
