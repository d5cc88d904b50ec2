import { createServer } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testCertificates } from './tls.ts';

/**
 * Handles one request. The raw request body has already been read (webhook receivers
 * verify signatures over exactly these bytes); `req` can no longer be streamed.
 */
export type TestHandler = (req: IncomingMessage, res: ServerResponse, rawBody: Buffer) => void | Promise<void>;

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string: what routes match on. */
  path: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TestHttpsServer {
  /** `https://localhost:PORT` (the certificate also covers 127.0.0.1 and ::1). */
  url: string;
  port: number;
  /** PEM of the CA that signed the certificate: pass it as a client's `ca`. */
  ca: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** How many requests hit `path`. */
  hits(path: string): number;
  /** TCP connections accepted so far (proves a client gave up before connecting). */
  connections(): number;
  /** Serves `path` (exact match, query ignored) with `handler`; replaces an earlier route. */
  route(path: string, handler: TestHandler): void;
  /** Stops listening and drops open connections (hanging handlers included). */
  close(): Promise<void>;
}

/**
 * A real HTTPS server on 127.0.0.1 with a certificate generated for this test run.
 * Requests go to the matching route, else to `fallback`, else 404.
 *
 * @example
 * ```ts
 * const server = await startHttpsServer();
 * server.route('/hooks', (req, res, body) => { received.push(JSON.parse(body.toString())); res.end(); });
 * const fetcher = createSafeFetch({ allowedHosts: ['localhost'], ca: [server.ca], userAgent: 'test' });
 * ```
 */
export async function startHttpsServer(fallback?: TestHandler): Promise<TestHttpsServer> {
  const { ca, cert, key } = await testCertificates();
  const routes = new Map<string, TestHandler>();
  const requests: RecordedRequest[] = [];

  const server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const path = url.split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, url, headers: req.headers, body });
      const handler = routes.get(path) ?? fallback ?? notFound;
      Promise.resolve()
        .then(() => handler(req, res, body))
        .catch((err: Error) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`handler failed: ${err.message}`);
        });
    });
  });
  let connections = 0;
  server.on('connection', () => void connections++);
  // A client that gives up mid-body (SafeFetch's byte limit) is expected, not a failure.
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `https://localhost:${port}`,
    port,
    ca,
    requests,
    hits: (path) => requests.filter((r) => r.path === path).length,
    connections: () => connections,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const notFound: TestHandler = (_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');

/** Answers with fixed bytes. */
export function sendBytes(body: Buffer | string, contentType = 'application/octet-stream', status = 200): TestHandler {
  return (_req, res) =>
    void res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
}

/** Answers with a redirect to `location` (absolute, or relative to the request). */
export function redirectTo(location: string, status = 302): TestHandler {
  return (_req, res) => void res.writeHead(status, { location }).end();
}

/** Never answers: for timeouts. `close()` drops the connection. */
export function neverAnswer(): TestHandler {
  return () => undefined;
}

/** Sends the status line and headers at once, then the body only after `delayMs`. */
export function answerSlowly(body: Buffer | string, delayMs: number): TestHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.from(body).subarray(0, 1));
    const timer = setTimeout(() => res.end(Buffer.from(body).subarray(1)), delayMs);
    res.on('close', () => clearTimeout(timer));
  };
}
