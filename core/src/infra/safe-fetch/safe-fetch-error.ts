export type SafeFetchErrorCode =
  | 'scheme_not_allowed'
  | 'invalid_url'
  | 'address_blocked'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'timeout'
  | 'connection_failed'
  | 'tls_failed';

/** Why an outbound request to a user-supplied URL was not made or did not complete. */
export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  readonly code: SafeFetchErrorCode;
  constructor(code: SafeFetchErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
