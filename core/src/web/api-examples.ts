/**
 * Realistic examples of the API's bodies for the OpenAPI description, taken from a real run of
 * the service (a real catalogue product, a Dutch address, Dutch VAT) and declared beside the
 * routes that use them. `core/test/http/openapi-examples.test.ts` checks every example against
 * its route's schema, so they cannot drift from what the API answers.
 */

/** A valid Dutch address. */
export const EXAMPLE_RECIPIENT = {
  name: 'Sanne de Vries',
  email: 'sanne@example.nl',
  phone: '+31 6 12345678',
  address1: 'Keizersgracht 123',
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
};

/** A print file on the reseller's own public https host. */
export const EXAMPLE_FILE_URL = 'https://files.acme-prints.example/orders/1001/business-cards.pdf';

/** POST /quotes: 250 double-sided business cards on 350 g matt board, to the Netherlands. */
export const EXAMPLE_QUOTE_REQUEST = {
  country: 'NL',
  lines: [{ productId: 'business-cards', quantity: 250, options: { paper: 'mc350', sides: '4/4' } }],
};

/** POST /orders: the quoted line with its file, for a customer in Amsterdam. */
export const EXAMPLE_ORDER_REQUEST = {
  externalOrderId: '1001',
  lines: [{ ...EXAMPLE_QUOTE_REQUEST.lines[0]!, fileUrl: EXAMPLE_FILE_URL }],
  recipient: EXAMPLE_RECIPIENT,
};

/** 250 business cards to the Netherlands: 10 % reseller discount, 21 % Dutch VAT, domestic shipping. */
export const EXAMPLE_QUOTE = {
  country: 'NL',
  currency: 'EUR',
  lines: [
    {
      line: 0,
      productId: 'business-cards',
      quantity: 250,
      options: {
        paper: 'mc350',
        sides: '4/4',
        finish: 'none',
        corners: 'square',
      },
      derivedOptions: {
        printProcess: 'digital',
        sheetFormat: 'SRA3',
        bundling: 'per 100',
        packaging: 'box',
      },
      unitPublicPrice: '9.18',
      unitNetPrice: '8.262',
      publicNetCents: 2295,
      discountCents: 229,
      netCents: 2066,
      vatRate: '21',
      vatCents: 434,
      totalCents: 2500,
      weightGrams: 400,
    },
  ],
  shipping: {
    netCents: 495,
    vatCents: 104,
    totalCents: 599,
    weightGrams: 400,
    zone: 'domestic',
  },
  totals: {
    publicNetCents: 2295,
    discountCents: 229,
    netCents: 2066,
    shippingCents: 495,
    vatCents: 538,
    totalCents: 3099,
  },
};

/** The order placed from EXAMPLE_ORDER_REQUEST with a live key, paid from the wallet. */
export const EXAMPLE_ORDER = {
  id: 'ord_01M89QQS8PF0R454XXXZVC09H9',
  state: 'SUBMITTED',
  status: 'PAID',
  source: 'API',
  externalOrderId: '1001',
  testMode: false,
  storeId: null,
  recipient: EXAMPLE_RECIPIENT,
  carrierContact: {
    emailSource: 'recipient',
    phoneSource: 'recipient',
  },
  lines: [
    {
      line: 0,
      productId: 'business-cards',
      resellerSku: null,
      quantity: 250,
      options: {
        paper: 'mc350',
        sides: '4/4',
        finish: 'none',
        corners: 'square',
      },
      derivedOptions: {
        bundling: 'per 100',
        packaging: 'box',
        sheetFormat: 'SRA3',
        printProcess: 'digital',
      },
      unitPrice: '8.262',
      unitPriceCents: 8,
      publicNetCents: 2295,
      discountCents: 229,
      netCents: 2066,
      vatRate: '21',
      vatCents: 434,
      totalCents: 2500,
      fileUrl: 'https://files.acme-prints.example/orders/1001/business-cards.pdf',
      fileStatus: 'ok',
    },
  ],
  shipping: {
    zone: 'domestic',
    netCents: 495,
    vatCents: 104,
    totalCents: 599,
    weightGrams: 400,
  },
  totals: {
    currency: 'EUR',
    publicNetCents: 2295,
    discountCents: 229,
    netCents: 2066,
    shippingCents: 495,
    vatCents: 538,
    totalCents: 3099,
  },
  payment: {
    method: 'wallet',
    status: 'paid',
    error: null,
    paidAt: '2026-11-25T10:15:36.406Z',
  },
  tracking: null,
  createdAt: '2026-11-25T10:15:36.406Z',
  updatedAt: '2026-11-25T10:15:36.406Z',
  cancelledAt: null,
};

