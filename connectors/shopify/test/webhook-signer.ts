import { createHmac, randomUUID } from 'node:crypto';
import { webhookBody, type SignedWebhook } from '@print-api/connector-kit/testing';

/**
 * Shopify: `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body with the app's
 * client secret, plus the topic, shop domain, API version, webhook id, event id and trigger time.
 */
export function shopifyWebhook(opts: {
  payload: unknown;
  secret: string;
  topic: string;
  shop: string;
  apiVersion?: string;
  webhookId?: string;
  eventId?: string;
  triggeredAt?: string;
}): SignedWebhook {
  const body = webhookBody(opts.payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': opts.topic,
      'x-shopify-hmac-sha256': createHmac('sha256', opts.secret).update(body, 'utf8').digest('base64'),
      'x-shopify-shop-domain': opts.shop,
      'x-shopify-api-version': opts.apiVersion ?? '2025-10',
      'x-shopify-webhook-id': opts.webhookId ?? randomUUID(),
      'x-shopify-event-id': opts.eventId ?? randomUUID(),
      'x-shopify-triggered-at': opts.triggeredAt ?? new Date().toISOString(),
    },
  };
}
