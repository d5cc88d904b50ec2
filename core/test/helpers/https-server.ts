import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';

export type Handler = (req: IncomingMessage & { rawBody: Buffer }, res: ServerResponse) => void | Promise<void>;

export interface TestHttpsServer {
  /** https://localhost:PORT */
  url: string;
  port: number;
  /** The certificate to trust (self-signed, for localhost and 127.0.0.1). */
  ca: string;
  /** Every request seen, in order (path and raw body). */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: Buffer; at: number }>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

let certificate: Promise<{ cert: string; key: string }> | undefined;

/** One self-signed certificate per test run, valid for localhost, 127.0.0.1 and ::1. */
export function testCertificate(): Promise<{ cert: string; key: string }> {
  certificate ??= selfsigned
    .generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 30 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
      ],
    })
    .then((p: { cert: string; private: string }) => ({ cert: p.cert, key: p.private }));
  return certificate;
}

/**
 * A real HTTPS server on 127.0.0.1 (print files, webhook receivers). Routes by exact path;
 * unknown paths answer 404.
 */
export async function startHttpsServer(fallback?: Handler): Promise<TestHttpsServer> {
  const { cert, key } = await testCertificate();
  const routes = new Map<string, Handler>();
  const requests: TestHttpsServer['requests'] = [];
  const server = https.createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body, at: Date.now() });
      const handler = routes.get(path) ?? fallback;
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      Promise.resolve(handler(Object.assign(req, { rawBody: body }), res)).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}`,
    port,
    ca: cert,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Serves fixed bytes with a content type. */
export const serve = (body: Buffer | string, contentType: string, status = 200): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': contentType }).end(body);
};

/** Real, minimal files of each kind a print-file check meets. */
export const FILES = {
  pdf: Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 420 595]>>endobj\nxref\n0 4\n0000000000 65535 f \n0000000009 00000 n \n0000000052 00000 n \n0000000101 00000 n \ntrailer<</Size 4/Root 1 0 R>>\nstartxref\n171\n%%EOF\n',
  ),
  png: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'),
  jpg: Buffer.from(
    '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
    'base64',
  ),
  html: Buffer.from('<!doctype html><html><head><title>Not found</title></head><body><h1>Sorry</h1></body></html>'),
  ico: Buffer.from('AAABAAEAAQEAAAEAIAAwAAAAFgAAACgAAAABAAAAAgAAAAEAIAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAAAAAAP8A/wAAAA==', 'base64'),
  svg: Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="#c00"/></svg>\n'),
  eps: Buffer.from('%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\n%%EndComments\nnewpath 0 0 moveto 100 100 lineto stroke\nshowpage\n%%EOF\n'),
  zip: Buffer.from('UEsDBBQAAAAIAAAAIQAAAAAAAAAAAAAAAAkAAABoZWxsby50eHQDAFBLAQIUABQAAAAIAAAAIQAAAAAAAAAAAAAAAAkAAAAAAAAAAAAAAAAAAAAAAGhlbGxvLnR4dFBLBQYAAAAAAQABADcAAAAnAAAAAAA=', 'base64'),
};
