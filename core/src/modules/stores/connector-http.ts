import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, type ZlibOptions } from 'node:zlib';
import type { HttpClient, HttpRequest, HttpResponse } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';
import { SafeFetchError, type SafeFetch, type SafeResponse } from '../../infra/safe-fetch/safe-fetch.ts';

const DEFAULT_TIMEOUT_MS = 15_000;
/** A page of 100 WooCommerce orders is a few MB at most; anything bigger is not an answer we can use. */
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

const DECODERS: Record<string, (buf: Buffer, options: ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

export interface ConnectorHttpDeps {
  /** The outbound guard: https only, public addresses only (after DNS), connects to what it checked. */
  safeFetch: SafeFetch;
  userAgent?: string;
  /** Budget of a request that names none (DNS, connect, TLS and the whole body). */
  defaultTimeoutMs?: number;
  /** Largest body kept, compressed or decoded: a bigger answer fails as `invalid_payload`. */
  maxBodyBytes?: number;
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
 */
export function createConnectorHttp(deps: ConnectorHttpDeps): HttpClient {
  const userAgent = deps.userAgent ?? 'print-api-connectors/1.0';
  const timeoutMs = deps.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    async request(req) {
      const host = hostOf(req.url);
      let res: SafeResponse;
      try {
        res = await deps.safeFetch.request(req.url, {
          method: req.method,
          // Connectors may name themselves; we ask for encodings we decode, whatever they said.
          headers: { 'user-agent': userAgent, ...withoutAcceptEncoding(req.headers), 'accept-encoding': 'gzip, deflate, br' },
          ...(req.body !== undefined ? { body: req.body } : {}),
          timeoutMs: req.timeoutMs ?? timeoutMs,
          maxRedirects: 0,
          // One byte more than allowed tells a body that is too large from one that fits exactly.
          maxBodyBytes: maxBodyBytes + 1,
        });
      } catch (err) {
        throw connectorError(req, host, err);
      }
      return answer(req, host, res, maxBodyBytes);
    },
  };
}

async function answer(req: HttpRequest, host: string, res: SafeResponse, maxBodyBytes: number): Promise<HttpResponse> {
  const tooLarge = (): ConnectorError => new ConnectorError('invalid_payload', `${req.method} ${host}: the answer is larger than ${maxBodyBytes} bytes`, { status: res.status });
  if (res.body.length > maxBodyBytes) throw tooLarge();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let body = res.body;
  const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '' && body.length > 0) {
    const decode = DECODERS[encoding];
    if (!decode) throw new ConnectorError('invalid_payload', `${req.method} ${host}: the answer is in an encoding we did not ask for (${encoding})`, { status: res.status });
    try {
      body = await decode(body, { maxOutputLength: maxBodyBytes });
    } catch (err) {
      if (err instanceof RangeError) throw tooLarge();
      throw new ConnectorError('invalid_payload', `${req.method} ${host}: the ${encoding} answer could not be decoded`, { status: res.status, cause: err });
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
  if (!(err instanceof SafeFetchError)) return new ConnectorError('upstream_unavailable', `${what}: the request failed`, { cause: err });
  switch (err.code) {
    case 'address_blocked':
      return new ConnectorError('invalid_payload', `${what}: ${host} is not a public internet address`, { cause: err });
    case 'scheme_not_allowed':
      return new ConnectorError('invalid_payload', `${what}: only https addresses can be called`, { cause: err });
    case 'invalid_url':
      return new ConnectorError('invalid_payload', `${what}: not a usable URL (https, without a user name or password)`, { cause: err });
    case 'dns_failed':
      return new ConnectorError('upstream_unavailable', `${what}: the host name could not be resolved`, { cause: err });
    case 'timeout':
      return new ConnectorError('upstream_unavailable', `${what}: timed out`, { cause: err });
    case 'tls_failed':
      return new ConnectorError('upstream_unavailable', `${what}: the TLS connection failed (${causeCode(err) ?? 'certificate or handshake'})`, { cause: err });
    default:
      return new ConnectorError('upstream_unavailable', `${what}: the connection failed${causeCode(err) ? ` (${causeCode(err)})` : ''}`, { cause: err });
  }
}

/** The error code of what failed under SafeFetch (ECONNREFUSED, CERT_HAS_EXPIRED…), never its message. */
function causeCode(err: SafeFetchError): string | undefined {
  const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : undefined;
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
