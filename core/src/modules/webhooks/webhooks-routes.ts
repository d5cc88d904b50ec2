import { z } from 'zod';
import {
  EXAMPLE_DELIVERY,
  EXAMPLE_PING_DELIVERY,
  EXAMPLE_WEBHOOK,
  EXAMPLE_WEBHOOK_ROTATED,
  EXAMPLE_WEBHOOK_WITH_SECRET,
  examplePage,
} from '../../web/api-examples.ts';
import { listEnvelopeSchema, pageQueryShape } from '../../kernel/pagination.ts';
import { defineRoute, type AnyRoute } from '../../web/route.ts';
import type { WebhookDeliveriesService } from './webhook-deliveries-service.ts';
import type { WebhookEndpointsService } from './webhook-endpoints-service.ts';
import type { WebhooksOptions } from './webhooks-options.ts';
import {
  createWebhookBody,
  createdWebhookEndpointSchema,
  deliveriesQueryShape,
  rotateSecretBody,
  webhookDeliverySchema,
  webhookEndpointSchema,
} from './webhooks-schemas.ts';

const tags = ['Webhooks'];
const endpointId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Webhook endpoint id (`whe_…`).', example: 'whe_01M89QQS7S8BTVEGQNW40W9DB9' });
const idParams = z.object({ id: endpointId });
const endpointNotFound = {
  status: 404,
  code: 'not_found',
  description: 'Unknown webhook endpoint (or another account’s, or another mode’s).',
};
const endpointBody = z.object({ data: webhookEndpointSchema });
const deliveryBody = z.object({ data: webhookDeliverySchema });

function deliveryContract(o: WebhooksOptions): string {
  const hours = Math.round(o.retryScheduleMs.reduce((a, b) => a + b, 0) / 3_600_000);
  return [
    'Each event is POSTed as JSON `{id, type, createdAt, testMode, data}`; `data.order` is the order as GET /orders/{id} returned it when the event happened (`order.shipped` adds `data.tracking`).',
    '`store.order_skipped` (connected stores) has no `data.order`: `data.store` `{id, platform, name}`, `data.storeOrder` `{ingestId, externalOrderId, name}`, `data.unmatchedSkus` (the SKUs that are none of your active products; a line without a SKU whose listing is unmapped is in `data.skippedLines` only) and `data.skippedLines`; create the products (or map the listings: POST /stores/{id}/links), then POST /stores/{id}/ingests/{ingestId}/retry (or POST /stores/{id}/ingests/retry for all of them).',
    'Headers: `X-Service-Event` (the type), `X-Service-Delivery` (the id of this delivery: one per event and endpoint, the same on every attempt), `X-Service-Attempt` (1, 2, …),',
    '`X-Service-Timestamp` (Unix seconds at send time), `X-Service-Signature: v1=<lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>">` keyed with the whole secret string.',
    `A 2xx within ${o.timeoutMs / 1000} s is success. Anything else (another status, a timeout, a connection error, a redirect, which is never followed) is retried with exponential backoff and jitter for about ${hours} hours, then the delivery is failed.`,
    'The event `id` is the same on every attempt: delivery is at least once, so deduplicate on it. Deliveries to one endpoint are not ordered; use `createdAt` and the order itself.',
    'An endpoint whose every attempt failed for 5 days is disabled (`enabled: false`); POST /webhooks/{id}/enable turns it back on.',
    'POST /webhooks/{id}/rotate-secret replaces the secret; for a while both sign (two `v1=` values).',
  ].join(' ');
}

/**
 * GET/POST /webhooks, GET/DELETE /webhooks/{id}, and the extensions: enable, secret rotation, test ping, delivery log,
 * redelivery.
 */
