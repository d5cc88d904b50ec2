/** Error codes the API answers with (`error.code`); others may be added, so `code` is any string. */
export type KnownErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'insufficient_scope'
  | 'account_not_active'
  | 'not_found'
  | 'conflict'
  | 'sku_exists'
  | 'order_not_cancellable'
  | 'idempotency_key_reused'
  | 'invalid_options'
  | 'invalid_file_url'
  | 'rate_limited'
  | 'payload_too_large'
  | 'internal_error'
  | 'service_unavailable';

/** One problem of a 400 or 422 (`error.details[]`). */
export interface ErrorDetail {
  line?: number;
  field?: string;
  code: string;
  message?: string;
  allowedKeys?: string[];
  allowedValues?: Array<string | number>;
  [key: string]: unknown;
}

/**
 * An answer of the API that is not a success, with the API's `code`, `message` and `details`.
 * Catch the subclass you can act on (`RateLimitError`, `NotFoundError`, …) or branch on `code`.
 *
 * @example
 * ```ts
 * try {
 *   await client.orders.create(order);
 * } catch (err) {
 *   if (err instanceof PrintApiError && err.code === 'invalid_file_url') console.log(err.details);
 *   else throw err;
 * }
 * ```
 */
export class PrintApiError extends Error {
  /** The HTTP status (0 for a request that got no answer). */
  readonly status: number;
  readonly code: KnownErrorCode | (string & {});
  readonly details: ErrorDetail[];
  /** The X-Request-Id of the answer: quote it when you ask for help. */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetail[] | undefined;
    requestId?: string | undefined;
    headers?: Headers | undefined;
  }) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** 400: the request is malformed (`details` names each problem); also a missing Idempotency-Key. */
export class InvalidRequestError extends PrintApiError {}
/** 401: missing, invalid or revoked API key. */
export class AuthenticationError extends PrintApiError {}
/** 403: the key lacks the scope, or the account is not approved or is suspended. */
export class PermissionError extends PrintApiError {}
/** 404: unknown product, reseller product, order, webhook or store (or another account's). */
export class NotFoundError extends PrintApiError {}
/** 409: a conflict with the current state (SKU exists, order not cancellable, …). */
export class ConflictError extends PrintApiError {}
/** 422: well-formed but cannot be fulfilled (`invalid_options`, `invalid_file_url`, …); see `details`. */
export class UnprocessableError extends PrintApiError {}
/** 429: a rate limit; retried automatically first. `retryAfterSeconds` is the server's Retry-After. */
export class RateLimitError extends PrintApiError {
  get retryAfterSeconds(): number | undefined {
    const ms = retryAfterMs(this.headers?.get('retry-after') ?? null);
    return ms === undefined ? undefined : Math.ceil(ms / 1000);
  }
}
/** 5xx: an error on the service's side (retried automatically first where that is safe). */
export class ServerError extends PrintApiError {}
/** No answer: the service could not be reached, or the request timed out. */
export class ConnectionError extends PrintApiError {}

const BY_STATUS: Record<number, typeof PrintApiError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableError,
  429: RateLimitError,
};

/** The typed error of a non-2xx answer and its parsed body. */
export function errorFromResponse(response: Response, body: unknown): PrintApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const Type = BY_STATUS[response.status] ?? (response.status >= 500 ? ServerError : PrintApiError);
  return new Type({
    status: response.status,
    code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
    message:
      typeof error?.message === 'string'
        ? error.message
        : `The API answered ${response.status} ${response.statusText}.`,
    details: Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : undefined,
    requestId: response.headers.get('x-request-id') ?? undefined,
    headers: response.headers,
  });
}

/** Retry-After in milliseconds: delta seconds or an HTTP date. */
export function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
