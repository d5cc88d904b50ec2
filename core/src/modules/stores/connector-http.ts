import type { HttpClient } from '@print-api/connector-kit';
import { ConnectorError } from '@print-api/connector-kit';

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The HTTP client connectors get: fetch with a timeout, plain-object headers, and network
 * failures turned into `upstream_unavailable` (status answers are the connector's to judge).
 */
export function createConnectorHttp(userAgent = 'print-api-connectors/1.0'): HttpClient {
  return {
    async request(req) {
      try {
        const res = await fetch(req.url, {
          method: req.method,
          headers: { 'user-agent': userAgent, ...req.headers },
          ...(req.body !== undefined ? { body: req.body } : {}),
          redirect: 'manual',
          signal: AbortSignal.timeout(req.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        });
        const headers: Record<string, string> = {};
        res.headers.forEach((value, key) => (headers[key] = value));
        return { status: res.status, headers, body: await res.text() };
      } catch (err) {
        throw new ConnectorError('upstream_unavailable', `${req.method} ${new URL(req.url).host}: ${(err as Error).message}`, { cause: err });
      }
    },
  };
}
