import { z } from 'zod';
import {
  EXAMPLE_ORDER,
  EXAMPLE_ORDER_AWAITING_FILE,
  EXAMPLE_ORDER_DELIVERED,
  EXAMPLE_WEBHOOK,
  exampleEvent,
} from '../../web/api-examples.ts';
import { openApiComponent, type DocumentedWebhook } from '../../web/openapi-component.ts';
import { orderSchemas, trackingSchema } from '../orders/orders-schemas.ts';
import { STORE_EVENT_TYPES } from './webhook-event-types.ts';

/** The headers of every delivery (spec §6), for the OpenAPI `webhooks` section. */
export const DELIVERY_HEADERS = [
  { name: 'X-Service-Event', description: 'The event type, as in the body’s `type`.', example: 'order.shipped' },
  {
    name: 'X-Service-Delivery',
    description:
      'The id of this delivery (one per event and endpoint), the same on every attempt; GET /webhooks/{id}/deliveries lists it.',
    example: 'whd_01M89QQV7J224B1D14B91D2C4B',
  },
  { name: 'X-Service-Attempt', description: 'The attempt number: 1, 2, …', example: '1' },
  {
    name: 'X-Service-Timestamp',
    description: 'Unix seconds when this attempt was sent. Reject a delivery more than 300 seconds from your clock.',
    example: '1795623216',
  },
  {
    name: 'X-Service-Signature',
    description:
      '`v1=` and the lowercase hex HMAC-SHA256 of `<X-Service-Timestamp>.<raw body>`, keyed with the endpoint’s whole secret string (`whsec_…`). After a rotation, two comma-separated values (`v1=<new>,v1=<previous>`): accept a delivery when any matches. Compare in constant time, over the raw bytes (before any JSON parsing).',
    example: 'v1=1ce86e8f80c83881b0990844757a9474c527677a02c63d0a0d3591490625e8d7',
  },
];

const envelope = (type: string, data: z.ZodType, description: string) =>
  z
    .object({
      id: z.string().meta({
        description:
          'The event id: the same on every attempt and every endpoint. Deduplicate on it (delivery is at least once).',
      }),
      type: z.literal(type),
      createdAt: z.string().meta({ description: 'When the event happened (ISO 8601).' }),
      testMode: z
        .boolean()
        .meta({ description: 'true for sandbox (prk_test_) events; a live endpoint never receives them.' }),
      data,
    })
    .meta({ description });

const SENT_WHEN: Record<string, string> = {
  'order.created':
    'An order was placed (API, dashboard or a store). It carries the order as the placement left it: already SUBMITTED/PAID when it was paid at once, else AWAITING_FUNDS or AWAITING_FILE.',
  'order.submitted':
    'The order is paid (or, in test mode, accepted without charge) and goes to production: state SUBMITTED, status PAID.',
  'order.awaiting_funds':
    'The wallet did not cover the order and no card is saved; it is placed when a top-up covers it (oldest first).',
  'order.payment_failed': 'The saved card was declined (`payment.error` says why).',
  'order.in_production':
    'Production started: status PROCESSING (prepress). PRINTING follows without an event of its own.',
  'order.shipped': 'Handed to the carrier: `data.tracking` (also in `data.order.tracking`).',
  'order.delivered': 'The carrier delivered it.',
  'order.cancelled':
    'Cancelled before production: status CANCELLED, or REFUNDED with the amount credited to the wallet.',
  'order.file_problem':
    'A line has no usable print file (or one waits for conversion): state AWAITING_FILE. Supply it with PUT /orders/{id}/lines/{line}/file.',
};

const at = (minutes: number) => new Date(Date.parse('2026-11-25T10:15:36.406Z') + minutes * 60_000).toISOString();

