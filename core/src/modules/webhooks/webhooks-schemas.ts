import { z } from 'zod';
import { openApiComponent } from '../../web/openapi-component.ts';
import { SUBSCRIBABLE_EVENTS } from './webhook-event-types.ts';

export const webhookEndpointSchema = openApiComponent(
  z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    testMode: z.boolean().meta({ description: 'Created with a prk_test_ key: receives sandbox events only.' }),
    enabled: z.boolean(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable(),
    failingSince: z.string().nullable().meta({
      description: 'Every delivery attempt since this time has failed; after 5 days the endpoint is disabled.',
    }),
    previousSecretExpiresAt: z.string().nullable().meta({
      description:
        'After a rotation: until this time deliveries carry a second v1= signature made with the previous secret. Null when only the current secret signs.',
    }),
    createdAt: z.string(),
  }),
  'WebhookEndpoint',
);

export const createdWebhookEndpointSchema = openApiComponent(
  webhookEndpointSchema.extend({
    secret: z
      .string()
      .meta({ description: 'The signing secret (whsec_…). Shown only in this response: store it now.' }),
  }),
  'WebhookEndpointWithSecret',
);

/** Hours the previous secret keeps signing after a rotation: up to a week, 24 by default. */
export const MAX_SECRET_OVERLAP_HOURS = 168;

export const rotateSecretBody = z.strictObject({
  expiresInHours: z
    .number()
    .int()
    .min(0)
    .max(MAX_SECRET_OVERLAP_HOURS)
    .default(24)
    .meta({
      description: `How long the previous secret keeps signing beside the new one (0 to ${MAX_SECRET_OVERLAP_HOURS} hours, default 24; 0 stops it at once).`,
    }),
});

export const webhookAttemptSchema = openApiComponent(
  z.object({
    attempt: z.number().int(),
    trigger: z
      .enum(['scheduled', 'manual'])
      .meta({ description: '`scheduled`: an automatic attempt; `manual`: a redelivery or test ping you asked for.' }),
    startedAt: z.string(),
    statusCode: z.number().int().nullable(),
    latencyMs: z.number().int().nullable(),
    error: z.string().nullable(),
    succeeded: z.boolean(),
  }),
  'WebhookAttempt',
);

const DELIVERY_STATUS_DESCRIPTION =
  '`pending`: not delivered yet, another attempt is scheduled; `delivered`: a 2xx answered; `failed`: every automatic attempt failed (retry it by hand); `cancelled`: the endpoint was deleted first.';

export const webhookDeliverySchema = openApiComponent(
  z.object({
    id: z.string().meta({ description: 'Sent as X-Service-Delivery; the same on every attempt of this delivery.' }),
    eventId: z.string().meta({ description: 'The body field id: the same on every attempt; deduplicate on it.' }),
    eventType: z.string(),
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled']).meta({ description: DELIVERY_STATUS_DESCRIPTION }),
    attemptCount: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastLatencyMs: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    attempts: z.array(webhookAttemptSchema).meta({ description: 'Finished attempts, oldest first (the last 20).' }),
  }),
  'WebhookDelivery',
);

export const createWebhookBody = openApiComponent(
  z.strictObject({
    url: z
      .string()
      .min(1)
      .max(2048)
      .meta({ description: 'https URL of your receiver; it must resolve to a public address.' }),
    events: z
      .array(z.string().max(64))
      .min(1)
      .max(32)
      .meta({ description: `Event kinds to receive, or ["*"] for all. One of: ${SUBSCRIBABLE_EVENTS.join(', ')}.` }),
  }),
  'CreateWebhookRequest',
);

export const deliveriesQueryShape = {
  status: z
    .enum(['pending', 'delivered', 'failed', 'cancelled'])
    .optional()
    .meta({ description: `Only deliveries with this status. ${DELIVERY_STATUS_DESCRIPTION}` }),
};
