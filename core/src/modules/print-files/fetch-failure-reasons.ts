import { STATUS_CODES } from 'node:http';
import type { SafeFetchError } from '../../infra/safe-fetch/safe-fetch.ts';

/**
 * Turns a refused or failed fetch into the sentence a reseller reads in the 422. When a
 * redirect hop failed, the message names that hop, since the original URL looked fine.
 */
export function fetchFailureReason(
  err: SafeFetchError,
  originalUrl: string,
  limits: { timeoutMs: number; maxRedirects: number },
): string {
  const hop = err.redirects.length > 0 ? `the file URL redirects to ${err.url}, which` : 'the file URL';
  const host = hostOf(err.url ?? originalUrl);
  switch (err.code) {
    case 'scheme_not_allowed':
      return hop === 'the file URL' ? 'the file URL must be an https URL' : `${hop} is not https`;
    case 'invalid_url':
      if (hop !== 'the file URL') return 'the file URL redirects to an invalid URL';
      return hasCredentials(originalUrl)
        ? 'the file URL must not contain a user name or password'
        : 'the file URL is not a valid URL';
    case 'address_blocked':
      return `${hop} points to a private or reserved network address (${host}${err.address && err.address !== host ? ` → ${err.address}` : ''}); print files must be publicly reachable`;
    case 'dns_failed':
      return `the file host ${host} could not be found (DNS lookup failed)`;
    case 'too_many_redirects':
      return `the file URL redirects more than ${limits.maxRedirects} times`;
    case 'timeout':
      return `the file server did not answer within ${limits.timeoutMs / 1000} s`;
    case 'connection_failed':
      return `the file server ${host} could not be reached`;
    case 'tls_failed':
      return `the file server ${host} does not have a valid HTTPS certificate`;
  }
}

/** For a non-2xx answer (a 3xx here is a redirect that was not followed: no Location). */
export function statusReason(status: number): string {
  const text = STATUS_CODES[status];
  const answered = `the file URL answered HTTP ${status}${text ? ` ${text}` : ''}`;
  return status >= 300 && status < 400 ? `${answered} without a usable redirect` : answered;
}

function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return url;
  }
}
