import { randomUUID } from 'node:crypto';
import type { TestHttpsServer } from '../helpers/https-server.ts';
import type { TestService } from '../helpers/test-service.ts';

/** A real HTTPS server with print files of every kind (in core/testing, which connector suites use too). */
export { startFileServer } from '../../testing/file-server.ts';

/** A catalogue product and quantity every order test can rely on (default options). */
export const PRODUCT = { productId: 'business-cards', quantity: 250 };

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
