import type { HttpClient, HttpRequest } from '@print-api/connector-kit';

/** The parts of an axios request config that `@woocommerce/woocommerce-rest-api` fills in. */
interface LibraryRequest {
  url?: string;
  method?: string;
  params?: Record<string, unknown>;
  data?: unknown;
  headers?: Record<string, unknown> & { toJSON?: () => Record<string, unknown> };
  auth?: { username: string; password: string };
  timeout?: number;
}

/** The axios response shape the library hands back to us. */
export interface LibraryResponse {
  data: unknown;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  config: LibraryRequest;
  request: Record<string, never>;
}

const METHODS = new Set<HttpRequest['method']>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * An axios adapter that sends the library's requests through core's HttpClient (its outbound
 * guard, timeouts, logging, metrics and test interception) instead of axios's own transport.
 * The library builds the URL, Basic credentials and JSON body; this turns them into one
 * `HttpRequest`.
 * Every status resolves (no axios error): the client maps statuses to ConnectorErrors.
 */
export function httpClientAdapter(http: HttpClient): (config: LibraryRequest) => Promise<LibraryResponse> {
  return async (config) => {
    const method = (config.method ?? 'get').toUpperCase() as HttpRequest['method'];
    if (!METHODS.has(method)) throw new Error(`Unsupported method ${method}`);
    const url = new URL(config.url ?? '');
    for (const [key, value] of Object.entries(config.params ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.append(key, String(value));
    }
    const headers = plainHeaders(config.headers);
    if (config.auth)
      headers.authorization = `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password}`).toString('base64')}`;
    const res = await http.request({
      method,
      url: url.toString(),
      headers,
      ...(typeof config.data === 'string' ? { body: config.data } : {}),
      ...(config.timeout ? { timeoutMs: config.timeout } : {}),
    });
    return { data: res.body, status: res.status, statusText: '', headers: res.headers, config, request: {} };
  };
}

function plainHeaders(raw: LibraryRequest['headers']): Record<string, string> {
  const source = typeof raw?.toJSON === 'function' ? raw.toJSON() : (raw ?? {});
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    // Core's client names us; the library's own User-Agent would hide who is calling.
    if (value === undefined || value === null || value === false || key.toLowerCase() === 'user-agent') continue;
    headers[key.toLowerCase()] = String(value);
  }
  return headers;
}