/** The same order once PostNL delivered it. */
export const EXAMPLE_ORDER_DELIVERED = {
  ...EXAMPLE_ORDER,
  status: 'DELIVERED',
  tracking: {
    carrier: 'PostNL',
    trackingUrl: 'https://jouw.postnl.nl/track-and-trace/3S62BF57882B6C-NL-1015CJ',
    trackingNumber: '3S62BF57882B6C',
  },
  updatedAt: '2026-11-27T14:02:11.517Z',
};

/** An order placed without a file (a test key): it waits for one. */
export const EXAMPLE_ORDER_AWAITING_FILE = {
  id: 'ord_01M89QQTHGE6X1Q6NT11T8BC1P',
  state: 'AWAITING_FILE',
  status: 'PENDING',
  source: 'API',
  externalOrderId: '1002',
  testMode: true,
  storeId: null,
  recipient: {
    city: 'Amsterdam',
    name: 'Sanne de Vries',
    country: 'NL',
    address1: 'Keizersgracht 123',
    postalCode: '1015 CJ',
  },
  carrierContact: {
    emailSource: 'reseller',
    phoneSource: 'reseller',
  },
  lines: [{ ...EXAMPLE_ORDER.lines[0]!, fileUrl: null, fileStatus: 'missing' }],
  shipping: EXAMPLE_ORDER.shipping,
  totals: EXAMPLE_ORDER.totals,
  payment: {
    method: null,
    status: 'none',
    error: null,
    paidAt: null,
  },
  tracking: null,
  createdAt: '2026-11-25T10:15:37.712Z',
  updatedAt: '2026-11-25T10:15:37.712Z',
  cancelledAt: null,
};

/** GET /me for a live key with every scope. */
export const EXAMPLE_ME = {
  resellerId: 'rsl_01M89QQRWZ588G0KAKGPKCGYWB',
  resellerName: 'Acme Prints',
  keyId: 'key_01M89QQRZNE2GH77KHGZVDQ4SC',
  mode: 'live',
  scopes: null,
};

/** A wallet after a top-up and one order payment (limit=2). */
export const EXAMPLE_WALLET = {
  balanceCents: 46901,
  currency: 'EUR',
  entries: {
    data: [
      {
        id: 'wle_01M89QQTQ0K7Y5T3ZD2M4M8W1A',
        kind: 'order_payment',
        amountCents: -3099,
        balanceAfterCents: 46901,
        orderId: 'ord_01M89QQS8PF0R454XXXZVC09H9',
        reference: null,
        createdAt: '2026-11-25T10:15:36.406Z',
      },
      {
        id: 'wle_01M89QQTPW33HF2A4F3DXNJR3R',
        kind: 'top_up',
        amountCents: 50000,
        balanceAfterCents: 50000,
        orderId: null,
        reference: 'bank transfer 2026-11-25',
        createdAt: '2026-11-25T10:15:37.884Z',
      },
    ],
    nextCursor: null,
    limit: 2,
    maxLimit: 100,
    limitCapped: false,
    requestedLimit: 2,
  },
};

