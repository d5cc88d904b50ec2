import { OpenApiContract } from '@print-api/connector-kit/testing';
import schema from './fixtures/magento-admin-2.4.8.contract.json' with { type: 'json' };

type Json = Record<string, any>;

/**
 * The vendored admin schema as the fake holds requests to it. Two adjustments, both from Adobe's prose (see
 * SOURCES.md): paths are checked without the `basePath` (`/rest/default`: a store's own code stands there, or none),
 * and a stock item need not carry every field (the generator marks every getter of the interface required; Adobe's
 * product tutorials send `qty` and `is_in_stock` alone).
 */
const definitions = structuredClone(schema.definitions) as Json;
delete definitions['catalog-inventory-data-stock-item-interface'].required;
export const CONTRACT = new OpenApiContract({ ...schema, basePath: '/', definitions }, 'Magento admin REST 2.4.8');

/** The whole schema, for checking the fake's answers against a definition. */
export const DEFINITIONS = schema.definitions as Json;

/** `condition_type` values of Adobe's search guide (`performing-searches.md`); `eq` when absent. */
const CONDITIONS = new Set([
  'eq',
  'finset',
  'from',
  'gt',
  'gteq',
  'in',
  'like',
  'lt',
  'lteq',
  'moreq',
  'neq',
  'nfinset',
  'nin',
  'nlike',
  'notnull',
  'null',
  'to',
]);

export interface Filter {
  field: string;
  value: string;
  conditionType: string;
}
export interface Criteria {
  groups: Filter[][];
  sortOrders: Array<{ field: string; direction: string }>;
  pageSize: number | null;
  currentPage: number | null;
}

/** Magento's webapi takes snake_case keys as their camelCase (`filter_groups` is `filterGroups`). */
const camel = (key: string) => key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * A `searchCriteria` query read as Magento reads it, with what the schema and the search guide do not allow: a key the
 * schema does not declare (any index standing for its `[0]`), indices not counting from 0, a filter without its field,
 * a condition type not in the guide, a field that is not a top-level attribute of what is searched (`fields`).
 */
export function readCriteria(
  query: URLSearchParams,
  fields: ReadonlySet<string>,
): { criteria: Criteria; violations: string[] } {
  const violations: string[] = [];
  const groups: Array<Array<Partial<Filter>>> = [];
  const sorts: Array<Partial<{ field: string; direction: string }>> = [];
  const criteria: Criteria = { groups: [], sortOrders: [], pageSize: null, currentPage: null };
  for (const [rawKey, value] of query) {
    const parts = /^searchCriteria((?:\[[^\]]*\])+)$/.exec(rawKey);
    if (!parts) continue;
    const path = [...parts[1]!.matchAll(/\[([^\]]*)\]/g)].map((m) => camel(m[1]!));
    const key = path.map((p) => (/^\d+$/.test(p) ? 0 : p)).join('.');
    const [a, b, c, d, e] = path;
    if (
      key === 'filterGroups.0.filters.0.field' ||
      key === 'filterGroups.0.filters.0.value' ||
      key === 'filterGroups.0.filters.0.conditionType'
    )
      ((groups[Number(b)] ??= [])[Number(d)] ??= {})[e as keyof Filter] = value;
    else if (key === 'sortOrders.0.field' || key === 'sortOrders.0.direction')
      (sorts[Number(b)] ??= {})[c as 'field' | 'direction'] = value;
    else if (key === 'pageSize' || key === 'currentPage') criteria[a as 'pageSize'] = Number(value);
    else violations.push(`searchCriteria${parts[1]} is not a searchCriteria field the schema declares`);
  }
  const dense = <T>(list: T[], what: string) => {
    if (Array.from(list).some((x) => x === undefined))
      violations.push(`${what} indices must count from 0 without gaps`);
    return list.filter((x) => x !== undefined);
  };
  for (const group of dense(groups, 'filterGroups')) {
    const filters = dense(group, 'filters');
    for (const f of filters) {
      if (!f.field) violations.push('a filter has no field');
      else if (!fields.has(f.field)) violations.push(`filter field ${f.field} is not a top-level attribute`);
      if (f.conditionType && !CONDITIONS.has(f.conditionType))
        violations.push(`condition type ${f.conditionType} is not one of Magento's`);
      if (f.value === undefined && !['null', 'notnull'].includes(f.conditionType ?? ''))
        violations.push('a filter has no value');
    }
    criteria.groups.push(
      filters.map((f) => ({ field: f.field ?? '', value: f.value ?? '', conditionType: f.conditionType ?? 'eq' })),
    );
  }
  for (const s of dense(sorts, 'sortOrders')) {
    if (!s.field || !fields.has(s.field))
      violations.push(`sort field ${s.field ?? '(none)'} is not a top-level attribute`);
    if (s.direction && !['ASC', 'DESC'].includes(s.direction.toUpperCase()))
      violations.push(`sort direction ${s.direction} is not ASC or DESC`);
    criteria.sortOrders.push({ field: s.field ?? '', direction: (s.direction ?? 'ASC').toUpperCase() });
  }
  return { criteria, violations };
}

/**
 * The schema's view of a query: each key with its indices as `[0]` (the schema declares that one), once, so the
 * contract checks every name and type.
 */
export function schemaQuery(query: URLSearchParams): URLSearchParams[] {
  return [...query].map(([key, value]) => {
    const normal = key
      .replace(/\[(\d+)\]/g, '[0]')
      .replace(/\[([a-z]+(?:_[a-z]+)+)\]/g, (_m, k: string) => `[${camel(k)}]`);
    return new URLSearchParams([[normal, value]]);
  });
}

/** Rows matching the criteria (filter groups ANDed, filters of a group ORed), sorted, and one page of them. */
export function search<T extends Json>(rows: T[], c: Criteria): { items: T[]; total: number } {
  const hits = rows.filter((row) => c.groups.every((g) => g.some((f) => matches(row[f.field], f))));
  hits.sort((x, y) => {
    for (const s of c.sortOrders) {
      const order = compare(x[s.field], y[s.field]);
      if (order !== 0) return s.direction === 'DESC' ? -order : order;
    }
    return 0;
  });
  // Magento 2.4.7's input limits: 20 a page when none is asked for. A page past the last is the last one again.
  const size = c.pageSize ?? 20;
  const last = Math.max(1, Math.ceil(hits.length / size));
  const page = Math.min(Math.max(1, c.currentPage ?? 1), last);
  return { items: hits.slice((page - 1) * size, page * size), total: hits.length };
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a ?? '').localeCompare(String(b ?? ''));
}

function matches(actual: unknown, f: Filter): boolean {
  const value = typeof actual === 'number' ? Number(f.value) : f.value;
  switch (f.conditionType) {
    case 'eq':
      return compare(actual, value) === 0;
    case 'neq':
      return compare(actual, value) !== 0;
    case 'gt':
      return compare(actual, value) > 0;
    case 'gteq':
    case 'moreq':
    case 'from':
      return compare(actual, value) >= 0;
    case 'lt':
      return compare(actual, value) < 0;
    case 'lteq':
    case 'to':
      return compare(actual, value) <= 0;
    case 'in':
      return f.value.split(',').some((v) => String(actual) === v.trim());
    default:
      throw new Error(`the fake does not evaluate ${f.conditionType}`);
  }
}
