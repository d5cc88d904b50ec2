import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { isBlockedAddress } from './address-policy.ts';
import { SafeFetchError } from './safe-fetch-error.ts';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (tests inject one; the default asks the OS). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** A URL that passed the checks, with the addresses the socket may connect to. */
export interface CheckedTarget {
  url: URL;
  /** Host name without IPv6 brackets, as the socket and TLS need it. */
  host: string;
  addresses: ResolvedAddress[];
}

export const systemLookup: HostLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * A lookup whose answers are reused for `ttlMs` (and shared while one is under way), failures
 * never: a busy deliverer or file checker asks the OS resolver (getaddrinfo on libuv's thread
 * pool, /etc/hosts and DNS each time, no cache of its own) once per host every few seconds
 * instead of on every request. Safe for the guard: a reused answer is checked again on every
 * request like a fresh one, and the socket still connects only to the addresses checked; a
 * host that moves is followed `ttlMs` later, as behind any caching resolver.
 */
export function cachedLookup(lookup: HostLookup, ttlMs: number): HostLookup {
  const answers = new LRUCache<string, Promise<ResolvedAddress[]>>({ max: 1000, ttl: ttlMs });
  return (hostname) => {
    const known = answers.get(hostname);
    if (known) return known;
    const asked = lookup(hostname);
    answers.set(hostname, asked);
    asked.catch(() => {
      if (answers.get(hostname) === asked) answers.delete(hostname);
    });
    return asked;
  };
}

/**
 * Parses and checks one hop: https only, every resolved address outside the blocked
 * ranges unless the host is allow-listed. The WHATWG parser has already turned odd IPv4
 * spellings (2130706433, 0177.0.0.1, 0x7f.1) into dotted decimal, so a literal IP is
 * checked in its real form without reaching DNS.
 */
export async function resolveTarget(
  rawUrl: string | URL,
  deps: { allowedHosts: ReadonlySet<string>; lookup: HostLookup },
): Promise<CheckedTarget> {
  const url = typeof rawUrl === 'string' ? parseUrl(rawUrl) : rawUrl;
  if (url.protocol !== 'https:') {
    throw new SafeFetchError(
      'scheme_not_allowed',
      `only https URLs are allowed, not ${url.protocol.replace(/:$/, '')}: ${url.href}`,
      { url: url.href },
    );
  }
  if (url.username !== '' || url.password !== '') {
    // They would be dropped silently (never sent), so say so instead.
    throw new SafeFetchError('invalid_url', `URLs with a user name or password are not allowed: ${url.host}`, {
      url: url.origin,
    });
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const exempt = deps.allowedHosts.has(host);
  const family = isIP(host);
  const addresses =
    family !== 0
      ? [{ address: host, family: family === 6 ? 6 : 4 } as const]
      : await lookupAll(host, deps.lookup, url.href);
  if (!exempt) {
    const blocked = addresses.find((a) => isBlockedAddress(a.address));
    if (blocked) {
      const what = family !== 0 ? `${host} is` : `${host} resolves to ${blocked.address}, which is`;
      throw new SafeFetchError('address_blocked', `${what} a private or reserved address`, {
        url: url.href,
        address: blocked.address,
      });
    }
  }
  return { url, host, addresses };
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new SafeFetchError('invalid_url', `not a valid URL: ${raw}`, { url: raw });
  }
}

async function lookupAll(host: string, lookup: HostLookup, url: string): Promise<ResolvedAddress[]> {
  let found: ResolvedAddress[];
  try {
    found = await lookup(host);
  } catch (err) {
    throw new SafeFetchError('dns_failed', `could not resolve ${host}: ${(err as Error).message}`, { url, cause: err });
  }
  if (found.length === 0) throw new SafeFetchError('dns_failed', `could not resolve ${host}: no addresses`, { url });
  return found;
}

/** Normalises the configured allow-list the same way hosts are read from URLs. */
export function allowedHostSet(hosts: readonly string[]): ReadonlySet<string> {
  return new Set(
    hosts
      .map((h) =>
        h
          .trim()
          .replace(/^\[(.*)\]$/, '$1')
          .toLowerCase(),
      )
      .filter((h) => h !== ''),
  );
}