/** A reseller product: the reseller's SKU for 250 business cards with its default file. */
export const EXAMPLE_RESELLER_PRODUCT = {
  id: 'rp_01M89QQTZZ1YGD3FM43WMN96Q2',
  sku: 'BC-CLASSIC-250',
  title: 'Business cards, classic',
  productId: 'business-cards',
  options: {
    paper: 'mc350',
    sides: '4/4',
    finish: 'none',
    corners: 'square',
  },
  fileUrl: 'https://files.acme-prints.example/orders/1001/business-cards.pdf',
  active: true,
  links: 0,
  createdAt: '2026-11-25T10:15:38.175Z',
  updatedAt: '2026-11-25T10:15:38.175Z',
};

/** A webhook endpoint receiving every event. */
export const EXAMPLE_WEBHOOK = {
  id: 'whe_01M89QQS7S8BTVEGQNW40W9DB9',
  url: 'https://hooks.acme-prints.example/print-api',
  events: ['*'],
  testMode: false,
  enabled: true,
  disabledAt: null,
  disabledReason: null,
  failingSince: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-25T10:15:36.377Z',
};

/** The endpoint as POST /webhooks answers it: the signing secret, shown this once. */
export const EXAMPLE_WEBHOOK_WITH_SECRET = {
  ...EXAMPLE_WEBHOOK,
  secret: 'whsec_YaxKdkK1FXwz72BebYUYdbDKDbtDZN-Cj6aIgWokctA',
};

/** The endpoint after POST /webhooks/{id}/rotate-secret: the new secret, the previous one valid for 24 hours. */
export const EXAMPLE_WEBHOOK_ROTATED = {
  ...EXAMPLE_WEBHOOK,
  previousSecretExpiresAt: '2026-11-26T16:13:38.587Z',
  secret: 'whsec_Fx2R8qd3YQgbqi3Ex1m8_ppEdYM_xpwkanoQjg1OBTE',
};

/** One delivery of an event to an endpoint, delivered on the first attempt. */
export const EXAMPLE_DELIVERY = {
  id: 'whd_01M89QQV7J224B1D14B91D2C4B',
  eventId: 'evt_01M89QQV7B0G7ZJ8DKE1W09F97',
  eventType: 'order.shipped',
  status: 'delivered',
  attemptCount: 1,
  nextAttemptAt: null,
  lastAttemptAt: '2026-11-25T10:15:38.431Z',
  lastStatusCode: 200,
  lastLatencyMs: 6,
  lastError: null,
  deliveredAt: '2026-11-25T10:15:38.460Z',
  createdAt: '2026-11-25T10:15:38.418Z',
  attempts: [
    {
      attempt: 1,
      trigger: 'scheduled',
      startedAt: '2026-11-25T10:15:38.453Z',
      statusCode: 200,
      latencyMs: 6,
      error: null,
      succeeded: true,
    },
  ],
};

/** The outcome of POST /webhooks/{id}/test. */
export const EXAMPLE_PING_DELIVERY = {
  id: 'whd_01M89QQV93EKVCCBQ4YREM77CF',
  eventId: 'evt_01M89QQV93EKVCCBQ4YREM77CG',
  eventType: 'ping',
  status: 'delivered',
  attemptCount: 1,
  nextAttemptAt: null,
  lastAttemptAt: '2026-11-25T10:15:38.474Z',
  lastStatusCode: 200,
  lastLatencyMs: 6,
  lastError: null,
  deliveredAt: '2026-11-25T10:15:38.487Z',
  createdAt: '2026-11-25T10:15:38.467Z',
  attempts: [
    {
      attempt: 1,
      trigger: 'manual',
      startedAt: '2026-11-25T10:15:38.481Z',
      statusCode: 200,
      latencyMs: 6,
      error: null,
      succeeded: true,
    },
  ],
};

/** A list page of `items`, as every list endpoint answers it. */
export function examplePage<T>(items: T[], nextCursor: string | null = null, limit = 25) {
  return { data: items, nextCursor, limit, maxLimit: 100, limitCapped: false, requestedLimit: limit };
}

/** An event as delivered to a webhook endpoint (the same body every attempt). */
export function exampleEvent(type: string, id: string, createdAt: string, data: Record<string, unknown>) {
  return { id, type, createdAt, testMode: false, data };
}
