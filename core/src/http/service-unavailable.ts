import { ApiError } from './api-error.ts';
import type { DocumentedError } from '../web/route.ts';

/**
 * A dependency outage is not the client's mistake nor a bug of ours: the request answers 503
 * `service_unavailable` with `Retry-After`, never a 500. This file is the one place that
 * recognises an outage in an error thrown on the request path; each dependency adds its test
 * to OUTAGES. Most outages never get here: what can degrade does (rate limits count per process,
 * jobs left to their sweepers); this is for what cannot proceed without the dependency.
 */

/** How long a client is asked to wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** The 503 in the OpenAPI description of every route. */
export const SERVICE_UNAVAILABLE_ERROR: DocumentedError = {
  status: 503,
  code: 'service_unavailable',
  description: 'A service this request needs is briefly unreachable; retry after Retry-After seconds.',
};

/** The 503 for a request that needs `dependency` (a word for clients: no host names, no internals). */
export function serviceUnavailable(dependency: string): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    `The service is briefly unable to complete this request (${dependency} unreachable). Retry after ${RETRY_AFTER_SECONDS} seconds.`,
    undefined,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/**
 * ioredis's and BullMQ's errors for a Redis that is away: not connected (no offline queue, the
 * connection closed, retries spent) or not answering (a command or socket timeout). Redis's own
 * replies (ReplyError: a wrong command, a script error) are not outages.
 */
function redisOutage(err: Error): boolean {
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'ConnectionClosedError') return true;
  return (
    err.message === 'Command timed out' ||
    err.message === 'Connection is closed.' ||
    err.message === "Stream isn't writeable and enableOfflineQueue options is false" ||
    err.message === 'Redis connection is not ready' ||
    err.message.startsWith('Socket timeout. Expecting data')
  );
}

/**
 * SQLSTATEs of a lost or refused connection (08000, 08001, 08003, 08004, 08006; not 08P01, a
 * protocol violation), and of a server shutting down, crashed or starting (57P01, 57P02, 57P03).
 */
const PG_UNAVAILABLE_STATES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03']);
/** Sockets that could not be opened or broke (pg reports these with the socket's code). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** What pg and pg-pool say when a connection ended, could not be had in time, or died earlier. */
const PG_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)/;

/** PostgreSQL stopped, restarting or out of reach, a connection cut: not that the request or the service is wrong. */
export function databaseOutage(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (PG_UNAVAILABLE_STATES.has(code) || SOCKET_CODES.has(code))) return true;
  return PG_MESSAGE.test(err.message);
}

/** Each dependency's outage test, with the name the 503 gives it. */
const OUTAGES: Array<{ dependency: string; test: (err: Error) => boolean }> = [
  { dependency: 'database', test: databaseOutage },
  { dependency: 'job queue', test: redisOutage },
];

/** The 503 for an error that says a dependency is away, or undefined for any other error. */
export function asServiceUnavailable(err: unknown): ApiError | undefined {
  if (!(err instanceof Error)) return undefined;
  const outage = OUTAGES.find((o) => o.test(err));
  return outage ? serviceUnavailable(outage.dependency) : undefined;
}
