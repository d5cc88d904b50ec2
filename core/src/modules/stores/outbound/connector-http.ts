import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import type { HttpClient, HttpRequest, HttpResponse } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import type { Metrics } from '../../../infra/metrics.ts';
import { SafeFetchError, type SafeFetch, type SafeResponse } from '../../../infra/safe-fetch/safe-fetch.ts';
import { downloadedFile, downloadFailure, MAX_DOWNLOAD_REDIRECTS, multipartBody } from './connector-files.ts';
import { connectorHttpMetrics, type ConnectorHttpMetrics } from './connector-http-metrics.ts';
import { retryAfterMs } from './retry-after.ts';

const DEFAULT_TIMEOUT_MS = 15_000;
/** A page of 100 WooCommerce orders is a few MB at most; anything bigger is not an answer we can use. */
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** A platform's Retry-After is waited out at most this often per call, and this long at most each time. */
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_WAIT_MS = 30_000;
/** A retry that would have less than this left of the call's budget is not worth sending. */
const MIN_RETRY_BUDGET_MS = 1000;
/** The shortest wait a `rate_limited` failure asks for: a platform's "now" must not make the queue spin. */
const MIN_RATE_LIMIT_WAIT_MS = 1000;

const DECODERS: Record<string, (buf: Buffer, options: ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

export interface ConnectorHttpDeps {
  /** The outbound guard: https only, public addresses only (after DNS), connects to what it checked. */
  safeFetch: SafeFetch;
  /** The platform whose calls these are: the `platform` of logs and metrics. */
  platform?: string;
  userAgent?: string;
  /**
   * Budget of a request that names none: every exchange (DNS, connect, TLS, the whole body) and the waits between them.
   */
  defaultTimeoutMs?: number;
  /** Largest body kept, compressed or decoded: a bigger answer fails as `invalid_payload`. */
  maxBodyBytes?: number;
  /** Every call at debug level: method, host, path (no query), status, duration; never headers or bodies. */
  logger?: { debug(message: string, meta?: Record<string, unknown>): void };
  metrics?: ConnectorHttpMetrics;
  /** How a 429/503 with Retry-After is waited out (tests set `maxRetries: 0` to see the failure at once). */
  retry?: { maxRetries?: number; maxWaitMs?: number };
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * The HTTP client connectors get (the kit's HttpClient port), on top of SafeFetch: stores and
 * platforms are URLs merchants type, so every call is checked after DNS and connects only to
 * the public address it checked. Redirects are not followed: a 3xx is the answer, judged by the
 * connector like any status (a store's credentials must not travel to wherever it points).
 * Network failures become `upstream_unavailable`; an address that is not public becomes
 * `invalid_payload` (retrying cannot help) whose cause is SafeFetch's `address_blocked`, so
 * the API can say so. Messages name the host only: never the address it resolved to, the
 * query (credentials may travel there) or the operating system's words.
 *
 * A 429 or 503 with `Retry-After` is the platform telling us when to come back: the client
 * waits and sends again (at most `maxRetries` times, each wait at most `maxWaitMs`, and only
 * while the wait and a retry fit in the call's time budget). When they do not, the call fails
 * as `rate_limited` with the platform's wait, which the pipeline turns into a delayed job
 * (no attempt spent). Without Retry-After the answer is the connector's to judge: platforms
 * signal limits their own ways (Shopify's cost bucket in the body).
 *
 * A multipart body is encoded by the platform's FormData once, and sent (and sent again) like
 * any body. `download` fetches a file a merchant named by URL: redirects followed (each hop
 * checked by the guard), no credentials, a size cap and the type read from the bytes
 * (connector-files.ts).
 *
 * Every exchange is counted (platform, the request's `operation` or its method, status) and
 * timed, and logged at debug level.
 */
export function createConnectorHttp(deps: ConnectorHttpDeps): HttpClient {
  const userAgent = deps.userAgent ?? 'print-api-connectors/1.0';
  const timeoutMs = deps.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxRetries = deps.retry?.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxWaitMs = deps.retry?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const platform = deps.platform ?? 'unknown';
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /** Runs one exchange, counted, timed and logged whatever its outcome; `answered` records the status it got. */
  async function measured<T>(
    call: { method: string; url: string; operation: string },
    send: (answered: (status: number) => void) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    let status = 'unreachable';
    try {
      return await send((s) => (status = String(s)));
    } catch (err) {
      const refusal = err instanceof SafeFetchError ? err : (err as Error | undefined)?.cause;
      if (refusal instanceof SafeFetchError) status = failureStatus(refusal);
      throw err;
    } finally {
      const ms = performance.now() - started;
      deps.metrics?.requests.inc({ platform, operation: call.operation, status });
      deps.metrics?.duration.observe({ platform, operation: call.operation }, ms / 1000);
      deps.logger?.debug('connector call', {
        platform,
        operation: call.operation,
        method: call.method,
        host: hostOf(call.url),
        path: pathOf(call.url),
        status,
        durationMs: Math.round(ms),
      });
    }
  }

  /** One exchange of a connector's request, its body prepared (a multipart body encoded once for every retry). */
  function exchange(req: HttpRequest, sent: Outgoing, host: string, budgetMs: number): Promise<HttpResponse> {
    return measured({ method: req.method, url: req.url, operation: req.operation ?? req.method }, async (answered) => {
      try {
        const res = await deps.safeFetch.request(req.url, {
          method: req.method,
          // Connectors may name themselves; we ask for encodings we decode, whatever they said.
          headers: { 'user-agent': userAgent, ...sent.headers, 'accept-encoding': 'gzip, deflate, br' },
          ...(sent.body !== undefined ? { body: sent.body } : {}),
          timeoutMs: budgetMs,
          maxRedirects: 0,
          // One byte more than allowed tells a body that is too large from one that fits exactly.
          maxBodyBytes: maxBodyBytes + 1,
        });
        answered(res.status);
        return await answer(req, host, res, maxBodyBytes);
      } catch (err) {
        throw err instanceof ConnectorError ? err : connectorError(req, host, err);
      }
    });
  }

  return {
    async request(req) {
      const host = hostOf(req.url);
      const budgetMs = req.timeoutMs ?? timeoutMs;
      const deadline = now() + budgetMs;
      const sent = await outgoing(req);
      for (let retries = 0; ; retries++) {
        const res = await exchange(req, sent, host, Math.max(1, deadline - now()));
        const waitMs =
          res.status === 429 || res.status === 503 ? retryAfterMs(res.headers['retry-after'], now()) : null;
        if (waitMs === null) return res;
        if (retries < maxRetries && waitMs <= maxWaitMs && deadline - now() - waitMs >= MIN_RETRY_BUDGET_MS) {
          deps.logger?.debug('connector call waits for Retry-After', {
            platform,
            host,
            path: pathOf(req.url),
            status: res.status,
            waitMs,
          });
          await sleep(waitMs);
          continue;
        }
        const why = res.status === 429 ? 'rate limit reached' : 'unavailable';
        throw new ConnectorError(
          'rate_limited',
          `${req.method} ${host}: ${why} (${res.status}), Retry-After ${Math.ceil(waitMs / 1000)} s`,
          {
            status: res.status,
            retryAfterMs: Math.max(waitMs, MIN_RATE_LIMIT_WAIT_MS),
          },
        );
      }
    },
    download(req) {
      const call = { method: 'GET', url: req.url, operation: req.operation ?? 'download' };
      return measured(call, async (answered) => {
        let res: SafeResponse;
        try {
          res = await deps.safeFetch.request(req.url, {
            method: 'GET',
            // No credentials, no compression asked for: the bytes are the file's as its host keeps it.
            headers: { 'user-agent': userAgent, accept: req.accept.join(', ') },
            timeoutMs: req.timeoutMs ?? timeoutMs,
            maxRedirects: MAX_DOWNLOAD_REDIRECTS,
            maxBodyBytes: req.maxBytes + 1,
          });
        } catch (err) {
          throw downloadFailure(req, err);
        }
        answered(res.status);
        return downloadedFile(req, res);
      });
    },
  };
}

/** What goes on the wire for a request: its headers without Accept-Encoding (ours are set) and its body. */
interface Outgoing {
  headers: Record<string, string>;
  body?: string | Buffer;
}

async function outgoing(req: HttpRequest): Promise<Outgoing> {
  const headers = withoutAcceptEncoding(req.headers);
  if (!req.multipart) return { headers, ...(req.body !== undefined ? { body: req.body } : {}) };
  if (req.body !== undefined)
    throw new TypeError(`${req.method} ${pathOf(req.url)}: a body or a multipart body, not both`);
  const { body, contentType } = await multipartBody(req.multipart);
  const others = Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type');
  return { headers: { ...Object.fromEntries(others), 'content-type': contentType }, body };
}

/**
 * One client per platform (logs and metrics name it), all on the same guard and metrics:
 * composition asks for a platform's client where it builds that platform's ConnectorContext.
 */
export function connectorHttpClients(
  deps: Omit<ConnectorHttpDeps, 'platform' | 'metrics'> & { metrics?: Pick<Metrics, 'counter' | 'histogram'> },
): (platform: string) => HttpClient {
  const { metrics, ...rest } = deps;
  const recorded = metrics ? connectorHttpMetrics(metrics) : undefined;
  const clients = new Map<string, HttpClient>();
  return (platform) => {
    let client = clients.get(platform);
    if (!client) {
      client = createConnectorHttp({ ...rest, platform, ...(recorded ? { metrics: recorded } : {}) });
      clients.set(platform, client);
    }
    return client;
  };
}

/** The `status` label of an exchange that got no answer: a small fixed set. */
function failureStatus(err: SafeFetchError): string {
  if (err.code === 'timeout') return 'timeout';
  if (err.code === 'address_blocked' || err.code === 'scheme_not_allowed' || err.code === 'invalid_url')
    return 'refused';
  return 'unreachable';
}

async function answer(req: HttpRequest, host: string, res: SafeResponse, maxBodyBytes: number): Promise<HttpResponse> {
  const tooLarge = (): ConnectorError =>
    new ConnectorError('invalid_payload', `${req.method} ${host}: the answer is larger than ${maxBodyBytes} bytes`, {
      status: res.status,
    });
  if (res.body.length > maxBodyBytes) throw tooLarge();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let body = res.body;
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '' && body.length > 0) {
    const decode = DECODERS[encoding];
    if (!decode)
      throw new ConnectorError(
        'invalid_payload',
        `${req.method} ${host}: the answer is in an encoding we did not ask for (${encoding})`,
        { status: res.status },
      );
    try {
      body = await decode(body, { maxOutputLength: maxBodyBytes });
    } catch (err) {
      if (err instanceof RangeError) throw tooLarge();
      throw new ConnectorError(
        'invalid_payload',
        `${req.method} ${host}: the ${encoding} answer could not be decoded`,
        { status: res.status, cause: err },
      );
    }
    // The body handed on is decoded: its length and coding are no longer those headers'.
    delete headers['content-encoding'];
    delete headers['content-length'];
  }
  return { status: res.status, headers, body: body.toString('utf8') };
}

/** SafeFetch's failure as the connector pipeline's kind, in words safe to show a merchant. */
function connectorError(req: HttpRequest, host: string, err: unknown): ConnectorError {
  const what = `${req.method} ${host}`;
  if (!(err instanceof SafeFetchError))
    return new ConnectorError('upstream_unavailable', `${what}: the request failed`, { cause: err });
  switch (err.code) {
    case 'address_blocked':
      return new ConnectorError('invalid_payload', `${what}: ${host} is not a public internet address`, { cause: err });
    case 'scheme_not_allowed':
      return new ConnectorError('invalid_payload', `${what}: only https addresses can be called`, { cause: err });
    case 'invalid_url':
      return new ConnectorError(
        'invalid_payload',
        `${what}: not a usable URL (https, without a user name or password)`,
        { cause: err },
      );
    case 'dns_failed':
      return new ConnectorError('upstream_unavailable', `${what}: the host name could not be resolved`, { cause: err });
    case 'timeout':
      return new ConnectorError('upstream_unavailable', `${what}: timed out`, { cause: err });
    case 'tls_failed':
      return new ConnectorError(
        'upstream_unavailable',
        `${what}: the TLS connection failed (${causeCode(err) ?? 'certificate or handshake'})`,
        { cause: err },
      );
    default:
      return new ConnectorError(
        'upstream_unavailable',
        `${what}: the connection failed${causeCode(err) ? ` (${causeCode(err)})` : ''}`,
        { cause: err },
      );
  }
}

/** The error code of what failed under SafeFetch (ECONNREFUSED, CERT_HAS_EXPIRED…), never its message. */
function causeCode(err: SafeFetchError): string | undefined {
  const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : undefined;
}

/** The path without the query: queries may carry credentials (TikTok's `sign`, WooCommerce keys). */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '(invalid URL)';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

function withoutAcceptEncoding(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== 'accept-encoding'));
}

/**
 * The host the guard refused as not public, when that is why a connector call failed (the
 * SafeFetch refusal is somewhere in the error's causes: connectors may wrap what they got).
 */
export function refusedPrivateHost(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof SafeFetchError && e.code === 'address_blocked') return hostOf(e.url ?? '');
  }
  return undefined;
}