/** Every event a webhook endpoint can receive, with its body schema and a realistic example. */
export function webhookEventDocs(platforms: readonly string[]): Record<string, DocumentedWebhook> {
  const { orderView } = orderSchemas(platforms);
  const orderData = openApiComponent(z.object({ order: orderView }), 'OrderEventData');
  const shippedData = openApiComponent(
    z.object({ order: orderView, tracking: trackingSchema }),
    'OrderShippedEventData',
  );
  const shipped = { ...EXAMPLE_ORDER_DELIVERED, status: 'SHIPPED', updatedAt: at(1440) };
  const orders: Record<string, unknown> = {
    'order.created': EXAMPLE_ORDER,
    'order.submitted': EXAMPLE_ORDER,
    'order.awaiting_funds': {
      ...EXAMPLE_ORDER,
      state: 'AWAITING_FUNDS',
      status: 'PENDING',
      payment: { method: null, status: 'none', error: null, paidAt: null },
    },
    'order.payment_failed': {
      ...EXAMPLE_ORDER,
      state: 'PAYMENT_FAILED',
      status: 'PENDING',
      payment: { method: 'card', status: 'declined', error: 'Your card was declined.', paidAt: null },
    },
    'order.in_production': { ...EXAMPLE_ORDER, status: 'PROCESSING', updatedAt: at(30) },
    'order.shipped': shipped,
    'order.delivered': EXAMPLE_ORDER_DELIVERED,
    'order.cancelled': {
      ...EXAMPLE_ORDER,
      state: 'CANCELLED',
      status: 'REFUNDED',
      payment: { ...EXAMPLE_ORDER.payment, status: 'refunded' },
      updatedAt: at(5),
      cancelledAt: at(5),
    },
    'order.file_problem': EXAMPLE_ORDER_AWAITING_FILE,
  };
  const docs: Record<string, DocumentedWebhook> = {};
  let n = 0;
  for (const [type, order] of Object.entries(orders)) {
    const data = type === 'order.shipped' ? shippedData : orderData;
    const eventData = type === 'order.shipped' ? { order, tracking: shipped.tracking } : { order };
    docs[type] = {
      summary: type,
      description: `${SENT_WHEN[type]} \`data.order\` is the order as committed with the event (as GET /orders/{id} returned it then); of an order's events, the one with the latest \`data.order.updatedAt\` is the current one.`,
      schema: envelope(type, data, SENT_WHEN[type]!),
      example: exampleEvent(
        type,
        `evt_01M89QQT4KC3K09ZVQD6Y1C5E${n++}`,
        (order as { updatedAt: string }).updatedAt,
        eventData,
      ),
    };
  }
  const skippedData = openApiComponent(
    z.object({
      store: z.object({ id: z.string(), platform: z.string(), name: z.string() }),
      storeOrder: z.object({ ingestId: z.string(), externalOrderId: z.string(), name: z.string().nullable() }),
      unmatchedSkus: z.array(z.string()).meta({ description: 'The SKUs that are none of your active products.' }),
      skippedLines: z.array(z.object({ sku: z.string().nullable(), quantity: z.number(), reason: z.string() })),
    }),
    'StoreOrderSkippedEventData',
  );
  for (const type of STORE_EVENT_TYPES) {
    const description =
      'A connected store’s order of which nothing was placed: none of its SKUs is one of your active products. Create (or activate) them, then POST /stores/{id}/ingests/{ingestId}/retry.';
    docs[type] = {
      summary: type,
      description,
      schema: envelope(type, skippedData, description),
      example: exampleEvent(type, 'evt_01M89R5B7H2K9D4W6X1Q3N8TZA', '2026-11-25T10:51:08.402Z', {
        store: { id: 'sto_01M89R2K4H7Q5N3B8VDX0C6TYE', platform: 'WOOCOMMERCE', name: 'Tulip Prints' },
        storeOrder: { ingestId: 'ing_01M89R4D2F6X8P3K7T5Q9W1NCM', externalOrderId: '5088', name: '#5088' },
        unmatchedSkus: ['FLY-A5-500'],
        skippedLines: [{ sku: 'FLY-A5-500', quantity: 500, reason: "SKU 'FLY-A5-500' is none of your products" }],
      }),
    };
  }
  const pingDescription =
    'Sent by POST /webhooks/{id}/test only (never to other endpoints, not retried), signed like every event.';
  docs.ping = {
    summary: 'ping',
    description: pingDescription,
    schema: envelope('ping', z.object({ webhookId: z.string() }), pingDescription),
    example: exampleEvent('ping', 'evt_01M89QQV93EKVCCBQ4YREM77CG', '2026-11-25T10:15:38.467Z', {
      webhookId: EXAMPLE_WEBHOOK.id,
    }),
  };
  return docs;
}
