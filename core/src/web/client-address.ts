import type { Request } from 'express';

/**
 * The client address failures are counted by: the socket's, or the first one the trusted
 * proxies name (Express's `trust proxy`, set from TRUST_PROXY). Never a header of its own: a
 * client would pick a fresh address per guess.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
