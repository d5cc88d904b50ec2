import { z } from 'zod';
import { invalidRequest } from '../../http/api-error.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../http/pagination.ts';
import { defineRoute, type AnyRoute } from '../../http/route.ts';
import { orderSchemas, placeOrderBody } from './orders-schemas.ts';
import type { OrdersService } from './orders-service.ts';

const tags = ['Orders'];
const orderNotFound = { status: 404, code: 'not_found', description: 'Unknown order (or another account’s).' };
const idParams = z.object({ id: z.string().min(1).max(64) });
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** POST/GET /orders, GET /orders/{id}, POST /orders/{id}/cancel, PUT /orders/{id}/lines/{line}/file. */
export function ordersRoutes(deps: {
  orders: OrdersService;
  /** The loaded connectors' platforms: order sources besides the spec's. */
  sources: readonly string[];
}): AnyRoute[] {
  const { orders } = deps;
  const { orderView: orderViewSchema, orderResult: orderResultSchema, listQuery: listOrdersQuery } = orderSchemas(deps.sources);
  return [
    defineRoute({
      method: 'post',
      path: '/orders',
      operationId: 'placeOrder',
      summary: 'Place an order',
      description: [
        'Prices the lines like POST /quotes, reads the first bytes of every fileUrl to check the real file type, and pays in the same step:',
        'wallet first, then the saved card, else the order waits in AWAITING_FUNDS (released automatically, oldest first, after a top-up).',
        'A declined card gives PAYMENT_FAILED. A line without a file, or with an EPS/AI/PS/SVG file that needs conversion, gives AWAITING_FILE.',
        'A prk_test_ key creates the order without charging it or sending it to production (the sandbox still moves it through every status).',
        'Required: lines (1-100, each with quantity and productId or resellerSku) and recipient (name, address1, postalCode, city, country). externalOrderId, recipient.email/phone and fileUrl are optional.',
        'The Idempotency-Key header is required: a repeat with the same key returns the first order with 200 and duplicate: true, never a second order or charge; the same key with another body gives 422 idempotency_key_reused. Keys are kept 30 days, per account and mode.',
      ].join(' '),
      tags,
      auth: 'apiKey',
      scope: 'orders:write',
      body: placeOrderBody,
      headers: [{ name: 'Idempotency-Key', required: true, description: 'Unique per order you mean to place (1-255 printable characters), e.g. a UUID.' }],
      responses: {
        201: { description: 'The new order', schema: z.object({ data: orderResultSchema }) },
        200: { description: 'A repeat of an earlier request with the same Idempotency-Key', schema: z.object({ data: orderResultSchema }) },
      },
      errors: [
        { status: 422, code: 'invalid_options', description: 'Unknown or automatic option keys (details list allowedKeys); also invalid_option_value, option_conflict, copies_mismatch, run_unavailable, quantity_out_of_range, unpriceable_configuration, unknown_product, unknown_sku, inactive_reseller_product, unsupported_country.' },
        { status: 422, code: 'invalid_file_url', description: 'A fileUrl is not a reachable public https PDF, PNG or JPG (details name the line and the reason).' },
        { status: 422, code: 'idempotency_key_reused', description: 'The Idempotency-Key was used for a different request.' },
      ],
      handle: async ({ auth, body, headers }) => {
        const key = headers['idempotency-key'];
        if (typeof key !== 'string' || key.length === 0) {
          throw invalidRequest('The Idempotency-Key header is required when placing an order.', [{ field: 'Idempotency-Key', code: 'missing_header' }]);
        }
        if (!IDEMPOTENCY_KEY.test(key)) {
          throw invalidRequest('The Idempotency-Key must be 1-255 printable ASCII characters without spaces.', [{ field: 'Idempotency-Key', code: 'invalid_header' }]);
        }
        const result = await orders.place(auth, body, { idempotencyKey: key, source: 'API' });
        return { status: result.duplicate ? 200 : 201, body: { data: { ...result.order, duplicate: result.duplicate } } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/orders',
      operationId: 'listOrders',
      summary: 'List orders, newest first',
      tags,
      auth: 'apiKey',
      scope: 'orders:read',
      query: listOrdersQuery.extend(pageQueryShape),
      responses: { 200: { description: 'A page of orders', schema: listEnvelopeSchema(orderViewSchema) } },
      handle: async ({ auth, query }) => ({ status: 200, body: await orders.list(auth, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/orders/{id}',
      operationId: 'getOrder',
      summary: 'Get an order',
      tags,
      auth: 'apiKey',
      scope: 'orders:read',
      params: idParams,
      responses: { 200: { description: 'The order', schema: z.object({ data: orderViewSchema }) } },
      errors: [orderNotFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await orders.get(auth, params.id) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/orders/{id}/cancel',
      operationId: 'cancelOrder',
      summary: 'Cancel an order before production',
      description: 'Allowed while the status is PENDING or PAID. A paid order becomes REFUNDED and its amount is credited to the wallet.',
      tags,
      auth: 'apiKey',
      scope: 'orders:write',
      params: idParams,
      responses: { 200: { description: 'The cancelled order', schema: z.object({ data: orderViewSchema }) } },
      errors: [
        orderNotFound,
        { status: 409, code: 'order_not_cancellable', description: 'Production has started, or the order is already cancelled.' },
        { status: 409, code: 'payment_in_progress', description: 'A card charge is under way; retry shortly.' },
      ],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await orders.cancel(auth, params.id) } }),
    }),
    defineRoute({
      method: 'put',
      path: '/orders/{id}/lines/{line}/file',
      operationId: 'replaceOrderLineFile',
      summary: 'Supply a missing or replacement print file while the order is AWAITING_FILE',
      description: 'Checked exactly as at placement. Once every line has a usable file, the order goes on to payment.',
      tags,
      auth: 'apiKey',
      scope: 'orders:write',
      params: z.object({ id: z.string().min(1).max(64), line: z.string().regex(/^\d{1,3}$/, 'must be a line number').transform(Number) }),
      body: z.strictObject({ fileUrl: z.url({ message: 'fileUrl must be a URL' }).max(2048).meta({ description: 'Public https URL of the print file, checked as at placement (a non-https URL is 422 invalid_file_url).' }) }),
      responses: { 200: { description: 'The order', schema: z.object({ data: orderViewSchema }) } },
      errors: [
        orderNotFound,
        { status: 409, code: 'order_not_awaiting_file', description: 'The order does not wait for a file.' },
        { status: 422, code: 'invalid_file_url', description: 'The file is not usable.' },
      ],
      handle: async ({ auth, params, body }) => ({ status: 200, body: { data: await orders.replaceLineFile(auth, params.id, params.line, body.fileUrl) } }),
    }),
  ];
}
