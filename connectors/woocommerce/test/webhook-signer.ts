import { createHmac, randomUUID } from 'node:crypto';
import { webhookBody, type SignedWebhook } from '@print-api/connector-kit/testing';

/** WooCommerce: `X-WC-Webhook-Signature` is the base64 HMAC-SHA256 of the raw body with the webhook's secret. */
export function wooCommerceWebhook(opts: {
  payload: unknown;
  secret: string;
  topic: string;
  source: string;
  webhookId?: number;
  deliveryId?: string;
}): SignedWebhook {
  const body = webhookBody(opts.payload);
  const [resource, event] = opts.topic.split('.');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'WooCommerce/9.4.0 Hookshot (WordPress/6.7)',
      'x-wc-webhook-source': opts.source.endsWith('/') ? opts.source : `${opts.source}/`,
      'x-wc-webhook-topic': opts.topic,
      'x-wc-webhook-resource': resource ?? '',
      'x-wc-webhook-event': event ?? '',
      'x-wc-webhook-signature': createHmac('sha256', opts.secret).update(body, 'utf8').digest('base64'),
      'x-wc-webhook-id': String(opts.webhookId ?? 1),
      'x-wc-webhook-delivery-id': opts.deliveryId ?? randomUUID().replace(/-/g, ''),
    },
  };
}
