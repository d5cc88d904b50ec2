// Hand-written on purpose (issue 29 asks why): the guard is the redirect loop itself. Each hop
// is resolved, its every address checked (address-policy.ts) and the socket pinned to those
// addresses, so a DNS answer cannot change between check and connect; credentials are dropped
// when a redirect leaves the origin; one time budget covers DNS, connect, TLS, every hop and the
// body, and the body is cut at a byte limit. Address-filtering agents (request-filtering-agent,
// ssrf-req-filter) check the connect only: the redirect policy, the budget and the byte limit
// would stay here either way, so a library would replace the smallest part.
import { createSecureContext, getCACertificates, type SecureContext } from 'node:tls';
import { exchange } from './https-exchange.ts';
import { SafeFetchError } from './safe-fetch-error.ts';
import { allowedHostSet, cachedLookup, resolveTarget, systemLookup, type HostLookup } from './target-resolver.ts';

export { SafeFetchError, type SafeFetchErrorCode } from './safe-fetch-error.ts';
export type { HostLookup, ResolvedAddress } from './target-resolver.ts';

export type SafeMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface SafeRequestOptions {
  method?: SafeMethod;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Budget for the whole exchange: DNS, connect, TLS, every redirect hop and the body. */
  timeoutMs: number;
  /** 0 = do not follow: a 3xx is then returned as the response. */
  maxRedirects: number;
  /** Keep at most this many body bytes, then drop the connection. */
  maxBodyBytes: number;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** At most `maxBodyBytes` bytes. */
  body: Buffer;
  /** The URL that gave this response (after redirects). */
  url: string;
  /** Each URL a redirect led to, in order; empty without redirects, else the last is `url`. */
  redirects: string[];
}

/**
 * The only way to request a URL someone else supplied (print files, webhook endpoints, the
 * stores connectors call).
 * It refuses anything but https, refuses private and reserved addresses on every hop and
 * connects only to the addresses it checked. Failures are `SafeFetchError`s.
 *
 * @example
 * ```ts
 * const res = await safeFetch.request('https://files.example.com/card.pdf', {
 *   timeoutMs: 5000, maxRedirects: 5, maxBodyBytes: 64 * 1024,
 * });
 * if (res.status === 200) inspect(res.body);
 * ```
 */
export interface SafeFetch {
  request(url: string, options: SafeRequestOptions): Promise<SafeResponse>;
}

/** What `createSafeFetch` returns: the port, plus a check that sends nothing. */
export interface SafeFetchClient extends SafeFetch {
  /**
   * Applies the scheme, DNS and address checks to a URL without connecting (e.g. when a webhook endpoint is
   * registered).
   */
  checkUrl(url: string): Promise<void>;
}

export interface SafeFetchConfig {
  /** Hosts exempt from the private-address block (exact, case-insensitive); tests only. */
  allowedHosts: string[];
  /** Extra CA certificates (PEM) to trust on top of Node's defaults, e.g. a test server's. */
  ca?: string[];
  userAgent: string;
  /** DNS resolver returning every address; the OS resolver by default. */
  lookup?: HostLookup;
  /** How long a host's addresses are reused (`cachedLookup`); default DNS_CACHE_MS, 0 asks the resolver every time. */
  dnsCacheMs?: number;
}

/**
 * A host's resolved addresses are reused this long: a few seconds of staleness, against a resolver call per request.
 */
const DNS_CACHE_MS = 5000;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Credentials meant for one origin must not follow a redirect to another. */
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

const trustStores = new Map<string, SecureContext>();

/**
 * Node's default trust store (NODE_EXTRA_CA_CERTS included) plus the extra CAs, as one TLS context: without a context
 * of its own every new connection would build one (~150 root certificates). Built once per set of extra CAs in a
 * process (a context only reads them), not once per client: a process that makes many clients (the tests make
 * hundreds) would parse the roots each time.
 */
function trustOf(extra: string[]): SecureContext {
  const key = extra.join('\n');
  let context = trustStores.get(key);
  if (!context) {
    context = createSecureContext({ ca: [...getCACertificates('default'), ...extra] });
    trustStores.set(key, context);
  }
  return context;
}

