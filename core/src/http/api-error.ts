/** One problem in a 422 (or 400) answer: which line and field, and what is wrong. */
export interface ErrorDetail {
  line?: number;
  field?: string;
  code: string;
  message?: string;
  allowedKeys?: string[];
  allowedValues?: Array<string | number>;
  nearestQuantity?: number;
  conflicts?: Array<{ option: string; value: string | number; compatibleValues: Array<string | number> }>;
  [extra: string]: unknown;
}

/**
 * An error a client can act on. Thrown anywhere in the request path; the error middleware
 * renders it as `{error: {code, message, details?}}` with `status`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, details?: ErrorDetail[], headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  toBody(): { error: { code: string; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]): ApiError =>
  new ApiError(400, 'invalid_request', message, details);

export const notFound = (what: string, id: string): ApiError =>
  new ApiError(404, 'not_found', `No ${what} with id '${id}'.`);

export const conflict = (code: string, message: string, details?: ErrorDetail[]): ApiError =>
  new ApiError(409, code, message, details);

export const unprocessable = (code: string, message: string, details?: ErrorDetail[]): ApiError =>
  new ApiError(422, code, message, details);

/**
 * Whether an error refuses a request by one of our rules (the caller's to change: the 4xx
 * family) rather than failing on our side. Work outside a request, such as a job placing a
 * store's order, records a refusal as its outcome and retries a failure; it asks this, never
 * the status itself.
 */
export function isRefusal(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status < 500;
}
