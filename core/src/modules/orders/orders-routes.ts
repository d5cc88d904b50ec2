import { z } from 'zod';
import {
  EXAMPLE_FILE_URL,
  EXAMPLE_ORDER,
  EXAMPLE_ORDER_AWAITING_FILE,
  EXAMPLE_ORDER_DELIVERED,
  EXAMPLE_ORDER_REQUEST,
  examplePage,
} from '../../web/api-examples.ts';
import { idempotencyKeyOf } from '../../web/idempotency-key.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import { orderSchemas, placeOrderBody } from './orders-schemas.ts';
import type { OrdersService } from './orders-service.ts';

const tags = ['Orders'];
const orderNotFound = { status: 404, code: 'not_found', description: 'Unknown order (or another account’s).' };
const orderId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Order id (`ord_…`).', example: 'ord_01M89QQS8PF0R454XXXZVC09H9' });
const idParams = z.object({ id: orderId });

/** POST/GET /orders, GET /orders/{id}, POST /orders/{id}/cancel, PUT /orders/{id}/lines/{line}/file. */
export function ordersRoutes(deps: {
  orders: OrdersService;
  /** The loaded connectors' platforms: order sources besides the spec's. */
  sources: readonly string[];
}): AnyRoute[] {
  const { orders } = deps;
  const {
    orderView: orderViewSchema,
    orderResult: orderResultSchema,
    listQuery: listOrdersQuery,
  } = orderSchemas(deps.sources);
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
        'Required: lines (1-100, each with quantity and productId or resellerSku) and recipient (name, address1, postalCode, city, country). externalOrderId, recipient.email/phone/company/state and fileUrl are optional.',
        'The Idempotency-Key header is required: a repeat with the same key returns the first order with 200 and duplicate: true, never a second order or charge; the same key with another body gives 422 idempotency_key_reused. Keys are kept 30 days, per account and mode.',
      ].join(' '),
      tags,
      auth: 'apiKey',
      scope: 'orders:write',
      body: placeOrderBody,
      bodyExample: EXAMPLE_ORDER_REQUEST,
      headers: [
        {
          name: 'Idempotency-Key',
          required: true,
          description: 'Unique per order you mean to place (1-255 printable characters), e.g. a UUID.',
          example: '6f1c2a4e-8d0b-4a53-9a57-0c7e3b1f2d99',
        },
      ],
      responses: {
        201: {
          description: 'The new order',
          schema: z.object({ data: orderResultSchema }),
          example: { data: { ...EXAMPLE_ORDER, duplicate: false } },
        },
        200: {
          description: 'A repeat of an earlier request with the same Idempotency-Key',
          schema: z.object({ data: orderResultSchema }),
          example: { data: { ...EXAMPLE_ORDER, duplicate: true } },
        },
      },
      errors: [
        {
          status: 422,
          code: 'invalid_options',
          description:
            'Unknown or automatic option keys (details list allowedKeys); also invalid_option_value, option_conflict, copies_mismatch, run_unavailable, quantity_out_of_range, unpriceable_configuration, unknown_product, unknown_sku, inactive_reseller_product, unsupported_country.',
        },
        {
          status: 422,
          code: 'invalid_file_url',
          description:
            'A fileUrl is not a reachable public https PDF, PNG or JPG (details name the line and the reason).',
        },
        {
          status: 422,
          code: 'idempotency_key_reused',
          description: 'The Idempotency-Key was used for a different request.',
        },
      ],
      handle: async ({ auth, body, headers }) => {
        const key = idempotencyKeyOf(headers, { required: true, what: 'placing an order' });
        const result = await orders.place(auth, body, { idempotencyKey: key, source: 'API' });
        return {
          status: result.duplicate ? 200 : 201,
          body: { data: { ...result.order, duplicate: result.duplicate } },
        };
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
      responses: {
        200: {
          description: 'A page of orders',
          schema: listEnvelopeSchema(orderViewSchema),
          example: examplePage([EXAMPLE_ORDER_DELIVERED], null, 1),
        },
      },
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
      responses: {
        200: {
          description: 'The order',
          schema: z.object({ data: orderViewSchema }),
          example: { data: EXAMPLE_ORDER_DELIVERED },
        },
      },
      errors: [orderNotFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await orders.get(auth, params.id) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/orders/{id}/cancel',
      operationId: 'cancelOrder',
      summary: 'Cancel an order before production',
      description:
        'Allowed while the status is PENDING or PAID. A paid order becomes REFUNDED and its amount is credited to the wallet.',
      tags,
      auth: 'apiKey',
      scope: 'orders:write',
      params: idParams,
      responses: {
        200: {
          description: 'The cancelled order',
          schema: z.object({ data: orderViewSchema }),
          example: {
            data: {
              ...EXAMPLE_ORDER,
              state: 'CANCELLED',
              status: 'REFUNDED',
              payment: { ...EXAMPLE_ORDER.payment, status: 'refunded' },
              updatedAt: '2026-11-25T10:21:04.118Z',
              cancelledAt: '2026-11-25T10:21:04.118Z',
            },
          },
        },
      },
      errors: [
        orderNotFound,
        {
          status: 409,
          code: 'order_not_cancellable',
          description: 'Production has started, or the order is already cancelled.',
        },
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
      params: z.object({
        id: orderId,
        line: z
          .string()
          .regex(/^\d{1,3}$/, 'must be a line number')
          .transform(Number)
          .meta({ description: 'The 0-based line number (`line` of the order line).', example: '0' }),
      }),
      body: z.strictObject({
        fileUrl: z.url({ message: 'fileUrl must be a URL' }).max(2048).meta({
          description:
            'Public https URL of the print file, checked as at placement (a non-https URL is 422 invalid_file_url).',
        }),
      }),
      bodyExample: { fileUrl: EXAMPLE_FILE_URL },
      responses: {
        200: {
          description: 'The order',
          schema: z.object({ data: orderViewSchema }),
          example: {
            data: {
              ...EXAMPLE_ORDER_AWAITING_FILE,
              state: 'SUBMITTED',
              status: 'PAID',
              lines: [{ ...EXAMPLE_ORDER_AWAITING_FILE.lines[0]!, fileUrl: EXAMPLE_FILE_URL, fileStatus: 'ok' }],
              payment: {
                ...EXAMPLE_ORDER_AWAITING_FILE.payment,
                status: 'not_charged',
                paidAt: '2026-11-25T10:17:52.640Z',
              },
              updatedAt: '2026-11-25T10:17:52.640Z',
            },
          },
        },
      },
      errors: [
        orderNotFound,
        { status: 409, code: 'order_not_awaiting_file', description: 'The order does not wait for a file.' },
        { status: 422, code: 'invalid_file_url', description: 'The file is not usable.' },
      ],
      handle: async ({ auth, params, body }) => ({
        status: 200,
        body: { data: await orders.replaceLineFile(auth, params.id, params.line, body.fileUrl) },
      }),
    }),
  ];
}
