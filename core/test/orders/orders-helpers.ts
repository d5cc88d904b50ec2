import { randomUUID } from 'node:crypto';
import { startHttpsServer, sendBytes, type TestHttpsServer } from '../helpers/https-server.ts';
import { tinyEps, tinyHtml, tinyPdf, tinyPng, tinySvg } from '../print-files/print-file-fixtures.ts';
import type { TestService } from '../helpers/test-service.ts';

/** A catalogue product and quantity every order test can rely on (default options). */
export const PRODUCT = { productId: 'business-cards', quantity: 250 };

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

export const RECIPIENT = {
  name: 'Jan de Vries',
  email: 'jan@example.nl',
  phone: '+31 6 1234 5678',
  address1: 'Keizersgracht 1',
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
};

export function orderBody(files: TestHttpsServer, overrides: Record<string, unknown> = {}) {
  return {
    externalOrderId: `shop-${randomUUID().slice(0, 8)}`,
    lines: [{ ...PRODUCT, fileUrl: `${files.url}/art/flyer.pdf` }],
    recipient: RECIPIENT,
    ...overrides,
  };
}

export async function placeOrder(t: TestService, key: string, body: unknown, idempotencyKey: string = randomUUID()) {
  return t.api(key, 'POST', '/orders', body, { 'idempotency-key': idempotencyKey });
}
