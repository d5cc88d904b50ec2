import type { HttpClient, HttpRequest } from './http-client.ts';

/** The WHATWG `fetch` signature, as platform SDKs accept it (`new Sdk({ fetch })`). */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const METHODS = new Set<HttpRequest['method']>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Statuses whose Response must not have a body. */
const BODYLESS = new Set([204, 205, 304]);

/**
 * A `fetch` that sends through the connector's HttpClient, for a platform SDK that takes one:
 * the SDK's calls then get core's outbound guard, timeouts, Retry-After handling, logs and
 * metrics like the connector's own. Differences from the global fetch, all on purpose:
 * redirects are not followed (the 3xx is the answer), failures reject with the client's
 * `ConnectorError` (not a TypeError), bodies are text (strings, URLSearchParams, bytes as UTF-8;
 * no streams or form data), and an abort signal is only checked before sending.
 *
 * @example
 * const sdk = new PlatformSdk({ fetch: fetchOver(ctx.http, { operation: 'sdk' }), baseUrl: ctx.appSettings.apiUrl });
 */
export function fetchOver(http: HttpClient, defaults: { operation?: string; timeoutMs?: number } = {}): FetchFunction {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = request ? request.url : input.toString();
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase() as HttpRequest['method'];
    if (!METHODS.has(method)) throw new TypeError(`fetchOver: ${method} is not supported`);
    const signal = init?.signal ?? request?.signal;
    signal?.throwIfAborted();

    const headers = headerRecord(init?.headers ?? request?.headers);
    const body =
      init?.body !== undefined ? await bodyText(init.body, headers) : request?.body ? await request.text() : undefined;

    const res = await http.request({
      method,
      url,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(defaults.operation ? { operation: defaults.operation } : {}),
      ...(defaults.timeoutMs ? { timeoutMs: defaults.timeoutMs } : {}),
    });
    return new Response(BODYLESS.has(res.status) ? null : res.body, { status: res.status, headers: res.headers });
  };
}

/**
 * Headers of any shape as a lower-cased record. Read entry by entry: `new Headers(h)` of a
 * Headers from another implementation (test interceptors replace the global one) can lose them.
 */
function headerRecord(source: RequestInit['headers'] | Headers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source) return out;
  if (Array.isArray(source)) for (const [name, value] of source) out[name!.toLowerCase()] = value!;
  else if (isHeaders(source)) source.forEach((value, name) => (out[name.toLowerCase()] = value));
  else for (const [name, value] of Object.entries(source)) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

const isHeaders = (h: unknown): h is Headers => typeof (h as { forEach?: unknown }).forEach === 'function';

/** A fetch body as text, with the content type fetch would have set for it when none was given. */
async function bodyText(body: RequestInit['body'], headers: Record<string, string>): Promise<string | undefined> {
  if (body === null || body === undefined) return undefined;
  const withType = (type: string) => void (headers['content-type'] ??= type);
  if (typeof body === 'string') {
    withType('text/plain;charset=UTF-8');
    return body;
  }
  if (body instanceof URLSearchParams) {
    withType('application/x-www-form-urlencoded;charset=UTF-8');
    return body.toString();
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (body instanceof Blob) {
    if (body.type) withType(body.type);
    return body.text();
  }
  throw new TypeError('fetchOver: only text, URLSearchParams, byte and Blob bodies are supported');
}
