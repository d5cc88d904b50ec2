import { Refusal, type ErrorDetail } from '../kernel/refusal.ts';

export type { ErrorDetail };

/**
 * A refusal decided at the edge (authentication, body parsing, a platform's failure as a
 * request answers it), where the status is HTTP's own business: it carries its status and
 * headers. Domain code throws a plain `Refusal`, whose status the error catalogue decides; the
 * error middleware renders both as `{error: {code, message, details?}}`.
 */
export class ApiError extends Refusal {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    details?: ErrorDetail[],
    headers: Record<string, string> = {},
  ) {
    super(code, message, details);
    this.name = 'ApiError';
    this.status = status;
    this.headers = headers;
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]): ApiError =>
  new ApiError(400, 'invalid_request', message, details);
