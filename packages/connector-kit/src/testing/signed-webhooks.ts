import { createHmac, randomUUID } from 'node:crypto';
import { hmacSignature } from '../hmac-signature.ts';
import { signRs256Jwt } from '../jwt-rs256.ts';
import { signStandardWebhook } from '../standard-webhooks.ts';

/** A webhook request as a platform would send it: headers and the exact body bytes. */
export interface SignedWebhook {
  headers: Record<string, string>;
  body: string;
}

const json = (payload: unknown): string => (typeof payload === 'string' ? payload : JSON.stringify(payload));

/**
 * Shopify: `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body with the app's
 * client secret, plus the topic, shop domain, API version, webhook id, event id and trigger time.
 */
export function shopifyWebhook(opts: { payload: unknown; secret: string; topic: string; shop: string; apiVersion?: string; webhookId?: string; eventId?: string; triggeredAt?: string }): SignedWebhook {
  const body = json(opts.payload);
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

/** WooCommerce: `X-WC-Webhook-Signature` is the base64 HMAC-SHA256 of the raw body with the webhook's secret. */
export function wooCommerceWebhook(opts: { payload: unknown; secret: string; topic: string; source: string; webhookId?: number; deliveryId?: string }): SignedWebhook {
  const body = json(opts.payload);
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

/**
 * Standard Webhooks (Etsy): `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * keyed with the base64 part of a `whsec_` secret.
 */
export function standardWebhook(opts: { payload: unknown; secret: string; id?: string; timestamp?: number }): SignedWebhook {
  const body = json(opts.payload);
  const headers = signStandardWebhook({ id: opts.id ?? `msg_${randomUUID()}`, timestamp: opts.timestamp ?? new Date(), body, secret: opts.secret });
  return { body, headers: { 'content-type': 'application/json', ...headers } };
}

/** TikTok Shop: `Authorization` is the hex HMAC-SHA256 of app_key + raw body, keyed with the app secret. */
export function tiktokShopWebhook(opts: { payload: unknown; appKey: string; appSecret: string }): SignedWebhook {
  const body = json(opts.payload);
  return { body, headers: { 'content-type': 'application/json', authorization: hmacSignature([opts.appKey, body], opts.appSecret, { encoding: 'hex' }) } };
}

/** Wix: the body is an RS256 JWT signed with the app's private key; its `data` claim is a JSON string. */
export function wixWebhook(opts: { data: unknown; privateKeyPem: string; issuedAt?: number }): SignedWebhook {
  const iat = opts.issuedAt ?? Math.floor(Date.now() / 1000);
  return { body: signRs256Jwt({ data: JSON.stringify(opts.data), iat, exp: iat + 3600 }, opts.privateKeyPem, { kid: 'test' }), headers: { 'content-type': 'text/plain' } };
}
