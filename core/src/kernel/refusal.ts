/** One problem of a refusal: which line and field, and what is wrong. */
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
 * The domain's one outcome for "no, by one of our rules": a stable `code` (listed in the error
 * catalogue), a message for a person, the problems in `details`, and `retryAfter` (seconds)
 * where the answer is "not now". Domain code never picks an HTTP status: the error catalogue
 * maps the code to one at the edge, and work outside a request (jobs, the dashboard, the
 * console) asks `err instanceof Refusal`, then its `code`.
 */
export class Refusal extends Error {
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds after which asking again may succeed (a rate limit). */
  readonly retryAfter: number | undefined;

  constructor(code: string, message: string, details?: ErrorDetail[], options: { retryAfter?: number } = {}) {
    super(message);
    this.name = 'Refusal';
    this.code = code;
    this.details = details;
    this.retryAfter = options.retryAfter;
  }

  toBody(): { error: { code: string; message: string; details?: ErrorDetail[] } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** The request itself is malformed (a missing header, a field that does not parse). */
export const invalidRequest = (message: string, details?: ErrorDetail[]): Refusal =>
  new Refusal('invalid_request', message, details);

/** No such thing for this caller (or it belongs to another account or mode). */
export const notFound = (what: string, id: string): Refusal => new Refusal('not_found', `No ${what} with id '${id}'.`);

/** The thing is not in a state that allows this now (an order in production, a sync under way). */
export const wrongState = (code: string, message: string, details?: ErrorDetail[]): Refusal =>
  new Refusal(code, message, details);

/** What was asked breaks one of our rules (an unknown option, an unusable URL, a refused card). */
export const rejected = (code: string, message: string, details?: ErrorDetail[]): Refusal =>
  new Refusal(code, message, details);
