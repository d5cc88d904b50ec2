import { ApiError } from './api-error.ts';

/** What a client is told to wait before trying again: about as long as a database restart takes. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A dependency is briefly unreachable: 503 `service_unavailable` with Retry-After (the client's request was fine). */
export function serviceUnavailable(): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    `The service is briefly unavailable (a dependency does not answer). Retry after ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
    undefined,
    { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * SQLSTATEs of a lost or refused connection (08000, 08001, 08003, 08004, 08006; not 08P01, a
 * protocol violation), and of a server shutting down, crashed or starting (57P01, 57P02, 57P03).
 */
const PG_UNAVAILABLE_STATES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03']);
/** Sockets that could not be opened or broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** What pg and pg-pool say when a connection ended, could not be had in time, or died earlier. */
const PG_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)/;

/**
 * True when `err` says a dependency could not be reached (PostgreSQL stopped or restarting, a
 * connection cut), not that the request or the service is wrong: the error handler answers 503.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (PG_UNAVAILABLE_STATES.has(code) || SOCKET_CODES.has(code))) return true;
  return PG_MESSAGE.test(err.message);
}
