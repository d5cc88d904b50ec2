/** Why an outbound request was refused or failed; callers map these to their own words. */
export type SafeFetchErrorCode =
  | 'scheme_not_allowed'
  | 'invalid_url'
  | 'address_blocked'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'timeout'
  | 'connection_failed'
  | 'tls_failed';

/** The one error type SafeFetch throws. `url` is the hop that failed (after redirects). */
export class SafeFetchError extends Error {
  readonly code: SafeFetchErrorCode;
  readonly url: string | undefined;
  /** Set for `address_blocked`: the refused address (the host's, or the literal IP). */
  readonly address: string | undefined;
  /** Redirects followed before the failure; non-empty means a redirect target failed, not the URL asked for. */
  readonly redirects: string[];

  constructor(
    code: SafeFetchErrorCode,
    message: string,
    details: { url?: string; address?: string; redirects?: string[]; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'SafeFetchError';
    this.code = code;
    this.url = details.url;
    this.address = details.address;
    this.redirects = details.redirects ?? [];
  }
}
