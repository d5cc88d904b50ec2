import { lookup as dnsLookup } from 'node:dns/promises';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { isBlockedAddress } from './address-policy.ts';
import { SafeFetchError } from './safe-fetch-error.ts';

export { SafeFetchError } from './safe-fetch-error.ts';
export { isBlockedAddress } from './address-policy.ts';

export interface SafeRequestOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The whole exchange, every hop included. */
  timeoutMs: number;
  /** 0: a 3xx is returned as the response. */
  maxRedirects: number;
  /** Read at most this many body bytes, then hang up. */
  maxBodyBytes: number;
}

export interface SafeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
  redirects: string[];
}

/** Outbound requests to user-supplied URLs (print files, webhook endpoints), guarded against SSRF. */
export interface SafeFetch {
  request(url: string, options: SafeRequestOptions): Promise<SafeResponse>;
  /** Resolves the URL's host and checks every address, without sending anything (endpoint registration). */
  checkUrl(url: string): Promise<void>;
}

type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * https only; the host is resolved and every address checked (private, loopback, link-local,
 * CGNAT, multicast, reserved, IPv4-mapped IPv6), then the socket connects to exactly the
 * address that was checked, so DNS cannot change its answer in between. Every redirect hop
 * is checked the same way. Hosts in `allowedHosts` skip the address check (tests).
 */
export function createSafeFetch(opts: { allowedHosts: string[]; userAgent: string; ca?: string[]; resolve?: Resolver }): SafeFetch {
  const allowed = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
  const resolve: Resolver = opts.resolve ?? ((host) => dnsLookup(host, { all: true, verbatim: true }));
  // Extra CAs are trusted on top of the public roots, not instead of them.
  const agent = new https.Agent({ keepAlive: false, ...(opts.ca ? { ca: [...tls.rootCertificates, ...opts.ca] } : {}) });

  async function target(raw: string): Promise<{ url: URL; address: string; family: number }> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SafeFetchError('invalid_url', `'${raw}' is not a valid URL`);
    }
    if (url.protocol !== 'https:') throw new SafeFetchError('scheme_not_allowed', `Only https URLs are allowed, not ${url.protocol.replace(':', '')}`);
    if (url.username || url.password) throw new SafeFetchError('invalid_url', 'URLs with credentials are not allowed');
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    let addresses: Array<{ address: string; family: number }>;
    if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
    else {
      try {
        addresses = await resolve(host);
      } catch (err) {
        throw new SafeFetchError('dns_failed', `The host ${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      if (addresses.length === 0) throw new SafeFetchError('dns_failed', `The host ${host} has no address`);
    }
    if (!allowed.has(host)) {
      const bad = addresses.find((a) => isBlockedAddress(a.address));
      if (bad) throw new SafeFetchError('address_blocked', `The host ${host} resolves to ${bad.address}, a private or reserved address`);
    }
    return { url, address: addresses[0]!.address, family: addresses[0]!.family };
  }

  function once(t: { url: URL; address: string; family: number }, options: SafeRequestOptions, signal: AbortSignal): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolvePromise, reject) => {
      const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
        if ((lookupOptions as { all?: boolean }).all) (callback as any)(null, [{ address: t.address, family: t.family }]);
        else callback(null, t.address, t.family);
      };
      const host = t.url.hostname.replace(/^\[|\]$/g, '');
      const req = https.request(
        {
          protocol: 'https:',
          hostname: host,
          port: t.url.port || 443,
          path: `${t.url.pathname}${t.url.search}`,
          method: options.method ?? 'GET',
          headers: { 'user-agent': opts.userAgent, ...options.headers },
          lookup: pinned,
          agent,
          signal,
          ...(isIP(host) ? {} : { servername: host }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).subarray(0, options.maxBodyBytes) });
          res.on('data', (chunk: Buffer) => {
            if (size >= options.maxBodyBytes) return;
            chunks.push(chunk);
            size += chunk.length;
            if (size >= options.maxBodyBytes) {
              finish();
              res.destroy();
            }
          });
          res.on('end', finish);
          res.on('error', (err) => (size >= options.maxBodyBytes ? finish() : reject(err)));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  }

  return {
    async checkUrl(url) {
      await target(url);
    },
    async request(url, options) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      const redirects: string[] = [];
      try {
        let current = url;
        for (;;) {
          const t = await target(current);
          let res;
          try {
            res = await once(t, options, controller.signal);
          } catch (err) {
            throw toSafeError(err, controller.signal.aborted, options.timeoutMs, t.url.host);
          }
          const location = res.headers.location;
          if (REDIRECTS.has(res.status) && location && options.maxRedirects > 0) {
            if (redirects.length >= options.maxRedirects) throw new SafeFetchError('too_many_redirects', `More than ${options.maxRedirects} redirects`);
            current = new URL(location, t.url).toString();
            redirects.push(current);
            continue;
          }
          return { ...res, url: current, redirects };
        }
      } catch (err) {
        if (err instanceof SafeFetchError) throw err;
        throw toSafeError(err, controller.signal.aborted, options.timeoutMs, url);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function toSafeError(err: unknown, aborted: boolean, timeoutMs: number, host: string): SafeFetchError {
  if (err instanceof SafeFetchError) return err;
  if (aborted) return new SafeFetchError('timeout', `No complete answer within ${timeoutMs / 1000} s`);
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME/i.test(code) || /certificate/i.test((err as Error).message)) {
    return new SafeFetchError('tls_failed', `The TLS certificate of ${host} is not valid (${code || (err as Error).message})`);
  }
  return new SafeFetchError('connection_failed', `Could not connect to ${host} (${code || (err as Error).message})`);
}
