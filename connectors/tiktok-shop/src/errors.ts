import { ConnectorError } from '@print-api/connector-kit';

/** TikTok's answer envelope: `code` 0 is success, whatever the HTTP status. */
export interface Envelope<T = unknown> {
  code: number;
  message: string;
  request_id?: string;
  data?: T;
}

/**
 * Access-token errors (the 105xxx family): the token is invalid, expired or revoked. The call
 * is sent again once with a renewed token. 105001 invalid, 105002 expired, 105003 revoked (3P
 * lists; any 105xxx whose message names the token counts too).
 */
const TOKEN_CODES = new Set([105001, 105002, 105003]);
/** TikTok's own failures: retried with backoff. */
const INTERNAL_CODES = new Set([1, 36009001, 36009003, 105000]);

export type ErrorClass = 'token' | 'throttle' | 'internal' | 'refused';

/**
 * How a non-zero `code` is handled: a token error renews the token, throttling waits, TikTok's own failures retry, the
 * rest fail clearly.
 */
export function classify(code: number, message: string, httpStatus: number): ErrorClass {
  if (TOKEN_CODES.has(code) || (Math.floor(code / 1000) === 105 && /token/i.test(message))) return 'token';
  // Throttling (HTTP 429, or a 200 whose message says so: TikTok publishes no code list for it).
  if (httpStatus === 429 || /too many requests|rate limit|too frequent|frequency|throttl/i.test(message))
    return 'throttle';
  if (httpStatus >= 500 || INTERNAL_CODES.has(code) || /internal (server )?error|system busy|timeout/i.test(message))
    return 'internal';
  return 'refused';
}

/** How long to wait on throttling when TikTok does not say (it sends no Retry-After in the body). */
export const THROTTLE_WAIT_MS = 2000;

/**
 * The typed failure of a call whose answer carried a non-zero `code` (token errors are handled by the caller first).
 */
export function envelopeError(
  what: string,
  env: Envelope,
  httpStatus: number,
  retryAfter: string | undefined,
): ConnectorError {
  const detail = `${what}: TikTok Shop answered code ${env.code}: ${env.message || '(no message)'}${env.request_id ? ` (request ${env.request_id})` : ''}`;
  switch (classify(env.code, env.message ?? '', httpStatus)) {
    case 'token':
      return new ConnectorError('auth', `${detail}; the seller must authorise the app again`, { status: httpStatus });
    case 'throttle': {
      const seconds = Number(retryAfter);
      return new ConnectorError('rate_limited', detail, {
        status: httpStatus,
        retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : THROTTLE_WAIT_MS,
      });
    }
    case 'internal':
      return new ConnectorError('upstream_unavailable', detail, { status: httpStatus });
    case 'refused':
      return new ConnectorError('invalid_payload', detail, { status: httpStatus });
  }
}
