import { ConnectorError, parseJsonPayload, type HttpClient, type HttpRequest } from '@print-api/connector-kit';
import type { ZodType } from 'zod';
import { BEARER_SETTING, restBase, type MagentoCredentials } from './config.ts';

/** One filter of a `searchCriteria`: each goes in a filter group of its own (groups are ANDed). */
export interface Filter {
  field: string;
  value: string;
  conditionType: 'eq' | 'gteq' | 'in';
}

/** A `searchCriteria` of a `getList` call: filters, sort orders, one page. */
export interface SearchCriteria {
  filters?: Filter[];
  sortOrders?: Array<[field: string, direction: 'ASC' | 'DESC']>;
  pageSize: number;
  currentPage: number;
}

/**
 * The query of a `searchCriteria`, spelt as the admin schema declares it (`searchCriteria[filterGroups][0][filters][0]
 * [field]`, `[sortOrders][0][field]`, `[pageSize]`, `[currentPage]`), indices counted from 0 as Magento's search guide
 * says.
 */
export function searchQuery(c: SearchCriteria): URLSearchParams {
  const q = new URLSearchParams();
  (c.filters ?? []).forEach((f, i) => {
    const at = `searchCriteria[filterGroups][${i}][filters][0]`;
    q.append(`${at}[field]`, f.field);
    q.append(`${at}[value]`, f.value);
    q.append(`${at}[conditionType]`, f.conditionType);
  });
  (c.sortOrders ?? []).forEach(([field, direction], i) => {
    q.append(`searchCriteria[sortOrders][${i}][field]`, field);
    q.append(`searchCriteria[sortOrders][${i}][direction]`, direction);
  });
  q.append('searchCriteria[pageSize]', String(c.pageSize));
  q.append('searchCriteria[currentPage]', String(c.currentPage));
  return q;
}

/** A time as Magento's filters and answers write it: `2026-11-28 18:30:05` (UTC, whole seconds). */
export const magentoTime = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

/** Magento's `2026-11-28 18:30:05` (UTC) as ISO 8601. */
export function isoOf(value: string): string {
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  if (Number.isNaN(date.getTime()))
    throw new ConnectorError('invalid_payload', `Magento sent an unreadable date: ${value.slice(0, 40)}`);
  return date.toISOString();
}

/**
 * Magento's error answer (`{message, parameters}`) as a sentence: its `%name` / `%1` placeholders filled from
 * `parameters` (an object, or a list for the numbered ones).
 */
export function errorMessage(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const { message, parameters } = (parsed ?? {}) as { message?: unknown; parameters?: unknown };
  if (typeof message !== 'string') return null;
  const params = (parameters ?? {}) as Record<string, unknown> | unknown[];
  return message.replace(/%(\w+)/g, (whole, name: string) => {
    const value = Array.isArray(params) ? params[Number(name) - 1] : params[name];
    return value === undefined ? whole : String(value);
  });
}

/**
 * Magento's REST API for one store: the integration's access token as a Bearer token, JSON in and out, under
 * `<baseUrl>/rest[/<store_code>]/V1`. Failures become ConnectorErrors: 401 `auth` (revoked: Magento answers 401 for a
 * deleted integration, a token re-issued, the bearer setting turned off or a resource the integration lacks), 429 and
 * 5xx as the kit maps them, other 4xx `invalid_payload` with Magento's own message.
 */
export class MagentoClient {
  readonly #http: HttpClient;
  readonly #credentials: MagentoCredentials;

  constructor(http: HttpClient, credentials: MagentoCredentials) {
    this.#http = http;
    this.#credentials = credentials;
  }

  /** A call answering JSON of `schema`; `allowed` statuses answer null instead of failing. */
  async json<T>(
    schema: ZodType<T>,
    req: { method: HttpRequest['method']; path: string; query?: URLSearchParams; body?: unknown; operation: string },
    allowed: number[] = [],
  ): Promise<T | null> {
    const query = req.query?.toString();
    const res = await this.#http.request({
      method: req.method,
      url: `${restBase(this.#credentials)}${req.path}${query ? `?${query}` : ''}`,
      headers: {
        authorization: `Bearer ${this.#credentials.accessToken}`,
        accept: 'application/json',
        ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
      operation: req.operation,
    });
    if (allowed.includes(res.status)) return null;
    if (res.status < 200 || res.status >= 300) throw this.#failure(res.status, res.body, res.headers['retry-after']);
    return parseJsonPayload(schema, res.body, `Magento ${req.operation}`);
  }

  #failure(status: number, body: string, retryAfter: string | undefined): ConnectorError {
    const said = errorMessage(body);
    if (status === 401)
      return new ConnectorError(
        'auth',
        `Magento refused the integration's access token (401${said ? `: ${said}` : ''}). Check that the integration is active with access to Sales, Catalog and Stores, and that ${BEARER_SETTING} (Magento 2.4.4+); then connect again with its Access Token.`,
        { status, revoked: true },
      );
    if (status === 404 && said === null)
      return new ConnectorError(
        'invalid_payload',
        `There is no Magento REST API at ${restBase(this.#credentials)}: give the store's base address (and a store code that exists).`,
        { status },
      );
    if (status === 429 || status >= 500) return ConnectorError.fromStatus('Magento', status, body, retryAfter);
    return new ConnectorError('invalid_payload', `Magento answered ${status}: ${said ?? body.slice(0, 300)}`, {
      status,
    });
  }
}
