import { startHttpsServer, sendBytes, type TestHttpsServer } from './https-server.ts';
import { tinyEps, tinyHtml, tinyPdf, tinyPng, tinySvg } from './print-file-fixtures.ts';

/** A real HTTPS server with print files of every kind. */
export async function startFileServer(): Promise<TestHttpsServer> {
  const server = await startHttpsServer();
  server.route('/art/flyer.pdf', sendBytes(tinyPdf(), 'application/pdf'));
  server.route('/art/poster.png', sendBytes(tinyPng(), 'image/png'));
  server.route('/art/fake.pdf', sendBytes(tinyHtml(), 'text/html'));
  server.route('/art/logo.svg', sendBytes(tinySvg(), 'image/svg+xml'));
  server.route('/art/logo.eps', sendBytes(tinyEps(), 'application/postscript'));
  return server;
}