export function webhooksRoutes(deps: {
  endpoints: WebhookEndpointsService;
  deliveries: WebhookDeliveriesService;
  options: WebhooksOptions;
}): AnyRoute[] {
  const { endpoints, deliveries } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      description: 'The endpoints of the key’s mode, newest first. The secret is never shown again.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:read',
      query: z.strictObject(pageQueryShape),
      responses: {
        200: {
          description: 'A page of endpoints',
          schema: listEnvelopeSchema(webhookEndpointSchema),
          example: examplePage([EXAMPLE_WEBHOOK]),
        },
      },
      handle: async ({ auth, query }) => ({ status: 200, body: await endpoints.list(auth, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Create webhook endpoint',
      description: [
        `\`url\` must be https and resolve to a public address. \`events\` lists event kinds, or \`["*"]\` for all. At most ${deps.options.maxEndpoints} endpoints per account and mode.`,
        'A prk_test_ key creates a test endpoint, which receives sandbox events only; a live endpoint never receives sandbox events.',
        'The response holds the signing secret (whsec_…), shown only here.',
        deliveryContract(deps.options),
      ].join(' '),
      tags,
      auth: 'apiKey',
      scope: 'webhooks:write',
      body: createWebhookBody,
      bodyExample: { url: EXAMPLE_WEBHOOK.url, events: ['*'] },
      responses: {
        201: {
          description: 'The new endpoint, with its secret',
          schema: z.object({ data: createdWebhookEndpointSchema }),
          example: { data: EXAMPLE_WEBHOOK_WITH_SECRET },
        },
      },
      errors: [
        { status: 422, code: 'invalid_events', description: 'Unknown event kinds; details carry allowedValues.' },
        {
          status: 422,
          code: 'invalid_webhook_url',
          description:
            'Not https, not a valid URL, or the host does not resolve to a public address (details name the reason).',
        },
        {
          status: 422,
          code: 'webhook_limit_reached',
          description: 'The account already has the maximum number of endpoints in this mode.',
        },
      ],
      handle: async ({ auth, body }) => ({ status: 201, body: { data: await endpoints.create(auth, body) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/{id}',
      operationId: 'getWebhook',
      summary: 'Get a webhook endpoint',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:read',
      params: idParams,
      responses: {
        200: {
          description: 'The endpoint (without its secret)',
          schema: endpointBody,
          example: { data: EXAMPLE_WEBHOOK },
        },
      },
      errors: [endpointNotFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await endpoints.get(auth, params.id) } }),
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/{id}',
      operationId: 'deleteWebhook',
      summary: 'Delete webhook endpoint',
      description: 'Pending deliveries to the endpoint are cancelled: no further attempt is made.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: idParams,
      responses: {
        200: {
          description: 'Deleted',
          schema: z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) }),
          example: { data: { id: EXAMPLE_WEBHOOK.id, deleted: true } },
        },
      },
      errors: [endpointNotFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await endpoints.delete(auth, params.id) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/{id}/enable',
      operationId: 'enableWebhook',
      summary: 'Re-enable an endpoint disabled after failing continuously',
      description: 'Events that happened while it was disabled are not delivered to it.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: idParams,
      responses: { 200: { description: 'The endpoint', schema: endpointBody, example: { data: EXAMPLE_WEBHOOK } } },
      errors: [endpointNotFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await endpoints.enable(auth, params.id) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the signing secret, keeping the old one valid for a while',
      description:
        'Answers with the new secret (whsec_…), shown only here. Until `previousSecretExpiresAt` (`expiresInHours` from now, default 24, at most 168; 0 retires it at once) every delivery carries two signatures, `X-Service-Signature: v1=<with the new secret>,v1=<with the previous one>`: a receiver that checks either secret (the SDK accepts any matching v1) keeps working while it switches. Rotating again during that time retires the older secret.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: idParams,
      body: rotateSecretBody,
      bodyExample: { expiresInHours: 24 },
      responses: {
        200: {
          description: 'The endpoint with its new secret',
          schema: z.object({ data: createdWebhookEndpointSchema }),
          example: { data: EXAMPLE_WEBHOOK_ROTATED },
        },
      },
      errors: [endpointNotFound],
      handle: async ({ auth, params, body }) => ({
        status: 200,
        body: { data: await endpoints.rotateSecret(auth, params.id, body) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/{id}/test',
      operationId: 'testWebhook',
      summary: 'Send a signed ping event now',
      description:
        'Sends `{id, type: "ping", createdAt, testMode, data: {webhookId}}`, signed like every event, and answers with the outcome. A ping is sent once, not retried.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: idParams,
      responses: {
        200: {
          description: 'The ping delivery with its attempt (whatever the receiver answered)',
          schema: deliveryBody,
          example: { data: EXAMPLE_PING_DELIVERY },
        },
      },
      errors: [endpointNotFound],
      handle: async ({ auth, params }) => ({ status: 200, body: { data: await deliveries.ping(auth, params.id) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery log of an endpoint',
      description:
        'Newest first: each delivery with its status, attempts (status codes, latency, errors) and next attempt. Kept 30 days.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:read',
      params: idParams,
      query: z.strictObject({ ...pageQueryShape, ...deliveriesQueryShape }),
      responses: {
        200: {
          description: 'A page of deliveries',
          schema: listEnvelopeSchema(webhookDeliverySchema),
          example: examplePage([EXAMPLE_DELIVERY], null, 1),
        },
      },
      errors: [endpointNotFound],
      handle: async ({ auth, params, query }) => ({ status: 200, body: await deliveries.list(auth, params.id, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/{id}/deliveries/{deliveryId}/retry',
      operationId: 'retryWebhookDelivery',
      summary: 'Redeliver now',
      description:
        'Sends the delivery again at once (same event id, same X-Service-Delivery, new timestamp and signature), whatever its status, and answers with the outcome. A failure of a delivery that still had automatic attempts left keeps its schedule.',
      tags,
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: z.object({
        id: endpointId,
        deliveryId: z.string().min(1).max(64).meta({
          description: 'Delivery id (`whd_…`), as sent in X-Service-Delivery.',
          example: 'whd_01M89QQV7J224B1D14B91D2C4B',
        }),
      }),
      responses: {
        200: {
          description: 'The delivery with the new attempt',
          schema: deliveryBody,
          example: {
            data: {
              ...EXAMPLE_DELIVERY,
              attemptCount: 2,
              lastAttemptAt: '2026-11-25T10:40:02.311Z',
              lastLatencyMs: 41,
              deliveredAt: '2026-11-25T10:40:02.352Z',
              attempts: [
                ...EXAMPLE_DELIVERY.attempts,
                {
                  attempt: 2,
                  trigger: 'manual',
                  startedAt: '2026-11-25T10:40:02.311Z',
                  statusCode: 200,
                  latencyMs: 41,
                  error: null,
                  succeeded: true,
                },
              ],
            },
          },
        },
      },
      errors: [endpointNotFound, { status: 404, code: 'not_found', description: 'Unknown delivery of this endpoint.' }],
      handle: async ({ auth, params }) => ({
        status: 200,
        body: { data: await deliveries.retry(auth, params.id, params.deliveryId) },
      }),
    }),
  ];
}