export function createSafeFetch(config: SafeFetchConfig): SafeFetchClient {
  const lookup = config.lookup ?? systemLookup;
  const cacheMs = config.dnsCacheMs ?? DNS_CACHE_MS;
  const deps = {
    allowedHosts: allowedHostSet(config.allowedHosts),
    lookup: cacheMs > 0 ? cachedLookup(lookup, cacheMs) : lookup,
  };
  const secureContext = trustOf(config.ca ?? []);

  return {
    async checkUrl(url) {
      await resolveTarget(url, deps);
    },
    async request(url, options) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      const redirects: string[] = [];
      try {
        return await follow(url, options, controller.signal, redirects);
      } catch (err) {
        if (!(err instanceof SafeFetchError) || redirects.length === 0) throw err;
        throw new SafeFetchError(err.code, err.message, {
          url: err.url,
          address: err.address,
          redirects: [...redirects],
          cause: err.cause,
        });
      } finally {
        clearTimeout(timer);
      }
    },
  };

  /** Pushes each redirect it follows onto `redirects`, so a failure can say which hop failed. */
  async function follow(
    startUrl: string,
    options: SafeRequestOptions,
    signal: AbortSignal,
    redirects: string[],
  ): Promise<SafeResponse> {
    let method: string = options.method ?? 'GET';
    let body = options.body;
    let headers = initialHeaders(options);
    let next: string | URL = startUrl;
    const willFollow = (status: number, location: unknown): boolean =>
      REDIRECT_STATUSES.has(status) && typeof location === 'string' && options.maxRedirects > 0;

    for (;;) {
      const target = await withDeadline(resolveTarget(next, deps), signal, String(next));
      const res = await exchange(target, {
        method,
        headers: withBodyLength(headers, body),
        body,
        secureContext,
        signal,
        bodyLimit: (status, h) => (willFollow(status, h.location) || method === 'HEAD' ? 0 : options.maxBodyBytes),
      });
      const location = res.headers.location;
      if (!willFollow(res.status, location)) {
        return {
          status: res.status,
          headers: { ...res.headers },
          body: res.body,
          url: target.url.href,
          redirects: [...redirects],
        };
      }
      if (redirects.length >= options.maxRedirects) {
        throw new SafeFetchError(
          'too_many_redirects',
          `more than ${options.maxRedirects} redirects, starting at ${startUrl}`,
          { url: target.url.href },
        );
      }
      const nextUrl = resolveLocation(String(location), target.url);
      if (
        (res.status === 303 && method !== 'GET' && method !== 'HEAD') ||
        ((res.status === 301 || res.status === 302) && method === 'POST')
      ) {
        // What browsers do (the Fetch standard): the redirect target is fetched, not re-posted;
        // 307/308, and 301/302 of other methods, repeat the method and body.
        method = 'GET';
        body = undefined;
        headers = omit(headers, ['content-type']);
      }
      if (nextUrl.origin !== target.url.origin) headers = omit(headers, [...ORIGIN_BOUND_HEADERS]);
      redirects.push(nextUrl.href);
      next = nextUrl;
    }
  }

  function initialHeaders(options: SafeRequestOptions): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': config.userAgent };
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    return omit(headers, ['host', 'content-length']);
  }
}

function withBodyLength(headers: Record<string, string>, body: string | Buffer | undefined): Record<string, string> {
  return body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
}

function omit(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

function resolveLocation(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new SafeFetchError('invalid_url', `redirect to an invalid URL: ${location}`, { url: base.href });
  }
}

/** DNS cannot be cancelled, so the deadline races it instead. */
function withDeadline<T>(work: Promise<T>, signal: AbortSignal, url: string): Promise<T> {
  const timedOut = (): SafeFetchError => new SafeFetchError('timeout', `timed out talking to ${url}`, { url });
  if (signal.aborted) return Promise.reject(timedOut());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(timedOut());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
